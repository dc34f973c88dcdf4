package run

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/ivset"
	"github.com/gofio/gofio/internal/verify"
	"github.com/gofio/gofio/jobfile"
)

// Verify, as gofio runs it:
//
//   - A job with verify= that writes fills every write buffer through its
//     verify.Verifier (fio's header, then the checksum of the rest of the
//     block) instead of refill_buffers, and logs each write that completed
//     in full.
//   - With do_verify=1 (the default), once the write phase has drained
//     (and end_fsync has run), the verify phase reads every logged block
//     back through the same engine and slots and checks it. Its reads are
//     accounted as read statistics, as fio's are.
//   - A job that only reads (rw=read or randread) with verify= checks
//     every block it reads, so a file written earlier by a verify job is
//     checked by a read-only job, as with fio.
//   - Mixed jobs (rw=rw, randrw) fill their writes and verify them after
//     the mixed phase; their reads during the mixed phase are not checked.
//   - The log is fio 3.33's io_hist (writeLog): a random job with a random
//     map reads its blocks back in write order; the others (sequential,
//     norandommap, random_generator=lfsr) lowest offset first, and there a
//     write takes every older block it overlaps out of the log, whatever
//     their sizes, when it is issued, as fio logs it then: a block whose
//     write completes after a later overlapping write was issued never
//     joins the log. A write joins the log only when it completes, so no
//     read or trim of it is issued before. verify_backlog reads the first
//     block of the log when the blocks in it (the writes in flight
//     counted) reach a multiple of verify_backlog after anything but a
//     verify read (fio's check_get_verify).
//   - A log holds one pass over the files: loops= verify after each pass
//     (fio's thread_main), and so does io_size= beyond size=, whose verify
//     reads count towards it as in fio's keep_running (loop.verifyPasses);
//     a time_based job's log starts anew once it holds a pass's bytes. A
//     norandommap writer's pass ends only at its size= (or io_size=): on
//     a synchronous engine after all its loops=, as fio's do_io counts no
//     bytes issued for it, and on an engine that queues once it queued
//     fio's total_bytes of writes and verify_backlog reads
//     (writeLog.passCap). Overlapping writes in flight at the same time
//     may tear, as in fio.
//   - A mismatch names the file, offset, expected and found values (on
//     Warn, and as the job's error, EILSEQ like fio's), and ends the job
//     unless continue_on_error is verify or all, which counts it instead.

// written is one logged write.
type written struct {
	off  uint64
	n    uint32
	file int32
	// seq is the write's place in the order the job issued its writes
	// times seqStep; the bits below are its marks (seqTrimmed and the
	// others).
	seq uint64
}

// The bits of written.seq below the write's place in the log: trim
// verify marks a block on the trim list or trimmed (trimverify.go), and
// a block that left fio's log (read back by verify_backlog, overlapped by
// a later write, or trimmed with trim_verify_zero=0) is out.
const (
	seqTrimmed = 1 << iota // trimmed
	seqListed              // on the trim list
	seqOut                 // out of the log
	seqStep                // one step of the write's place
)

