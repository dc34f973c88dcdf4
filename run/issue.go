package run

import (
	"time"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/sched"
	"golang.org/x/sys/unix"
)

// canIssue applies the stop rules before a new I/O.
func (l *loop) canIssue(now int64) bool {
	if l.stopIssue {
		return false
	}
	if l.stop.Load() || l.kill.Load() {
		l.stopIssue = true
		return false
	}
	if l.ramping && (now >= l.rampEnd || l.rampSizeDone(now)) {
		l.endRamp(now)
	}
	if l.deadline != 0 && now >= l.deadline {
		l.stopIssue = true
		l.pass.pastRuntime = true
		return false
	}
	if !l.ramping {
		if l.numberIOs != 0 && l.issuedIOs >= l.numberIOs && !l.verify.trimListed {
			// fio's do_io runs on past number_ios while trim
			// verify's list holds blocks.
			l.stopIssue = true
			return false
		}
	}
	return true
}

// issue is the heavy item: choose direction, offset and length, fill the
// buffer, prepare the request and submit per iodepth_batch_submit.
func (l *loop) issue(si uint32, now int64) {
	s := &l.slots[si]
	if s.requeue {
		s.requeue = false
		rest := s.length - s.done
		l.req = engines.Request{Op: s.op, File: int(s.file), Offset: s.off, Buf: l.bufs[si][s.done : s.done+rest], BufOff: s.done, IOPrio: s.ioprio}
		l.queue(si)
		return
	}
	if l.verify.verifying {
		l.issueVerify(si, now)
		return
	}
	if l.latTarget.search != nil && !l.latAdmit(si, now) {
		return
	}
	if l.verify.backlogs && l.backlogDue() {
		l.issueBacklog(si, now)
		return
	}
	if l.thinkDue() {
		// fio thinks after every thinktime_blocks I/Os, the last one too.
		l.thinkTime.parked = append(l.thinkTime.parked, si)
		return
	}
	if l.verify.logsAtIssue {
		l.issueLogged(si, now)
		return
	}
	if !l.canIssue(now) {
		return
	}
	if l.flowHeld(si) {
		return
	}
	var next nextIO
	if !l.chooseIO(si, now, &next) {
		return
	}
	l.countIssued(si, &next)
}

// newIO sets every field of s for a new I/O as the literal
// slot{op: op, dir: d, file: file, off: off, length: n, start: now,
// slat: -1, ramp: ramp} would, field by field: a literal is built on the
// stack and copied, 30 instructions per I/O. TestNewIOIsLiteral holds the
// two equal, a field added to slot included.
func (s *slot) newIO(op engines.Op, d jobfile.Dir, file int32, off uint64, n uint32, now int64, ramp bool) {
	s.op, s.dir, s.file, s.off, s.length, s.done = op, d, file, off, n, 0
	s.start, s.issue, s.res, s.zeroes, s.slat = now, 0, 0, false, -1
	s.ramp, s.requeue, s.verify, s.retries = ramp, false, false, 0
	s.ioprio, s.prioIdx, s.flight, s.zone = 0, 0, false, false
}

// setRequest sets *r to engines.Request{Op: op, File: file, Offset: off,
// Buf: buf} field by field, for the reason newIO does (24 instructions
// per I/O); TestNewIOIsLiteral holds the two equal.
func setRequest(r *engines.Request, op engines.Op, file int, off uint64, buf []byte) {
	r.Op, r.File, r.Offset, r.Buf = op, file, off, buf
	r.BufOff, r.IOPrio, r.Async, r.SyncLen, r.ZoneReset = 0, 0, false, 0, false
}

// nextIO is the I/O chooseIO picked for a slot: its op, direction, file,
// offset and length, and the time it is issued at.
type nextIO struct {
	op     engines.Op
	d      jobfile.Dir
	file   int
	off, n uint64
	now    int64
}

