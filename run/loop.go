package run

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/clock"
	"github.com/gofio/gofio/internal/fiorand"
	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/ktrace"
	"github.com/gofio/gofio/internal/lattarget"
	"github.com/gofio/gofio/internal/twthread"
	"github.com/gofio/gofio/internal/verify"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/sched"
)

// slot is the state of one I/O slot: what it is doing and its time stamps.
// A slot index is what travels to the engine as user data.
type slot struct {
	op      engines.Op
	dir     jobfile.Dir
	file    int32
	off     uint64 // offset of the current (possibly remainder) request
	length  uint32 // full length of the I/O
	done    uint32 // bytes already transferred (short I/O requeue)
	start   int64  // prepared (fio start_time)
	issue   int64  // submitted (fio issue_time)
	res     int32  // result of the harvested CQE
	slat    int64  // accounted slat, -1 when none was taken
	ramp    bool   // issued during ramp_time: no slat
	requeue bool   // the next heavy item resubmits the remainder
	verify  bool   // a verify_backlog read: checked on completion
	retries uint8  // -EAGAIN completions resubmitted so far
	ioprio  uint16 // cmdprio's ioprio for this I/O, 0 for none
	prioIdx uint8  // index of its priority in the direction's per-priority stats
	flight  bool   // queued to the engine and its CQE not yet harvested (fio's IO_U_F_FLIGHT)
}

// heldIO is an I/O serialize_overlap put back because it overlaps one in
// flight: fio's requeued io_u, which the next issue takes before drawing a
// new one.
type heldIO struct {
	valid bool
	dir   jobfile.Dir
	file  int
	off   uint64
	n     uint64
}

// maxEAGAINRetries bounds how often one I/O that completes with -EAGAIN
// (nowait, a busy device) is resubmitted before the error ends the job.
const maxEAGAINRetries = 64

// loop is the event loop of one job: it owns the engine, the slots and the
// task-work queue, on one goroutine locked to its OS thread.
type loop struct {
	job     *jobfile.Job
	eng     engines.Engine
	thinker thinker // the engine's own think time (cpuio), nil for most
	ender   ender   // an engine that can end the job (net's UDP receiver), nil for most
	syncIO  bool
	fakeNow func() int64 // Options.now; nil: the TSC or clock.Nanotime (see loop.clock)
	tsc     *clock.TSC   // calibrated TSC, nil: clock.Nanotime
	lastTSC int64        // last TSC reading, which the next never goes below
	sleep   func(time.Duration)
	fadvise func(fd int, off, n int64, advice int) error // Options.fadvise
	stop    *atomic.Bool
	kill    *atomic.Bool // this job's exitall stop (jobRun.kill)
	snap    *jobSnapshot // --status-interval copies (jobRun.snap)
	hang    *hangWatch   // io_timeout (hung.go); nil when off
	// timed is the engine's timed reap under io_timeout, nil when off or
	// when the engine cannot wait with a time limit (setHang).
	timed  engines.TimedReaper
	vstate *verifyState // verify_state_save (vstate.go); nil when off
	warn   io.Writer
	res    *report.JobResult
	prog   *report.Progress

	q       *sched.Queue
	batch   sched.Batch
	slots   []slot
	bufs    [][]byte
	files   []*target
	gen     *iogen.Offsets
	req     engines.Request
	cqes    []engines.Completion
	pending []uint32 // queued in the engine, not yet submitted, in order
	pHead   int
	pN      int

	depth    int
	inflight int // submitted and not yet harvested
	// inflightT is when inflight last changed (or the statistics
	// started): the in-flight area is counted up to it.
	inflightT int64
	// latency_target (latency.go): the depth search, nil when off; the
	// slots waiting for room under its depth; a drain under way, with the
	// statistics to reset at its end; the reads and writes completed.
	lat                *lattarget.Search
	latIdle            []uint32
	latDrain, latReset bool
	latIOs             uint64
	// fio's accounting of an asynchronous engine, kept where the loop
	// does what fio counts (the submit, complete and IO depths maps):
	// ioQueued is fio's io_u_queued, the requests queued since the last
	// batch commit (commitQueued); trimsFlying and trimsPending count the
	// trims done at queue (trimAtQueue) that are not yet reaped and not
	// yet submitted, which fio never holds in cur_depth.
	ioQueued, trimsFlying, trimsPending int

	tw *twthread.Engine // the SQPOLL goroutine (tw_thread), nil without
	kt *ktrace.Tracer   // kernel_stages: the job's tracer, nil when off

	// loopConfig holds what the job's options decide, built once by
	// newLoopConfig.
	loopConfig

	// Stop rules.
	stopIssue bool
	fatal     bool
	deadline  int64 // 0 = none
	budget    uint64
	issued    uint64 // bytes issued since stats start
	issuedIOs uint64
	ramping   bool
	// idleAtError: nothing was in flight when the job's error was set
	// (endReap).
	idleAtError bool
	rampEnd     int64

	fillRNG fiorand.RNG
	held    heldIO // serialize_overlap: the I/O waiting for an overlapping one
	// content generates what writes carry (refill_buffers, compression,
	// dedupe), as fio's fill_io_buffer.
	content *iogen.Buffers
	cmdprio iogen.Cmdprio
	// lastWasSync is fio's td->last_was_sync: set when a sync completes,
	// cleared when a read or write completes. While it is clear and the
	// writes issued are a multiple of fsync=, every new I/O is a sync,
	// so at iodepth > 1 several syncs go out per fsync= writes, as in fio.
	lastWasSync bool
	// syncQueuedLast is set when the engine's fio counterpart ran a sync
	// in its queue hook (libaio) and no read or write has been issued
	// since. fio completes such a sync before its next get_io_u, and a
	// reap can only come after that next I/O, so the I/O after an
	// at-queue sync is never a sync, however the completions of the
	// writes in flight fall.
	syncQueuedLast bool
	// verifyEachLoop ends each pass over the files at its end, so that
	// the verify phase runs after every loop, as fio's thread_main.
	verifyEachLoop bool
	// pastRuntime is set when the runtime ended the job's I/O: fio's
	// runtime_exceeded terminates the job, which then has no verify
	// phase (a time_based job never verifies after its writes).
	pastRuntime                bool
	loopNr                     uint64 // the loop (pass over the files) running, from 1
	nextIssue                  [jobfile.NumDirs]int64
	bytesDone, iosDone         [jobfile.NumDirs]uint64
	bw, iops                   sampler
	statsStart, started, ended int64
	rusageStart                unix.Rusage
	// reapStamp is the time stamp of the last harvest; reapFresh says
	// nothing but queue bookkeeping ran since, so the next task-work item
	// takes it as its now instead of reading the clock again.
	reapStamp    int64
	reapFresh    bool
	lastProgress int64

	// Verify (see verify.go).
	flow        *flowState    // flow=: nil when the job takes no part
	flowCount   *atomic.Int64 // I/Os counted in the flow (jobRun.flowIssued)
	flowPassed  bool          // the flow admitted the I/O now waiting for its rate
	parked      []uint32      // slots waiting for the think time
	thinkDone   uint64        // I/Os completed, ramp included (thinktime_blocks_type=complete)
	thinkIssued uint64        // I/Os issued (thinktime_blocks_type=issue)
	lastThink   uint64
	// thinktime_iotime: lastThinkAt is fio's last_thinktime (the job's
	// start, then the start of each pause); thinkBlocksSet is whether
	// thinktime_blocks counts as well.
	lastThinkAt    int64
	thinkBlocksSet bool
	lastDir        jobfile.Dir // direction of the last read or write issued (fio's ddir in handle_thinktime)

	ver        *verify.Verifier // nil without verify=
	auxPath    string           // --aux-path: where verify_dump writes
	checkReads bool             // check every completed read against ver
	wlog       *writeLog        // writes to read back in the verify phase
	verifying  bool             // the verify phase is running
	verified   bool             // the verify phase ran
	vNext      int              // next wlog entry the verify phase reads
	vBatch     int              // verify_backlog reads left in the current batch
	minRate    minRateState     // rate_min, rate_iops_min
	poisson    fiorand.RNG      // rate_process=poisson's gaps
	coeVerify  bool             // continue_on_error covers verify errors
	eagain     uint64           // -EAGAIN completions resubmitted

	passSize  uint64 // bytes in one pass over every region
	passBytes uint64 // bytes issued in the current pass

	sample func(d jobfile.Dir, slat, clat, lat int64) // Options.sample
	logs   *jobLogger                                 // nil without write_*_log

	replay *replay      // read_iolog=: the log replayed in place of gen; nil without
	iolog  *iologWriter // write_iolog=: nil without
}