// writeLog records the blocks a verifying job wrote in its last pass, as
// fio 3.33's io_hist: for a random job with a random map a list in write
// order; for the others (sequential, norandommap, random_generator=lfsr)
// a set in file and offset order where a write takes every older block it
// overlaps out (iolog.c's log_io_piece). verify_backlog reads the first
// block (the oldest, or the lowest), and so does the verify phase, in
// that order.
type writeLog struct {
	ents  []written
	bytes uint64 // bytes logged in this pass
	pass  uint64 // bytes in one pass: the sum of the region sizes
	seq   uint64 // the next write's place (written.seq)
	// rollover says the log starts anew once it holds a pass's bytes: a
	// time_based job's log keeps its last pass only. The others start
	// anew with each verified pass of the job over its files (nextPass).
	rollover bool
	// passCap, when not 0, ends the pass once the job queued that many
	// bytes of writes and verify_backlog reads in it: fio's do_io stops
	// at its total_bytes (size=, or io_size= for a norandommap random
	// writer, plus size= for verify_backlog, plus the bytes trimwrite
	// trims) counting the I/Os an engine queued, so an asynchronous
	// engine verifies after each of a norandommap job's loops=, and ends
	// a norandommap io_size= job with verify_backlog there. issuedNow
	// counts those bytes.
	passCap, issuedNow uint64
	// readBack counts the bytes of the verify reads issued, which count
	// towards io_size= (loop.ioSizeLeft).
	readBack uint64
	// head is, for the list, the first entry that may still be in it.
	head int
	// live is fio's io_hist_len less the writes in flight: the entries
	// in the log.
	live int
	// inFlight counts the writes issued and not yet logged, which fio's
	// io_hist_len counts (it logs a write when issuing it).
	inFlight int
	// sorts says fio keeps the log in offset order. While the writes of
	// the pass come in ascending order, ents[head:] is that order and
	// last is the latest entry (-1 before the first); at the first write
	// out of order the log's blocks move into tree, which keeps them from
	// then on (nil before; spare keeps its memory for the next pass).
	sorts       bool
	last        int
	tree, spare *ivset.Set
	evicted     []int32
	// flying holds, per slot, the write in flight in it, for a sorted
	// log or verify_backlog (nil for others): fio logs a write when it
	// issues it, so a write issued later takes a block out of the log
	// even when it is in flight as the block completes, and
	// verify_backlog waits while the write of the log's first block, as
	// fio orders it, is in flight.
	flying []flyingWrite
	// lastRead says the last I/O to complete was a verify_backlog read
	// (fio's last_ddir == DDIR_READ), which holds off a new batch of
	// verify_backlog reads or of trims.
	lastRead bool
	// finished says finish turned ents into the verify phase's reads.
	finished bool
	// trim is the job's trim verify state (trimverify.go); nil without.
	trim *trimList
}

// flyingWrite is a write in flight in a slot: its place (written.seq),
// file, offset and length.
type flyingWrite struct {
	seq  uint64
	off  uint64
	n    uint32
	file int32
	busy bool
	// overtaken says a write issued later overlaps it.
	overtaken bool
}

// newWriteLog returns the log of a job writing regions with blocks of at
// least minBS; sorted says fio keeps it in offset order.
func newWriteLog(regions []iogen.Region, minBS uint64, sorted bool) *writeLog {
	w := &writeLog{}
	for _, r := range regions {
		w.pass += r.Size
	}
	n := uint64(1024)
	if minBS > 0 && w.pass/minBS+1 < 1<<16 {
		n = w.pass/minBS + 1
	}
	w.ents = make([]written, 0, n)
	w.sorts, w.last = sorted, -1
	return w
}

// sortedLog says whether fio 3.33 sorts job j's verify log: all but the
// random jobs with a random map (iolog.c's file_randommap: norandommap
// and random_generator=lfsr have none).
func sortedLog(j *jobfile.Job) bool {
	return !j.RW.IsRandom() || j.NoRandomMap || j.RandomGenerator == "lfsr"
}

// add logs a completed write that the log did not see issued (verify_only's
// replay).
func (w *writeLog) add(file int32, off uint64, n uint32) {
	seq := w.seq
	w.seq += seqStep
	w.addAt(file, off, n, seq, false)
}

// completed logs the write that completed in slot si: in a sorted log it
// is out at once when a write issued after it overlaps it, logged or in
// flight, as fio's log holds the one issued last.
func (w *writeLog) completed(si uint32, file int32, off uint64, n uint32) {
	if w.flying == nil || !w.flying[si].busy {
		w.add(file, off, n)
		w.logged(si, false)
		return
	}
	f := &w.flying[si]
	f.busy = false
	w.addAt(file, off, n, f.seq, f.overtaken)
	w.logged(si, f.overtaken)
}