// chooseIO picks the next I/O of the job, by fio's rules, in order: the
// replayed log's next line, a due fsync, the I/O an overlap held back, or
// iogen's next direction, file, offset and length; rate limits and
// serialize_overlap may make the slot wait instead (false), and the end
// of the job's budget or of its I/Os stops issuing (false). The I/O goes
// into next field by field: a struct result is built on the stack and
// copied, about 50 instructions per I/O.
func (l *loop) chooseIO(si uint32, now int64, next *nextIO) bool {
	op := engines.OpRead
	var (
		d      jobfile.Dir
		n, off uint64
		file   int
		ok     bool
	)
	if !l.budgetLeft() {
		l.stopIssue = true
		return false
	}
	if l.replay != nil {
		if op, d, file, off, n, ok = l.replay.Next(); !ok {
			l.stopIssue = true
			return false
		}
		now = l.clock()
		l.replay.LastIssue = now
	} else if sync, ok := l.syncDue(); ok {
		op, d, file = sync, jobfile.DirWrite, l.gen.SyncFile()
	} else {
		if l.held.valid {
			d, file, off, n = l.held.dir, l.held.file, l.held.off, l.held.n
			l.held.valid = false
		} else {
			d = l.gen.Dir()
			if l.rates && l.rated(d) && l.nextIssue[d] > now {
				var wait bool
				if d, wait = l.rateDir(d, now); wait {
					l.rateWait(si, l.nextIssue[d]-now)
					return false
				}
			}
			if d, file, off, n, ok = l.fillIO(); !ok {
				l.stopIssue = true
				return false
			}
		}
		if l.serializeOverlap && l.overlapsInFlight(file, off, n) {
			l.held = heldIO{valid: true, dir: d, file: file, off: off, n: n}
			l.overlapWait(si)
			return false
		}
		if l.rates {
			l.openIssue(si, d, now)
			if gap := l.rateGapFor(d, n); gap > 0 {
				l.nextIssue[d] += gap
			}
		}
		switch d {
		case jobfile.DirWrite:
			op = engines.OpWrite
		case jobfile.DirTrim:
			op = engines.OpTrim
		}
	}
	next.op, next.d, next.file, next.off, next.n, next.now = op, d, file, off, n, now
	return true
}

// countIssued fills the chosen I/O's buffer (verify header, refill,
// scramble), stamps its slot and request, logs it, and counts it as fio
// counts an issued I/O (total_ios, the bytes size= limits, think time and
// invalidate passes), then queues it.
func (l *loop) countIssued(si uint32, next *nextIO) {
	s := &l.slots[si]
	op, d, file, off, n, now := next.op, next.d, next.file, next.off, next.n, next.now
	l.flow.passed = false
	buf := l.bufs[si][:n]
	if op == engines.OpWrite {
		switch {
		case l.verify.ver != nil:
			l.verify.ver.Fill(buf, off, l.fillRNG.Next(), uint16(l.issuedIOs))
		case l.refill:
			l.content.Fill(buf, l.minWrite)
		case l.scramble:
			iogen.Scramble(buf, off, now)
		}
	}
	if op.IsSync() {
		// fio's sync io_u keeps the offset of its last I/O, which
		// write_iolog shows (the request itself has none), and its
		// issue time, which a sync done at queue is never given
		// (syncedAtQueue).
		prevOff, prevIssue := s.off, s.issue
		s.newIO(op, d, int32(file), off, uint32(n), now, l.ramping)
		s.off, s.issue = prevOff, prevIssue
	} else {
		s.newIO(op, d, int32(file), off, uint32(n), now, l.ramping)
		if l.zones != nil {
			s.zone = l.zones.Holds(file, d)
		}
	}
	setRequest(&l.req, op, file, off, buf)
	if op == engines.OpSyncFileRange {
		l.req.Offset, l.req.SyncLen = l.sfr.Span(file)
	}
	if op == engines.OpTrim && l.zones != nil {
		l.req.ZoneReset = true
	}
	if op == engines.OpRead || op == engines.OpWrite {
		s.ioprio, s.prioIdx = l.cmdprio.Pick(d, n)
		l.req.IOPrio = s.ioprio
		l.thinkTime.lastDir = d
	}
	l.thinkTime.thinkIssued++
	if l.iolog != nil {
		l.logIO(now, op, file, s.off, n)
	}
	if op == engines.OpRead || op == engines.OpWrite || op == engines.OpTrim {
		// fio counts total_ios and the issued bytes that size= limits at
		// queue time, ramp or not; reset_all_stats clears total_ios at
		// the end of the ramp but not the issued bytes. A trimwrite
		// job's size= counts its writes only (fio's io_bytes_exceeded),
		// so it trims and writes size= bytes each.
		if op != engines.OpTrim || !l.hasWrite {
			l.issued += n
		}
		l.res.Dirs[d].TotalIOs++
		if !l.ramping {
			l.issuedIOs++
		}
	}
	if l.invalidate {
		if l.pass.passBytes >= l.pass.passSize {
			l.pass.passBytes = 0
			l.dropPageCache()
		}
		l.pass.passBytes += n
	}
	l.queue(si)
}