// pushPending remembers a queued, not yet submitted slot.
func (l *loop) pushPending(s uint32) {
	i := l.pHead + l.pN // pHead and pN are below len(l.pending): no division
	if i >= len(l.pending) {
		i -= len(l.pending)
	}
	l.pending[i] = s
	l.pN++
}

func (l *loop) popPending() uint32 {
	s := l.pending[l.pHead]
	l.pHead++
	if l.pHead == len(l.pending) {
		l.pHead = 0
	}
	l.pN--
	return s
}

// run is the task-work loop: take the next item from the queue (completion
// items first under the priority policy), run it, and harvest new CQEs
// between heavy items as an interrupt would; when nothing is runnable,
// submit what is queued and wait for completions.
func (l *loop) run() {
	now := l.clock()
	l.started = now
	l.statsStart = now
	l.inflightT = now
	l.lastThinkAt = now
	l.initPrios()
	if l.ramping {
		l.rampEnd = now + int64(l.job.RampTime)
	}
	if l.job.Runtime > 0 {
		l.deadline = now + int64(l.job.RampTime) + int64(l.job.Runtime)
	}
	for d := range l.nextIssue {
		l.nextIssue[d] = now
	}
	getrusageThread(&l.rusageStart)
	l.setLogEpoch()
	l.bw.reset(now, &l.bytesDone)
	l.iops.reset(now, &l.iosDone)
	l.setState()
	if l.lat != nil {
		l.lat.Init(now, 0)
	}
	for i := 0; i < l.depth; i++ {
		l.q.AddHeavy(uint32(i), now)
	}
	l.drive()
	l.endReap()
	if l.lat != nil {
		l.res.LatencyDepth = l.lat.QD
	}
	l.ended = l.clock()
}