// addAt logs a completed write issued in place seq (out of the log when
// beaten), starting a new pass when this one is full.
func (w *writeLog) addAt(file int32, off uint64, n uint32, seq uint64, beaten bool) {
	if w.rollover && w.pass > 0 && w.bytes >= w.pass && (w.trim == nil || !w.trim.extending) {
		w.reset(false)
	}
	i := len(w.ents)
	w.ents = append(w.ents, written{off: off, n: n, file: file, seq: seq})
	w.bytes += uint64(n)
	if beaten {
		w.ents[i].seq |= seqOut
		return
	}
	w.live++
	if w.sorts {
		w.addSorted(i)
	}
}

// addSorted puts entry i into a sorted log: it takes the blocks it
// overlaps out, or is out itself when one of them was issued after it.
func (w *writeLog) addSorted(i int) {
	e := &w.ents[i]
	inOrder, beaten := w.evict(e.file, e.off, e.n, i, place(e.seq))
	switch {
	case beaten:
		w.takeOut(i)
	case inOrder:
		w.last = i
	default:
		w.tree.Insert(e.file, e.off, e.n, int32(i), nil)
	}
}

// place returns the place bits of a written.seq.
func place(seq uint64) uint64 { return seq &^ (seqStep - 1) }

// evict takes the blocks of a sorted log's first upto entries that the n
// bytes at off in file overlap out of it, as fio's log_io_piece does
// when it logs a write at issue, but those issued after place seq: when
// there are such, it reports beaten. inOrder says the bytes come after
// every block of the log still in order (no tree); otherwise the log has
// its tree.
func (w *writeLog) evict(file int32, off uint64, n uint32, upto int, seq uint64) (inOrder, beaten bool) {
	if w.tree == nil {
		if w.last < 0 {
			return true, false
		}
		p := &w.ents[w.last]
		if p.file < file || p.file == file && p.off < off {
			// Every block before p ends before p starts.
			if p.seq&seqOut == 0 && p.file == file && p.off+uint64(p.n) > off {
				if place(p.seq) > seq {
					return true, true
				}
				w.takeOut(w.last)
			}
			return true, false
		}
		w.tree = w.spare
		if w.tree == nil {
			w.tree = &ivset.Set{}
		}
		for k := w.head; k < upto; k++ {
			if b := &w.ents[k]; b.seq&seqOut == 0 {
				w.tree.Insert(b.file, b.off, b.n, int32(k), nil)
			}
		}
	}
	w.evicted = w.tree.RemoveOverlaps(file, off, n, w.evicted[:0])
	for _, k := range w.evicted {
		if place(w.ents[k].seq) > seq {
			beaten = true
		}
	}
	for _, k := range w.evicted {
		if b := &w.ents[k]; beaten && place(b.seq) > seq {
			w.tree.Insert(b.file, b.off, b.n, k, nil) // it stays
			continue
		}
		w.takeOut(int(k))
	}
	return false, beaten
}

// takeOut marks entry i out of the log and off the trim list (fio's
// remove_trim_entry); a sorted log's caller took it out of the set.
func (w *writeLog) takeOut(i int) {
	e := &w.ents[i]
	e.seq |= seqOut
	w.live--
	if e.seq&seqListed != 0 {
		e.seq &^= seqListed
		w.trim.listed--
	}
}

// popFirst takes the first block out of the log, as fio's
// get_next_verify: the lowest of a sorted log, the oldest of a list.
func (w *writeLog) popFirst() (written, bool) {
	var i int
	if w.tree != nil {
		k, ok := w.tree.PopFirst()
		if !ok {
			return written{}, false
		}
		i = int(k)
	} else {
		for w.head < len(w.ents) && w.ents[w.head].seq&seqOut != 0 {
			w.head++
		}
		if w.head == len(w.ents) {
			return written{}, false
		}
		i = w.head
	}
	w.takeOut(i)
	return w.ents[i], true
}