// rateDir is fio's rate_ddir for a direction d that is ahead of its rate
// (rate= or rate_iops=): a mixed job switches to the other direction when
// that one is behind or unrated; otherwise it waits for whichever is due
// first. Like fio it keeps the direction it switches to as the rwmix
// direction. The schedule is fio's: the n-th I/O of a direction is due n
// gaps after the start, with no limit on catching up.
func (l *loop) rateDir(d jobfile.Dir, now int64) (jobfile.Dir, bool) {
	o := d ^ 1
	if !l.hasRead || !l.hasWrite || l.gen.RWMix[o] == 0 {
		return d, true
	}
	if !l.rated(o) || l.nextIssue[o] <= now {
		l.gen.SetDir(o)
		return o, false
	}
	if l.nextIssue[o] < l.nextIssue[d] {
		l.gen.SetDir(o)
		return o, true
	}
	return d, true
}

// rateWait puts the slot back and sleeps towards the rate_iops time (an
// open-loop job waits its own way: openWait). In
// a plain run it first reaps everything in flight, as fio's io_u_quiesce
// does before it sleeps (commit, then one reap after another); under
// tw_reap=all it harvests what completed meanwhile. Completions reaped run
// before the sleep.
func (l *loop) rateWait(si uint32, wait int64) {
	if l.open != nil {
		l.openWait(si, wait)
		return
	}
	l.q.AddHeavy(si, l.clock())
	if !l.syncIO && !l.reapAll {
		l.commitQueued()
	}
	if l.pN > 0 {
		l.submit()
	}
	if l.inflight > 0 {
		if !l.syncIO && !l.reapAll {
			for l.inflight > 0 && !l.fatal && (l.hang == nil || !l.hangCheck()) {
				l.reap(1)
			}
		} else {
			l.reap(0)
		}
		if k, ok := l.q.Peek(); ok && k == sched.Completion {
			return
		}
	}
	if wait > int64(10*time.Millisecond) {
		wait = int64(10 * time.Millisecond)
	}
	l.sleep(time.Duration(wait))
	l.reapFresh = false
}

// overlapsInFlight reports whether n bytes at off of file overlap an I/O
// in flight, as fio's in_flight_overlap.
func (l *loop) overlapsInFlight(file int, off, n uint64) bool {
	if l.inflight == 0 && l.pN == 0 {
		return false // nothing queued or in flight
	}
	for i := range l.slots {
		s := &l.slots[i]
		if s.flight && int(s.file) == file && (s.op == engines.OpRead || s.op == engines.OpWrite || s.op == engines.OpTrim) &&
			off < s.off+uint64(s.length-s.done) && s.off < off+n {
			return true
		}
	}
	return false
}

// overlapWait is fio's answer to FIO_Q_BUSY from serialize_overlap: the
// slot goes back, what is queued is submitted and the loop waits for a
// completion (in a plain run as fio's busy path, see busy), after which
// the held I/O is tried again.
func (l *loop) overlapWait(si uint32) {
	l.q.AddHeavy(si, l.clock())
	if !l.syncIO && !l.reapAll && l.curDepth() > 0 {
		l.busy()
		return
	}
	if l.pN > 0 {
		l.submit()
	}
	if l.inflight > 0 && !l.fatal {
		l.reap(1)
	}
}

// queue hands the prepared request in l.req to the engine. A reading or
// writing request of an asynchronous engine counts in fio's io_u_queued,
// and a batch of iodepth_batch_submit of them is committed
// (commitQueued). In a plain run an engine that fio's would refuse first
// (FIO_Q_BUSY) makes the loop commit and wait as fio's do_io does: null
// queues nothing while completions are pending, and a trim or sync done
// at queue waits for what is queued (queueAtQueue).
func (l *loop) queue(si uint32) {
	if l.req.Op >= engines.OpTrim && l.doneAtQueue(l.req.Op) {
		l.queueAtQueue(si)
		return
	}
	if l.getEventsAll && !l.syncIO && !l.reapAll && l.inflight > 0 {
		l.busy()
		if l.fatal {
			return
		}
	}
	if l.locks != nil {
		l.lockedQueue(si)
		return
	}
	if err := l.eng.Queue(si, &l.req); err != nil {
		l.fail(joberr.ErrnoOf(err, unix.EIO), "io_u queue", err)
		return
	}
	l.queued(si)
}

// lockedQueue queues the request of slot si under its file's lockfile=
// lock, as fio's td_io_prep and td_io_queue hold it: from before the
// engine's queue hook to its return, so a synchronous engine's request
// runs under it, and an asynchronous engine's batch commit comes after.
func (l *loop) lockedQueue(si uint32) {
	file := l.req.File
	shared := l.locks.Lock(file, l.req.Op)
	err := l.eng.Queue(si, &l.req)
	if err != nil || !l.syncIO {
		l.locks.Unlock(file, shared)
	}
	if err != nil {
		l.fail(joberr.ErrnoOf(err, unix.EIO), "io_u queue", err)
		return
	}
	l.queued(si)
	if l.syncIO {
		l.locks.Unlock(file, shared)
	}
}