// drive runs task-work items until no slot has work left or the job
// failed.
func (l *loop) drive() {
	l.reapFresh = false
	for !l.fatal {
		if l.q.Len() == 0 {
			// Nothing to run, so no clock reading: a stamp left from an
			// earlier harvest is stale once the loop waits or thinks.
			l.reapFresh = false
			if l.pN == 0 && l.inflight == 0 {
				if len(l.parked) > 0 {
					l.think()
					continue
				}
				break
			}
			l.wait()
			continue
		}
		var now int64
		if l.reapFresh {
			// A harvest just stamped the time: one clock reading serves
			// both (under the priority policy the item is the first
			// completion of that harvest, so its tw wait is 0).
			now, l.reapFresh = l.reapStamp, false
		} else {
			now = l.clock()
		}
		it, _ := l.q.Next(now)
		if it.Kind == sched.Completion {
			l.complete(it, now)
			continue
		}
		l.issue(it.Slot, now)
		if l.reapAll && l.inflight > 0 {
			l.reap(0)
		}
	}
}

// setState publishes fio's run-state character to the progress view.
func (l *loop) setState() {
	if l.prog == nil {
		return
	}
	var c int32
	switch {
	case l.ramping:
		c = '/'
	case l.hasRead && l.hasWrite:
		c = 'M'
	case l.hasWrite:
		c = 'W'
	case l.hasRead:
		c = 'R'
	default:
		c = 'D' // trim
	}
	if l.job.RW.IsRandom() && c != '/' {
		c += 'a' - 'A'
	}
	l.prog.State.Store(c)
}

// publish copies the counters into the progress view.
func (l *loop) publish() {
	l.snapshot()
	if l.prog == nil {
		return
	}
	for d := 0; d < 3; d++ {
		l.prog.Bytes[d].Store(l.bytesDone[d])
		l.prog.IOs[d].Store(l.iosDone[d])
	}
}