// reset empties the log for a new pass; reseed says the pass is a new
// loop (loops=), which reseeds trim verify's generator.
func (w *writeLog) reset(reseed bool) {
	w.ents, w.bytes, w.head, w.live, w.finished, w.lastRead = w.ents[:0], 0, 0, 0, false, false
	w.issuedNow = 0
	w.dropTree()
	if w.trim != nil {
		w.trim.newPass(reseed)
	}
}

// finish turns the log into the verify phase's reads: the blocks still
// in it, lowest first in a sorted log, in write order in a list.
func (w *writeLog) finish() {
	if w.finished {
		return
	}
	w.finished = true
	if w.tree == nil {
		w.ents = slices.DeleteFunc(w.ents[w.head:], func(e written) bool { return e.seq&seqOut != 0 })
		w.head, w.last = 0, -1
		return
	}
	w.evicted = w.tree.AppendIDs(w.evicted[:0])
	out := make([]written, len(w.evicted))
	for i, k := range w.evicted {
		out[i] = w.ents[k]
	}
	w.ents, w.head = out, 0
	w.dropTree()
}

// dropTree empties a sorted log's tree, keeping its memory, for a log
// whose writes start in order again.
func (w *writeLog) dropTree() {
	if w.tree != nil {
		w.tree.Reset()
		w.spare, w.tree = w.tree, nil
	}
	w.last = -1
}

// passCap is fio's do_io total_bytes for job j with pass bytes in each of
// its loops passes (writeLog.passCap).
func passCap(j *jobfile.Job, pass, loops uint64) uint64 {
	c := pass
	if j.RW.IsRandom() && j.NoRandomMap {
		c = max(c, j.IOSize)
	}
	if j.VerifyBacklog > 0 {
		c += pass
	}
	if j.RW == jobfile.RWTrimWrite || j.RW == jobfile.RWRandTrimWrite {
		c += cmp.Or(j.IOSize, pass) * loops
	}
	return c
}

// passCapped says whether the pass has queued its passCap, and ends its
// issuing then.
func (l *loop) passCapped() bool {
	w := l.verify.wlog
	if w.passCap == 0 || w.issuedNow < w.passCap {
		return false
	}
	l.stopIssue = true
	return true
}

// setupVerify gives the loop the job's verifier and, for a writing job
// with do_verify=1, a write log.
func (l *loop) setupVerify(j *jobfile.Job, v *verify.Verifier, regions []iogen.Region, thread int) {
	if v == nil {
		return
	}
	l.verify.ver = v
	l.verify.checkReads = !l.hasWrite
	if l.hasWrite && j.DoVerify {
		l.verify.wlog = newWriteLog(regions, l.gen.MinBS[jobfile.DirWrite], sortedLog(j))
		l.verify.wlog.rollover = j.TimeBased
		if !l.syncIO && !j.TimeBased {
			l.verify.wlog.passCap = passCap(j, l.verify.wlog.pass, l.loops)
		}
		if l.verify.wlog.sorts || j.VerifyBacklog > 0 {
			l.verify.wlog.flying = make([]flyingWrite, len(l.slots))
		}
		l.verify.wlog.trim = newTrimList(j, thread, len(l.slots))
	}
	l.verify.backlogs = l.verify.wlog != nil && j.VerifyBacklog > 0
	l.verify.logsAtIssue = l.verify.wlog != nil
	l.verify.coeVerify = j.ContinueOnError.Covers(jobfile.ContinueVerify)
}