// queued accounts the request the engine took in slot si: a synchronous
// engine's runs at once (when its batch is full), the others wait for the
// batch's commit.
func (l *loop) queued(si uint32) {
	l.slots[si].flight = true
	if l.syncIO {
		l.pushPending(si)
		if l.pN >= l.batchSubmit {
			l.submit()
		}
		return
	}
	l.pushPending(si)
	l.ioQueued++
	if l.ioQueued >= l.batchSubmit {
		l.commitQueued()
	}
}

// curDepth is fio's cur_depth of an asynchronous engine: the requests
// queued or in flight, the trims done at queue left out. Reaped requests
// whose completion items have not run yet are not in it: fio completes
// what it reaps before it queues again.
func (l *loop) curDepth() int { return l.inflight + l.pN - l.trimsFlying }

// commitQueued is fio's td_io_commit: with requests queued since the last
// one, the IO depths map counts them in the bucket of cur_depth, and the
// engine submits what is pending. The test for none inlines: busy commits
// before every reap, mostly with nothing queued.
func (l *loop) commitQueued() {
	if l.ioQueued != 0 {
		l.commitSome()
	}
}

// commitSome is commitQueued with requests queued.
func (l *loop) commitSome() {
	d := l.curDepth()
	if d == 0 {
		return
	}
	l.res.IODepth[depthBucket(d)] += uint64(l.ioQueued)
	l.ioQueued = 0
	if l.pN > 0 {
		l.submit()
	}
}

// busy is do_io's answer to FIO_Q_BUSY: the request waits, td_io_commit
// runs and, with I/O in flight, fio waits for completions, the queue full
// when no other slot is free.
func (l *loop) busy() {
	l.commitQueued()
	if l.fatal || l.curDepth() == 0 {
		return
	}
	l.waitReap(l.curDepth()+1 >= l.depthLimit())
}

// depthLimit is the depth at which fio's queue_full says the queue is
// full: iodepth, or latency_target's current depth.
func (l *loop) depthLimit() int {
	if l.latTarget.search != nil {
		return l.latTarget.search.QD
	}
	return l.depth
}

// noMarks reports whether the submit and complete maps stay empty: fio
// marks them at queue time only for synchronous engines without a commit
// hook (psync), not for null at iodepth=1.
func (l *loop) noMarks() bool { return l.syncIO && l.commit }

// syncDue says whether the next I/O is an fsync, fdatasync or
// sync_file_range, by fio's get_rw_ddir: a writing job whose writes
// issued are a non-zero multiple of fsync= (then fdatasync=, then
// sync_file_range's :N) syncs, unless the last completion was a sync.
func (l *loop) syncDue() (engines.Op, bool) {
	if !l.syncs {
		return 0, false
	}
	return l.syncDueSet()
}

// syncDueSet is syncDue for a job that syncs, kept out of line so that
// one without pays one inlined test per I/O.
func (l *loop) syncDueSet() (engines.Op, bool) {
	if l.lastWasSync || !l.hasWrite {
		return 0, false
	}
	w := l.gen.WritesIssued()
	switch {
	case w == 0:
	case l.fsyncEvery > 0 && w%uint64(l.fsyncEvery) == 0:
		return engines.OpFsync, true
	case l.fdatasyncEvery > 0 && w%uint64(l.fdatasyncEvery) == 0:
		return engines.OpFdatasync, true
	case l.sfrEvery > 0 && w%uint64(l.sfrEvery) == 0:
		return engines.OpSyncFileRange, true
	}
	return 0, false
}

// fillIO chooses the next read or write; when every file is done for
// this loop, the next loop starts (a time_based job loops until its
// runtime ends), as fio's thread_main does.
func (l *loop) fillIO() (d jobfile.Dir, file int, off, n uint64, ok bool) {
	if d, file, off, n, ok = l.gen.Fill(); ok {
		return d, file, off, n, true // per I/O: nothing else on the way
	}
	if !l.timeBased() && (l.pass.passNr >= l.loops && !l.ioSizeLeft() || l.pass.verifyEachPass) {
		if l.zones != nil {
			l.zoneError()
		}
		return d, file, off, n, false
	}
	if l.zones != nil && l.zones.Err != nil {
		l.zoneError()
		return d, file, off, n, false
	}
	if l.newPass(); l.stopIssue {
		return d, file, off, n, false
	}
	if d, file, off, n, ok = l.gen.Fill(); !ok && l.zones != nil {
		l.zoneError()
	}
	return d, file, off, n, ok
}