// canIssue applies the stop rules before a new I/O.
func (l *loop) canIssue(now int64) bool {
	if l.stopIssue {
		return false
	}
	if l.stop.Load() || l.kill.Load() {
		l.stopIssue = true
		return false
	}
	if l.ramping && now >= l.rampEnd {
		l.endRamp(now)
	}
	if l.deadline != 0 && now >= l.deadline {
		l.stopIssue = true
		l.pastRuntime = true
		return false
	}
	if !l.ramping {
		if l.numberIOs != 0 && l.issuedIOs >= l.numberIOs {
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
	if l.verifying {
		l.issueVerify(si, now)
		return
	}
	if l.lat != nil && !l.latAdmit(si, now) {
		return
	}
	if l.backlogDue() {
		l.issueBacklog(si, now)
		return
	}
	if l.thinkDue() {
		// fio thinks after every thinktime_blocks I/Os, the last one too.
		l.parked = append(l.parked, si)
		return
	}
	if !l.canIssue(now) {
		return
	}
	if l.flowHeld(si) {
		return
	}
	op := engines.OpRead
	var d jobfile.Dir
	var n uint64
	var file int
	var off uint64
	if !l.loopOpen() {
		l.stopIssue = true
		return
	}
	if l.replay != nil {
		var ok bool
		if op, d, file, off, n, ok = l.replayNext(); !ok {
			l.stopIssue = true
			return
		}
		if op == engines.OpFsync || op == engines.OpFdatasync {
			l.lastWasSync = l.syncAtQueue
		}
		now = l.clock()
		l.replay.lastIssue = now
	} else if sync, ok := l.syncDue(); ok {
		op, d, file = sync, jobfile.DirWrite, l.gen.SyncFile()
		// fio's libaio has completed the sync by now.
		l.lastWasSync = l.syncAtQueue
		l.syncQueuedLast = l.syncAtQueue
	} else {
		l.syncQueuedLast = false
		if l.held.valid {
			d, file, off, n = l.held.dir, l.held.file, l.held.off, l.held.n
			l.held.valid = false
		} else {
			d = l.gen.Dir()
			if l.rated(d) && l.nextIssue[d] > now {
				var wait bool
				if d, wait = l.rateDir(d, now); wait {
					l.rateWait(si, l.nextIssue[d]-now)
					return
				}
			}
			var ok bool
			if d, file, off, n, ok = l.fillIO(); !ok {
				l.stopIssue = true
				return
			}
		}
		if l.serializeOverlap && l.overlapsInFlight(file, off, n) {
			l.held = heldIO{valid: true, dir: d, file: file, off: off, n: n}
			l.overlapWait(si)
			return
		}
		if gap := l.rateGapFor(d, n); gap > 0 {
			l.nextIssue[d] += gap
		}
		switch d {
		case jobfile.DirWrite:
			op = engines.OpWrite
		case jobfile.DirTrim:
			op = engines.OpTrim
		}
	}
	l.flowPassed = false
	buf := l.bufs[si][:n]
	if op == engines.OpWrite {
		switch {
		case l.ver != nil:
			l.ver.Fill(buf, off, l.fillRNG.Next(), uint16(l.issuedIOs))
		case l.refill:
			l.content.Fill(buf, l.minWrite)
		case l.scramble:
			iogen.Scramble(buf, off, now)
		}
	}
	prevOff := s.off
	*s = slot{op: op, dir: d, file: int32(file), off: off, length: uint32(n), start: now, slat: -1, ramp: l.ramping}
	if op == engines.OpFsync || op == engines.OpFdatasync {
		// fio's sync io_u keeps the offset of its last I/O, which
		// write_iolog shows; the request itself has none (libaio's
		// IOCB_CMD_FSYNC refuses one).
		s.off = prevOff
	}
	l.req = engines.Request{Op: op, File: file, Offset: off, Buf: buf}
	if op == engines.OpRead || op == engines.OpWrite {
		s.ioprio, s.prioIdx = l.cmdprio.Pick(d, n)
		l.req.IOPrio = s.ioprio
		l.lastDir = d
	}
	l.thinkIssued++
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
		if l.passBytes >= l.passSize {
			l.passBytes = 0
			l.dropPageCache()
		}
		l.passBytes += n
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

// rateWait puts the slot back and sleeps towards the rate_iops time. In
// a plain run it first reaps everything in flight, as fio's io_u_quiesce
// does before it sleeps (commit, then one reap after another); under
// tw_reap=all it harvests what completed meanwhile. Completions reaped run
// before the sleep.
func (l *loop) rateWait(si uint32, wait int64) {
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
// (FIO_Q_BUSY) makes the loop commit and wait as fio's do_io does:
// io_uring and libaio trim only with nothing queued, and null queues
// nothing while completions are pending.
func (l *loop) queue(si uint32) {
	trimNow := l.req.Op == engines.OpTrim && l.trimAtQueue
	if !l.syncIO && !l.reapAll && (trimNow && l.pN > l.trimsPending || l.getEventsAll && l.inflight > 0) {
		l.busy()
		if l.fatal {
			return
		}
	}
	if trimNow {
		// io_uring and libaio trim inside Queue, as fio's engines do in
		// their queue hook: the trim is issued now, not at Submit.
		l.slots[si].issue = l.clock()
	}
	if err := l.eng.Queue(si, &l.req); err != nil {
		l.fail(errnoOf(err, unix.EIO), "io_u queue", err)
		return
	}
	l.slots[si].flight = true
	if l.syncIO {
		l.pushPending(si)
		if l.pN >= l.batchSubmit {
			l.submit()
		}
		return
	}
	if trimNow {
		// fio's hook completes the trim at once: one submit, one
		// complete, and the depth bucket of cur_depth with it, which it
		// then leaves.
		l.res.IODepth[depthBucket(l.curDepth()+1)]++
		l.res.SubmitCalls++
		l.res.Submit[batchBucket(1)]++
		l.res.CompleteCalls++
		l.res.Complete[batchBucket(1)]++
		l.trimsFlying++
		l.trimsPending++
		l.pushPending(si)
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
// engine submits what is pending.
func (l *loop) commitQueued() {
	d := l.curDepth()
	if d == 0 || l.ioQueued == 0 {
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
	if l.lat != nil {
		return l.lat.QD
	}
	return l.depth
}

// submit hands every queued request to the engine and stamps them: one
// issue time per submit batch, as fio's commit does.
func (l *loop) submit() {
	var syncT int64 // the issue stamp: before Submit for sync engines, after it for the others
	if l.syncIO {
		syncT = l.clock()
		for i := 0; i < l.pN; i++ {
			l.slots[l.pending[(l.pHead+i)%len(l.pending)]].issue = syncT
		}
	}
	if l.hang != nil {
		// Stamped before the call: a submit may itself sleep in the
		// I/O (FUSE issued inline, psync).
		t := l.clock()
		for i := 0; i < l.pN; i++ {
			l.hang.issue[l.pending[(l.pHead+i)%len(l.pending)]].Store(t)
		}
	}
	l.callBegin()
	n, err := l.eng.Submit()
	l.callEnd()
	if l.hang != nil {
		// Only what the engine accepted is in flight: a request it
		// refused (a full ring, an error) stays pending, and the next
		// submit stamps it again.
		from := n
		if err != nil {
			from = 0
		}
		for i := max(from, 0); i < l.pN; i++ {
			l.hang.issue[l.pending[(l.pHead+i)%len(l.pending)]].Store(0)
		}
	}
	if err != nil {
		l.fail(errnoOf(err, unix.EIO), "io_uring_enter submit", err)
		return
	}
	if n == 0 {
		if l.syncIO && !l.noMarks() || !l.syncIO && l.markSubmit {
			l.res.SubmitCalls++
			l.res.Submit[0]++
		}
		if l.inflight == 0 {
			l.fail(int(unix.EBUSY), "submit", errors.New("engine accepted no request with none in flight"))
			return
		}
		l.reap(1)
		return
	}
	acct := !l.ramping
	if l.syncIO {
		// Stamped before Submit; no slat, as fio's sync engines.
		for i := 0; i < n; i++ {
			l.popPending()
		}
	} else {
		syncT = l.stampIssued(n, acct)
	}
	l.inflightAt(syncT)
	l.inflight += n
	switch {
	case !l.syncIO:
		// The engine's commit marks what it submitted: the trims were
		// counted at queue.
		trims := min(l.trimsPending, n)
		l.trimsPending -= trims
		if k := n - trims; k > 0 && l.markSubmit {
			l.res.SubmitCalls++
			l.res.Submit[batchBucket(k)]++
		}
	case acct:
		if !l.noMarks() {
			l.res.SubmitCalls++
			l.res.Submit[batchBucket(n)]++
		}
		l.res.IODepth[depthBucket(l.inflight)] += uint64(n)
	}
}

// stampIssued pops the n submitted slots off the pending ring and stamps
// them with one issue time, which it returns, accounting slat for first
// submissions of reads and writes when acct (not ramping) and slat is on.
func (l *loop) stampIssued(n int, acct bool) int64 {
	t := l.clock()
	slat := acct && !l.noSlat
	for i := 0; i < n; i++ {
		si := l.popPending()
		s := &l.slots[si]
		if s.op != engines.OpTrim || !l.trimAtQueue {
			s.issue = t // a trim was issued at Queue
		}
		if l.hang != nil {
			l.hang.issue[si].Store(t)
		}
		if slat && !s.ramp && s.done == 0 && s.retries == 0 && s.op <= engines.OpWrite {
			v := t - s.start
			s.slat = v
			ds := &l.res.Dirs[s.dir]
			ds.Slat.Add(uint64(v))
			ds.SlatHist.Add(uint64(v))
			if l.logs != nil {
				l.logs.issued(uint64((t-l.statsStart)/1000000), s.dir, uint64(v), uint64(s.length), s.off)
			}
		}
	}
	return t
}

// wait submits what is queued and blocks for completions, as fio's
// wait_for_completions does once no slot is free: min(
// iodepth_batch_complete_min, in flight) of them (at least 1), and, when
// the queue was full, it keeps reaping until no more than iodepth_low
// remain. In a plain run, once the job issues no more, it reaps everything
// in flight in one call, as fio's do_io ends with io_u_queued_complete(td,
// cur_depth).
func (l *loop) wait() {
	if l.pN > 0 {
		l.submit()
		if l.fatal {
			return
		}
	}
	if l.inflight == 0 {
		return
	}
	if l.stopIssue && !l.reapAll {
		if l.hang == nil || !l.hangCheck() {
			l.reap(l.inflight)
		}
		return
	}
	l.waitReap(l.curDepth() >= l.depthLimit())
}

// waitReap is the reap loop of fio's wait_for_completions, full saying
// whether the queue was full; what is queued is submitted first, as fio's
// getevents commits.
func (l *loop) waitReap(full bool) {
	if l.pN > 0 {
		l.submit()
	}
	for !l.fatal && l.inflight > 0 {
		if l.hang != nil && l.hangCheck() {
			return
		}
		l.reap(max(min(l.completeMin, l.inflight), 1))
		if !full || l.inflight <= l.low {
			return
		}
	}
}

// inflightAt adds the I/Os in flight since the last change of their
// number to the job's in-flight area, up to t, the time of the change
// about to be made.
func (l *loop) inflightAt(t int64) {
	if d := t - l.inflightT; d > 0 {
		l.res.InFlightArea += uint64(l.inflight) * uint64(d)
		l.res.InFlightTime += uint64(d)
	}
	l.inflightT = t
}

// reap takes CQEs from the engine, with one time stamp per call and one
// completion item per CQE, spliced onto the task-work queue. waitFor (0
// never blocks) is how many a blocking wait waits for; fio's batch
// options set it (see wait). Under tw_reap=all a reap is a harvest (the
// "irq"): every CQE the ring holds. Otherwise it is fio's
// td_io_getevents: at most iodepth_batch_complete_max and at least
// waitFor, so that the CQEs left wait in the ring as they do under fio,
// and count as in flight. The complete map counts each reap that took a
// completion, with how many it took (the trims done at queue left out).
func (l *loop) reap(waitFor int) {
	room := min(l.inflight, len(l.cqes))
	switch {
	case l.reapAll:
	case l.getEventsAll && waitFor == 0:
		return
	case !l.getEventsAll:
		room = min(room, max(l.completeMax, waitFor))
	}
	if room == 0 {
		return
	}
	waitFor = min(waitFor, room)
	var n int
	var err error
	switch {
	case waitFor == 0 || l.hang == nil:
		n, err = l.eng.Reap(l.cqes[:room], waitFor)
	default:
		// io_timeout: never sleep long in one call (see hung.go).
		l.callBegin()
		if l.timed != nil {
			n, err = l.timed.ReapTimeout(l.cqes[:room], waitFor, hangPoll)
		} else {
			n, err = l.eng.Reap(l.cqes[:room], waitFor)
		}
		l.callEnd()
	}
	if err != nil {
		l.fail(errnoOf(err, unix.EIO), "io_uring_enter getevents", err)
		return
	}
	if n == 0 && waitFor == 0 {
		return
	}
	t := l.clock()
	l.reapStamp, l.reapFresh = t, true
	if n == 0 && l.hang != nil {
		return // a timed reap that found nothing
	}
	l.inflightAt(t)
	trims := 0 // trims done at queue
	for i := 0; i < n; i++ {
		c := l.cqes[i]
		if l.hang != nil {
			l.hang.issue[c.Slot].Store(0)
		}
		if l.trimAtQueue && l.slots[c.Slot].op == engines.OpTrim {
			trims++ // fio's accounting completed it at queue time
		}
		l.slots[c.Slot].res = c.Res
		l.slots[c.Slot].flight = false
		l.q.Add(&l.batch, c.Slot, t)
	}
	l.q.AddBatch(&l.batch)
	l.inflight -= n
	l.trimsFlying -= trims
	switch {
	case !l.syncIO:
		if k := n - trims; k > 0 {
			l.res.CompleteCalls++
			l.res.Complete[batchBucket(k)]++
		}
	case !l.ramping && !l.noMarks():
		l.res.CompleteCalls++
		l.res.Complete[batchBucket(n)]++
	}
	if l.sampling(t) {
		l.bw.add(l.res, t, l.statsStart, &l.bytesDone)
		l.iops.add(l.res, t, l.statsStart, &l.iosDone)
	}
	if t-l.lastProgress >= l.progressEvery {
		l.lastProgress = t
		l.publish()
		l.checkMinRate(t)
	}
}

// sampling reports whether the bw and iops windows may take a sample at t:
// only while the job still issues. fio takes them from its helper thread,
// which finds a job that has reached its runtime (or its size, or a stop)
// no longer running, so the window that would close during the final
// drain gives no sample there: a 1 s job with 500 ms windows has one
// sample, not two.
func (l *loop) sampling(t int64) bool {
	return !l.stopIssue && (l.deadline == 0 || t < l.deadline)
}

// complete is the completion item: stamp, account latency and bytes,
// requeue the remainder of a short I/O or record an error, and free the
// slot by queueing its next heavy item.
func (l *loop) complete(it sched.Item, now int64) {
	si := it.Slot
	s := &l.slots[si]
	// fio accounts a completion once the ramp is over, whenever it was
	// issued: the I/O in flight at the end of ramp_time adds its bytes
	// and latencies but not total_ios, which it was counted in before
	// the reset. Bytes count during the ramp too, and are reset with it.
	acct := !l.ramping
	if acct {
		w := uint64(it.Wait)
		if l.tw != nil {
			w += uint64(l.tw.Wait(si))
		}
		l.res.TWWait.Add(w)
		l.res.TWWaitHist.Add(w)
	}
	res := s.res
	switch {
	case res == -int32(unix.EAGAIN) && (l.stop.Load() || l.kill.Load()):
		// The run is stopping (a signal, or another job's exitall): an
		// I/O the engine gave back unfinished ends here, neither retried
		// nor an error, as fio's terminate interrupts a blocked engine.
		// Retrying would keep a receiver that waits for data (net, UDP)
		// alive for up to maxEAGAINRetries receive timeouts after ^C.
		l.stopIssue = true
		if !s.ramp && !l.ramping && l.res.Dirs[s.dir].TotalIOs > 0 && s.done == 0 {
			l.res.Dirs[s.dir].TotalIOs--
		}
		l.q.AddHeavy(si, now)
		return
	case res == -int32(unix.EAGAIN) && s.retries < maxEAGAINRetries:
		// Resubmit what is left, as for a short I/O.
		s.retries++
		l.eagain++
		s.requeue = true
		l.q.AddHeavy(si, now)
		return
	case res < 0:
		if f, ok := l.eng.(engines.Failer); ok {
			if fn, err := f.Failure(); err != nil {
				// The engine says what failed (net's connect, with host
				// and port): the job fails there, as fio's does when it
				// opens the job's file.
				l.fail(int(-res), fn, err)
				return
			}
		}
		fn := "io_u error"
		if s.op == engines.OpTrim {
			fn = "td_io_queue" // fio's engines all trim in their queue hook
		}
		l.ioError(s, int(-res), fn)
	case s.op == engines.OpFsync || s.op == engines.OpFdatasync:
		l.lastWasSync = true
		if acct {
			v := uint64(now - s.start)
			l.res.SyncIOs++
			l.res.SyncLat.Add(v)
			l.res.SyncHist.Add(v)
		}
	default:
		l.lastWasSync = false
		got := uint32(res)
		rest := s.length - s.done
		if got > rest {
			got = rest
		}
		ds := &l.res.Dirs[s.dir]
		if got == 0 && l.ender != nil && l.ender.Ended() {
			// The engine ended the job (a UDP receiver got fio's close
			// message): this request moved nothing and is not counted,
			// and nothing more is issued.
			l.stopIssue = true
			if !s.ramp && !l.ramping && ds.TotalIOs > 0 {
				ds.TotalIOs--
			}
			l.q.AddHeavy(si, now)
			return
		}
		if got == 0 && rest > 0 && s.off < l.files[s.file].region.End {
			// Nothing moved short of the end of the target: it shrank or
			// went away. fio fails such an I/O with EIO ("full resid").
			l.ioError(s, int(unix.EIO), "full resid")
			break
		}
		if !l.noIO {
			ds.IOBytes += uint64(got)
			l.bytesDone[s.dir] += uint64(got)
		}
		if got < rest && got > 0 {
			s.done += got
			s.off += uint64(got)
			if acct {
				ds.ShortIOs++
			}
			if s.off < l.files[s.file].region.End {
				s.requeue = true
				l.q.AddHeavy(si, now)
				return
			}
		}
		l.thinkDone++
		if l.lat != nil {
			l.latCompleted(s, now-s.start, now)
		}
		if acct && l.res.Blocks != nil && s.dir == jobfile.DirTrim {
			l.res.Blocks.Trimmed(l.blockIndex(s))
		}
		if acct {
			l.iosDone[s.dir]++
			clat := uint64(now - s.issue)
			lat := uint64(now - s.start)
			if !l.noClat {
				ds.Clat.Add(clat)
				ds.ClatHist.Add(clat)
			}
			if !l.noLat {
				ds.Lat.Add(lat)
				ds.LatHist.Add(lat)
				// fio's account_io_completion checks max_latency
				// with the total latency, once it is logged.
				if m := l.job.MaxLatency[s.dir]; m > 0 && int64(lat) > int64(m) {
					l.latFatal(s, int64(lat), int64(m))
				}
			}
			if int(s.prioIdx) < len(ds.Prios) {
				// fio's add_stat_prio_sample: the clat, or with
				// lat_percentiles=1 the total latency.
				switch p := &ds.Prios[s.prioIdx]; {
				case l.job.LatPercentiles && !l.noLat:
					p.Lat.Add(lat)
					p.Hist.Add(lat)
				case !l.job.LatPercentiles && !l.noClat:
					p.Lat.Add(clat)
					p.Hist.Add(clat)
				}
			}
			markLatency(l.res, clat)
			if l.kt != nil {
				l.kt.Reap(uint64(si), s.start, now)
			}
			if l.sample != nil {
				l.sample(s.dir, s.slat, int64(clat), int64(lat))
			}
			if l.logs != nil {
				l.logs.completed(ds, uint64((now-l.statsStart)/1000000), s.dir, clat, lat, uint64(s.length), s.off-uint64(s.done))
			}
		}
		if s.done+got == s.length {
			l.completeData(s, si)
		}
	}
	if !l.fatal {
		l.q.AddHeavy(si, now)
	}
}

// slotPath is the path of the file the I/O in slot s is on, for messages;
// empty when the slot holds no file of the job.
func (l *loop) slotPath(s *slot) string {
	if int(s.file) < len(l.files) {
		return l.files[s.file].path
	}
	return ""
}

// ioError handles a failed I/O: errors continue_on_error allows (EIO and
// EILSEQ, fio's default ignore_error) are counted; any other ends the job
// with fn as the failing function of its error text.
func (l *loop) ioError(s *slot, errno int, fn string) {
	e := unix.Errno(errno)
	// fio counts a trim's error as a write's (td_error_type).
	allowed := (s.dir == jobfile.DirRead && l.coeRead) || (s.dir != jobfile.DirRead && l.coeWrite)
	if l.job.ErrorDump && l.warn != nil {
		l.dumpError(s, e)
	}
	if l.res.Blocks != nil && s.dir != jobfile.DirRead {
		l.res.Blocks.Failed(l.blockIndex(s), s.dir == jobfile.DirWrite)
	}
	if allowed && nonFatal(l.job, s.dir, e) {
		l.res.TotalErr++
		if l.res.FirstErr == 0 {
			l.res.FirstErr = errno
		}
		return
	}
	if l.fillDevice && (e == unix.ENOSPC || e == unix.EDQUOT) {
		// fill_device: the device is full, as asked. fio logs each such
		// I/O, clears the error and ends the job.
		if l.warn != nil {
			fmt.Fprintf(l.warn, "gofio: io_u error on file %s: %s: %s offset=%d, buflen=%d\n",
				l.slotPath(s), strerror(e), s.dir, s.off, s.length-s.done)
		}
		l.stopIssue = true
		return
	}
	if l.warn != nil && l.res.Error == 0 {
		name := l.slotPath(s)
		fmt.Fprintf(l.warn, "gofio: io_u error on file %s: %s: %s offset=%d, buflen=%d\n",
			name, strerror(e), s.dir, s.off, s.length-s.done)
	}
	l.setError(errno, fn, e)
	l.stopIssue = true
}

func (l *loop) setError(errno int, fn string, err error) {
	if l.res.Error != 0 {
		return
	}
	l.res.Error = errno
	l.res.ErrorText = fmt.Sprintf("func=%s, error=%s", fn, errText(errno, err))
	l.idleAtError = l.inflight == 0
	if l.prog != nil {
		l.prog.State.Store('X')
	}
}

// fail ends the job on an engine-level error; in-flight I/O is abandoned
// to the engine's Close.
func (l *loop) fail(errno int, fn string, err error) {
	if l.warn != nil && l.res.Error == 0 {
		fmt.Fprintf(l.warn, "gofio: %s: %s: %v\n", l.job.Name, fn, err)
	}
	l.setError(errno, fn, err)
	l.fatal = true
	l.stopIssue = true
}

// errText returns the error= part of a job's error text: the C library's
// text of the errno err carries (fio prints strerror), else err's own
// text, else that of errno.
func errText(errno int, err error) string {
	var e unix.Errno
	if errors.As(err, &e) {
		return strerror(e)
	}
	if err != nil {
		return err.Error()
	}
	return strerror(unix.Errno(errno))
}

func errnoOf(err error, def unix.Errno) int {
	var e unix.Errno
	if errors.As(err, &e) {
		return int(e)
	}
	return int(def)
}

// initPrios sets up the per-priority stats of the directions that use
// cmdprio, as fio's init_ts_clat_prio.
func (l *loop) initPrios() {
	for d, prios := range l.cmdprio.Prios {
		if len(prios) == 0 {
			continue
		}
		ps := make([]report.PrioStat, len(prios))
		for i, p := range prios {
			ps[i].IOPrio = p
		}
		l.res.Dirs[d].Prios = ps
	}
}

// endRamp resets every statistic when ramp_time ends, as fio's
// reset_all_stats does; I/O still in flight from the ramp adds its bytes
// and latencies when it completes, but not total_ios.
func (l *loop) endRamp(now int64) {
	l.ramping = false
	l.resetStats(now)
	if l.lat != nil {
		l.lat.Reset(now, l.latIOs)
	}
	l.setState()
}

// resetStats is fio's reset_all_stats: every statistic starts again at
// now (at the end of ramp_time, and when latency_target's final window
// starts).
func (l *loop) resetStats(now int64) {
	l.gen.EndRamp()
	l.res.ResetIOStats()
	if l.kt != nil {
		l.kt.Reset(now)
	}
	l.initPrios()
	l.bytesDone, l.iosDone = [jobfile.NumDirs]uint64{}, [jobfile.NumDirs]uint64{}
	l.issuedIOs = 0
	l.statsStart = now
	l.inflightT = now
	l.bw.reset(now, &l.bytesDone)
	l.iops.reset(now, &l.iosDone)
	getrusageThread(&l.rusageStart)
	l.setLogEpoch()
}

// setLogEpoch records, with log_unix_epoch or log_alternate_epoch, the
// milliseconds of log_alternate_epoch_clock_id's clock now, where the
// logs' times start, as fio's set_epoch_time at the job's start and at
// reset_all_stats. A clock the kernel refuses leaves the epoch at 0.
func (l *loop) setLogEpoch() {
	if l.res.Logs == nil || !l.job.LogEpoch() {
		return
	}
	var ts unix.Timespec
	if unix.ClockGettime(int32(l.job.LogEpochClock), &ts) == nil {
		l.res.Logs.EpochMsec = uint64(ts.Sec)*1000 + uint64(ts.Nsec)/1000000
	}
}

// noMarks reports whether the submit and complete maps stay empty: fio
// marks them at queue time only for synchronous engines without a commit
// hook (psync), not for null at iodepth=1.
func (l *loop) noMarks() bool { return l.syncIO && l.commit }

// syncDue says whether the next I/O is an fsync or fdatasync, by fio's
// get_rw_ddir: a writing job whose writes issued are a non-zero multiple
// of fsync= (then fdatasync=) syncs, unless the last completion was a
// sync.
func (l *loop) syncDue() (engines.Op, bool) {
	if l.lastWasSync || l.syncQueuedLast || !l.hasWrite {
		return 0, false
	}
	w := l.gen.WritesIssued()
	switch {
	case w == 0:
	case l.fsyncEvery > 0 && w%uint64(l.fsyncEvery) == 0:
		return engines.OpFsync, true
	case l.fdatasyncEvery > 0 && w%uint64(l.fdatasyncEvery) == 0:
		return engines.OpFdatasync, true
	}
	return 0, false
}

// loopOpen applies fio's do_io stop rule before each I/O: the job issues
// no more once it has issued size= (or io_size=) times loops= bytes;
// the last I/O may run past it.
func (l *loop) loopOpen() bool {
	return l.timeBasedLoop() || l.budget == 0 || l.issued < l.budget || l.replay != nil
}

// fillIO chooses the next read or write; when every file is done for
// this loop, the next loop starts (a time_based job loops until its
// runtime ends), as fio's thread_main does.
func (l *loop) fillIO() (d jobfile.Dir, file int, off, n uint64, ok bool) {
	if d, file, off, n, ok = l.gen.Fill(); ok || (!l.timeBasedLoop() && (l.loopNr >= l.loops || l.verifyEachLoop)) {
		return d, file, off, n, ok
	}
	if l.newLoop(); l.stopIssue {
		return d, file, off, n, false
	}
	return l.gen.Fill()
}

func (l *loop) timeBasedLoop() bool { return l.job.TimeBased }

// nextPass runs the next loop over the files after a verify phase
// (verifyEachLoop): the write log starts empty and reads are data again.
func (l *loop) nextPass() {
	w := l.wlog
	w.ents, w.bytes, w.checked = w.ents[:0], 0, 0
	l.checkReads = !l.hasWrite
	l.stopIssue = false
	l.newLoop()
	l.setState()
	now := l.clock()
	for i := 0; i < l.depth; i++ {
		l.q.AddHeavy(uint32(i), now)
	}
	l.drive()
	l.endReap()
	l.ended = l.clock()
}

// endReap is fio's cleanup_pending_aio when do_io ends on an error with
// nothing in flight (always, for a synchronous engine): its reap with no
// minimum finds nothing, and td_io_getevents marks the complete map with
// that 0 all the same. With I/O in flight the drain's reaps are counted
// as they happen.
func (l *loop) endReap() {
	if l.res.Error != 0 && !l.ramping && l.idleAtError {
		l.res.CompleteCalls++
		l.res.Complete[batchBucket(0)]++
	}
}

// newLoop starts the next loop over the files.
func (l *loop) newLoop() {
	l.loopNr++
	l.lastWasSync = false
	if l.job.UnlinkEachLoop && !l.job.TimeBased {
		l.unlinkEachLoop()
	}
	l.gen.NewPass()
	l.content.NewPass()
}

func getrusageThread(r *unix.Rusage) {
	_ = unix.Getrusage(unix.RUSAGE_THREAD, r)
}
