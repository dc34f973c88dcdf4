package run

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/verify"
	"github.com/gofio/gofio/internal/verifylog"
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
//   - The log is fio 3.33's io_hist (verifylog.Log): a random job with a random
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
//     (verifylog.PassCap). Overlapping writes in flight at the same time
//     may tear, as in fio.
//   - A mismatch names the file, offset, expected and found values (on
//     Warn, and as the job's error, EILSEQ like fio's), and ends the job
//     unless continue_on_error is verify or all, which counts it instead.

// passCapped says whether the pass has queued its passCap, and ends its
// issuing then.
func (l *loop) passCapped() bool {
	w := l.verify.wlog
	if w.PassCap == 0 || w.IssuedNow < w.PassCap {
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
		l.verify.wlog = verifylog.New(regions, l.gen.MinBS[jobfile.DirWrite], verifylog.Sorted(j))
		l.verify.wlog.Rollover = j.TimeBased
		if !l.syncIO && !j.TimeBased {
			l.verify.wlog.PassCap = verifylog.PassCap(j, l.verify.wlog.Pass, l.loops)
		}
		if l.verify.wlog.Sorts || j.VerifyBacklog > 0 {
			l.verify.wlog.Flying = make([]verifylog.FlyingWrite, len(l.slots))
		}
		l.verify.wlog.Trim = verifylog.NewTrimList(j, thread, len(l.slots))
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
			w.Completed(si, s.file, orig, s.length)
		}
		if l.verify.vstate != nil {
			l.verify.vstate.Mark(s.file, orig, s.length)
		}
	case s.op == engines.OpRead && (l.verify.checkReads || s.verify):
		if s.verify {
			l.verify.wlog.LastRead = true
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
	w.Settle(l.curDepth() == 0)
	hist := w.Live + w.InFlight
	if hist == 0 {
		return false
	}
	if l.verify.vBatch == 0 {
		if uint64(hist)%l.job.VerifyBacklog != 0 || w.LastRead {
			return false
		}
		l.verify.vBatch = l.job.VerifyBacklogBatch
		if l.verify.vBatch <= 0 {
			l.verify.vBatch = int(l.job.VerifyBacklog)
		}
	}
	return w.Live > 0 && !w.FirstInFlight()
}

// issueBacklog reads back the log's first block (verify_backlog);
// completeData checks it.
func (l *loop) issueBacklog(si uint32, now int64) {
	e, _ := l.verify.wlog.PopFirst()
	l.verify.wlog.IssuedNow += uint64(e.N)
	l.verify.wlog.ReadBack += uint64(e.N)
	l.verify.vBatch--
	s := &l.slots[si]
	*s = slot{op: engines.OpRead, dir: jobfile.DirRead, file: e.File, off: e.Off, length: e.N, start: now, slat: -1, verify: true, ramp: l.ramping,
		zeroes: e.Seq&verifylog.SeqTrimmed != 0}
	l.req = engines.Request{Op: engines.OpRead, File: int(e.File), Offset: e.Off, Buf: l.bufs[si][:e.N]}
	if !l.ramping {
		l.res.Dirs[jobfile.DirRead].TotalIOs++
	}
	if l.iolog != nil {
		l.logIO(now, engines.OpRead, int(e.File), e.Off, uint64(e.N))
	}
	l.queue(si)
}

// runVerify is the verify phase: every logged write is read back, in file
// and offset order, through the same slots and engine, and checked.
func (l *loop) runVerify() {
	l.warnTrimLeaked()
	l.verify.wlog.Finish()
	now := l.clock()
	if l.ramping {
		l.endRamp(now)
	}
	l.verify.verifying, l.verify.verified, l.verify.checkReads, l.stopIssue = true, true, true, false
	if len(l.verify.wlog.Ents) > 0 {
		l.iolog.CloseFiles(now) // fio closes the files after writing and opens them again to verify
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
	if l.stopIssue || l.stop.Load() || l.verify.vNext >= len(l.verify.wlog.Ents) {
		l.stopIssue = true
		return
	}
	e := l.verify.wlog.Ents[l.verify.vNext]
	l.verify.vNext++
	l.verify.wlog.ReadBack += uint64(e.N)
	s := &l.slots[si]
	*s = slot{op: engines.OpRead, dir: jobfile.DirRead, file: e.File, off: e.Off, length: e.N, start: now, slat: -1, zeroes: e.Seq&verifylog.SeqTrimmed != 0}
	l.req = engines.Request{Op: engines.OpRead, File: int(e.File), Offset: e.Off, Buf: l.bufs[si][:e.N]}
	l.res.Dirs[jobfile.DirRead].TotalIOs++
	if l.iolog != nil {
		l.logIO(now, engines.OpRead, int(e.File), e.Off, uint64(e.N))
	}
	l.queue(si)
}