// completeData runs after a read or write of a job with verify= moved all
// its bytes: it logs a verifying job's write, or checks a read.
func (l *loop) completeData(s *slot, si uint32) {
	orig := s.off - uint64(s.done)
	switch {
	case s.op == engines.OpWrite && (l.verify.wlog != nil || l.verify.vstate != nil):
		if w := l.verify.wlog; w != nil {
			w.completed(si, s.file, orig, s.length)
		}
		if l.verify.vstate != nil {
			l.verify.vstate.mark(s.file, orig, s.length)
		}
	case s.op == engines.OpRead && (l.verify.checkReads || s.verify):
		if s.verify {
			l.verify.wlog.lastRead = true
		}
		var err error
		if s.zeroes {
			err = l.verify.ver.CheckZeroes(l.bufs[si][:s.length], orig)
		} else {
			err = l.verify.ver.Check(l.bufs[si][:s.length], orig)
		}
		if err != nil {
			if l.job.VerifyDump {
				l.dumpVerify(s, l.bufs[si][:s.length], orig)
			}
			l.verifyFail(s, err)
		}
	}
}

// verifyFail reports a bad block: a warning line naming file, offset,
// expected and found, and the job's error unless continue_on_error covers
// verify errors.
func (l *loop) verifyFail(s *slot, err error) {
	name := l.files[s.file].Path
	var m *verify.Mismatch
	if errors.As(err, &m) {
		m.File = name
	} else {
		err = fmt.Errorf("%w (file %s)", err, name)
	}
	if l.warn != nil && (l.verify.coeVerify || l.res.Error == 0) {
		fmt.Fprintf(l.warn, "gofio: %s: %v\n", l.job.Name, err)
	}
	if l.verify.coeVerify {
		l.res.TotalErr++
		if l.res.FirstErr == 0 {
			l.res.FirstErr = int(unix.EILSEQ)
		}
		return
	}
	if l.res.Error == 0 {
		l.res.Error = int(unix.EILSEQ)
		l.res.ErrorText = "func=verify, error=" + err.Error()
		if l.prog != nil {
			l.prog.State.Store('X')
		}
	}
	l.stopIssue = true
}

// dumpVerify is verify_dump: the block as read goes to
// FILE.OFFSET.received and, when its header is intact, the block as it was
// written, regenerated from the header's seed, to FILE.OFFSET.expected,
// in --aux-path or the working directory, as fio's dump_buf names them.
func (l *loop) dumpVerify(s *slot, got []byte, off uint64) {
	base := filepath.Join(l.verify.auxPath, filepath.Base(l.files[s.file].Path))
	dump := func(kind string, b []byte) {
		name := fmt.Sprintf("%s.%d.%s", base, off, kind)
		err := os.WriteFile(name, b, 0o644)
		if l.warn == nil {
			return
		}
		if err != nil {
			fmt.Fprintf(l.warn, "gofio: %s: verify_dump: %v\n", l.job.Name, err)
			return
		}
		fmt.Fprintf(l.warn, "       %s data dumped as %s\n", kind, name)
	}
	dump("received", got)
	if h, ok := verify.ReadHeader(got); ok {
		want := make([]byte, len(got))
		l.verify.ver.Fill(want, off, h.Seed, h.NumberIO)
		dump("expected", want)
	}
}

// backlogDue reports whether verify_backlog wants a block read back now,
// by fio's check_get_verify: a batch is under way, or the blocks in the
// log (the writes in flight included, as fio logs at issue) are a
// multiple of verify_backlog and the last I/O to complete was not a
// verify read; a batch is verify_backlog_batch reads (verify_backlog
// when 0). It waits while every block logged is in flight, as fio's
// get_next_verify finds nothing then.
func (l *loop) backlogDue() bool {
	if l.verify.wlog == nil || l.job.VerifyBacklog == 0 || l.stopIssue || !l.budgetLeft() || l.passCapped() {
		return false
	}
	w := l.verify.wlog
	w.settle(l)
	hist := w.live + w.inFlight
	if hist == 0 {
		return false
	}
	if l.verify.vBatch == 0 {
		if uint64(hist)%l.job.VerifyBacklog != 0 || w.lastRead {
			return false
		}
		l.verify.vBatch = l.job.VerifyBacklogBatch
		if l.verify.vBatch <= 0 {
			l.verify.vBatch = int(l.job.VerifyBacklog)
		}
	}
	return w.live > 0 && !w.firstInFlight()
}

// firstInFlight says whether fio's log would start with a write in
// flight, where its get_next_verify finds nothing: a write in flight
// below the log's first block (sorted), or issued before it (a list).
func (w *writeLog) firstInFlight() bool {
	if w.flying == nil || w.inFlight == 0 {
		return false
	}
	var first *written
	if w.tree != nil {
		k, _ := w.tree.First()
		first = &w.ents[k]
	} else {
		for w.head < len(w.ents) && w.ents[w.head].seq&seqOut != 0 {
			w.head++
		}
		first = &w.ents[w.head]
	}
	for k := range w.flying {
		g := &w.flying[k]
		if !g.busy || g.overtaken {
			continue
		}
		if w.sorts && (g.file < first.file || g.file == first.file && g.off < first.off) || !w.sorts && g.seq < place(first.seq) {
			return true
		}
	}
	return false
}

// issueBacklog reads back the log's first block (verify_backlog);
// completeData checks it.
func (l *loop) issueBacklog(si uint32, now int64) {
	e, _ := l.verify.wlog.popFirst()
	l.verify.wlog.issuedNow += uint64(e.n)
	l.verify.wlog.readBack += uint64(e.n)
	l.verify.vBatch--
	s := &l.slots[si]
	*s = slot{op: engines.OpRead, dir: jobfile.DirRead, file: e.file, off: e.off, length: e.n, start: now, slat: -1, verify: true, ramp: l.ramping,
		zeroes: e.seq&seqTrimmed != 0}
	l.req = engines.Request{Op: engines.OpRead, File: int(e.file), Offset: e.off, Buf: l.bufs[si][:e.n]}
	if !l.ramping {
		l.res.Dirs[jobfile.DirRead].TotalIOs++
	}
	if l.iolog != nil {
		l.logIO(now, engines.OpRead, int(e.file), e.off, uint64(e.n))
	}
	l.queue(si)
}

// runVerify is the verify phase: every logged write is read back, in file
// and offset order, through the same slots and engine, and checked.
func (l *loop) runVerify() {
	l.warnTrimLeaked()
	l.verify.wlog.finish()
	now := l.clock()
	if l.ramping {
		l.endRamp(now)
	}
	l.verify.verifying, l.verify.verified, l.verify.checkReads, l.stopIssue = true, true, true, false
	if len(l.verify.wlog.ents) > 0 {
		l.closeIOLogFiles(now) // fio closes the files after writing and opens them again to verify
	}
	l.verify.vNext = 0
	if l.prog != nil {
		l.prog.State.Store('V')
	}
	for i := 0; i < l.depth; i++ {
		l.q.AddHeavy(uint32(i), now)
	}
	l.drive()
	l.verify.verifying = false
	l.ended = l.clock()
}

// issueVerify is the heavy item of the verify phase: read the next logged
// block back.
func (l *loop) issueVerify(si uint32, now int64) {
	if l.stopIssue || l.stop.Load() || l.verify.vNext >= len(l.verify.wlog.ents) {
		l.stopIssue = true
		return
	}
	e := l.verify.wlog.ents[l.verify.vNext]
	l.verify.vNext++
	l.verify.wlog.readBack += uint64(e.n)
	s := &l.slots[si]
	*s = slot{op: engines.OpRead, dir: jobfile.DirRead, file: e.file, off: e.off, length: e.n, start: now, slat: -1, zeroes: e.seq&seqTrimmed != 0}
	l.req = engines.Request{Op: engines.OpRead, File: int(e.file), Offset: e.off, Buf: l.bufs[si][:e.n]}
	l.res.Dirs[jobfile.DirRead].TotalIOs++
	if l.iolog != nil {
		l.logIO(now, engines.OpRead, int(e.file), e.off, uint64(e.n))
	}
	l.queue(si)
}
