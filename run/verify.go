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
//   - The log keeps the last pass only: once the job has written as many
//     bytes as its regions hold (time_based, loops, io_size beyond size),
//     the next write starts a new log. Where blocks of one pass overlap
//     (norandommap, bssplit), the one that completed last is read back.
//     Overlapping writes in flight at the same time may tear, as in fio.
//   - A mismatch names the file, offset, expected and found values (on
//     Warn, and as the job's error, EILSEQ like fio's), and ends the job
//     unless continue_on_error is verify or all, which counts it instead.

// written is one logged write.
type written struct {
	off  uint64
	n    uint32
	file int32
	// seq is the write's place in the log times seqStep; the bits below
	// are trim verify's marks (seqTrimmed and the others).
	seq uint64
}

// The bits of written.seq below the write's place in the log: trim
// verify marks a block listed for trimming, trimmed, or superseded by a
// later write at its offset (trimverify.go).
const (
	seqTrimmed    = 1 << iota // trimmed
	seqListed                 // on the trim list
	seqSuperseded             // out of fio's log: a later write at its offset
	seqStep                   // one step of the write's place
)

// writeLog records the blocks a verifying job wrote in its last pass.
type writeLog struct {
	ents  []written
	bytes uint64 // bytes logged in this pass
	pass  uint64 // bytes in one pass: the sum of the region sizes
	seq   uint64
	// checked counts the entries, from the first, that verify_backlog
	// already read back; finish drops them.
	checked int
	// trim is the job's trim verify state (trimverify.go); nil without.
	trim *trimList
}

func newWriteLog(regions []iogen.Region, minBS uint64) *writeLog {
	w := &writeLog{}
	for _, r := range regions {
		w.pass += r.Size
	}
	n := uint64(1024)
	if minBS > 0 && w.pass/minBS+1 < 1<<16 {
		n = w.pass/minBS + 1
	}
	w.ents = make([]written, 0, n)
	return w
}

// add logs a completed write, starting a new pass when this one is full.
func (w *writeLog) add(file int32, off uint64, n uint32) {
	if w.pass > 0 && w.bytes+uint64(n) > w.pass && (w.trim == nil || !w.trim.extending) {
		w.reset(false)
	}
	w.ents = append(w.ents, written{off: off, n: n, file: file, seq: w.seq})
	w.seq += seqStep
	w.bytes += uint64(n)
}

// reset empties the log for a new pass; reseed says the pass is a new
// loop (loops=), which reseeds trim verify's generator.
func (w *writeLog) reset(reseed bool) {
	w.ents, w.bytes, w.checked = w.ents[:0], 0, 0
	if w.trim != nil {
		w.trim.newPass(reseed)
	}
}

// dropTrimmed removes from the log what trim verify took out of fio's:
// the blocks trimmed with trim_verify_zero=0 and those a later write at
// their offset superseded (whose later write may itself be gone).
func (w *writeLog) dropTrimmed() {
	t := w.trim
	if t == nil || (t.zero || t.dropped == 0) && t.superseded == 0 {
		return
	}
	w.ents = slices.DeleteFunc(w.ents, func(e written) bool {
		return e.seq&seqSuperseded != 0 || !t.zero && e.seq&seqTrimmed != 0
	})
	t.dropped, t.superseded = 0, 0
}

// finish sorts the log by file and offset and keeps, where blocks overlap,
// only the one that completed last.
func (w *writeLog) finish() {
	w.ents, w.checked = w.ents[w.checked:], 0
	w.dropTrimmed()
	slices.SortFunc(w.ents, func(a, b written) int {
		if c := cmp.Compare(a.file, b.file); c != 0 {
			return c
		}
		if c := cmp.Compare(a.off, b.off); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	out := w.ents[:0]
	for _, e := range w.ents {
		keep := true
		for len(out) > 0 {
			last := out[len(out)-1]
			if last.file != e.file || last.off+uint64(last.n) <= e.off {
				break
			}
			if last.seq > e.seq {
				keep = false // e was overwritten by a later write
				break
			}
			out = out[:len(out)-1]
		}
		if keep {
			out = append(out, e)
		}
	}
	w.ents = out
}

// setupVerify gives the loop the job's verifier and, for a writing job
// with do_verify=1, a write log.
func (l *loop) setupVerify(j *jobfile.Job, v *verify.Verifier, regions []iogen.Region, thread int) {
	if v == nil {
		return
	}
	l.ver = v
	l.checkReads = !l.hasWrite
	if l.hasWrite && j.DoVerify {
		l.wlog = newWriteLog(regions, l.gen.MinBS[jobfile.DirWrite])
		l.wlog.trim = newTrimList(j, thread, len(l.slots))
	}
	l.backlogs = l.wlog != nil && j.VerifyBacklog > 0
	l.trimBacklog = l.wlog != nil && l.wlog.trim != nil
	l.coeVerify = j.ContinueOnError.Covers(jobfile.ContinueVerify)
}

// completeData runs after a read or write moved all its bytes: it logs a
// verifying job's write, or checks a read.
func (l *loop) completeData(s *slot, si uint32) {
	orig := s.off - uint64(s.done)
	switch {
	case s.op == engines.OpWrite && (l.wlog != nil || l.vstate != nil):
		if w := l.wlog; w != nil {
			w.add(s.file, orig, s.length)
			if w.trim != nil {
				w.logged(si)
			}
		}
		if l.vstate != nil {
			l.vstate.mark(s.file, orig, s.length)
		}
	case s.op == engines.OpRead && (l.checkReads || s.verify):
		if s.verify && l.wlog.trim != nil {
			l.wlog.trim.afterRead = true
		}
		var err error
		if s.zeroes {
			err = l.ver.CheckZeroes(l.bufs[si][:s.length], orig)
		} else {
			err = l.ver.Check(l.bufs[si][:s.length], orig)
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
	name := l.files[s.file].path
	var m *verify.Mismatch
	if errors.As(err, &m) {
		m.File = name
	} else {
		err = fmt.Errorf("%w (file %s)", err, name)
	}
	if l.warn != nil && (l.coeVerify || l.res.Error == 0) {
		fmt.Fprintf(l.warn, "gofio: %s: %v\n", l.job.Name, err)
	}
	if l.coeVerify {
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
	base := filepath.Join(l.auxPath, filepath.Base(l.files[s.file].path))
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
		l.ver.Fill(want, off, h.Seed, h.NumberIO)
		dump("expected", want)
	}
}

// backlogDue reports whether verify_backlog wants a block read back now:
// a batch is under way, or VerifyBacklog written blocks wait unverified
// (fio's get_io_u starts a batch of verify_backlog_batch then).
func (l *loop) backlogDue() bool {
	if l.wlog == nil || l.job.VerifyBacklog == 0 || l.stopIssue {
		return false
	}
	w := l.wlog
	unverified := len(w.ents) - w.checked
	if w.trim != nil {
		unverified -= w.trim.dropped
	}
	if l.vBatch == 0 && uint64(unverified) >= l.job.VerifyBacklog {
		l.vBatch = l.job.VerifyBacklogBatch
		if l.vBatch <= 0 {
			l.vBatch = int(l.job.VerifyBacklog)
		}
	}
	if l.vBatch > 0 && unverified == 0 {
		l.vBatch = 0
	}
	return l.vBatch > 0
}

// issueBacklog reads back the oldest unverified written block
// (verify_backlog); completeData checks it.
func (l *loop) issueBacklog(si uint32, now int64) {
	w := l.wlog
	e := w.ents[w.checked]
	for t := w.trim; t != nil && !t.zero && e.seq&seqTrimmed != 0; e = w.ents[w.checked] {
		// Trimmed with trim_verify_zero=0: off the verify list.
		w.checked++
		t.dropped--
	}
	w.checked++
	l.vBatch--
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
	l.wlog.finish()
	now := l.clock()
	if l.ramping {
		l.endRamp(now)
	}
	l.verifying, l.verified, l.checkReads, l.stopIssue = true, true, true, false
	if len(l.wlog.ents) > 0 {
		l.closeIOLogFiles(now) // fio closes the files after writing and opens them again to verify
	}
	l.vNext = 0
	if l.prog != nil {
		l.prog.State.Store('V')
	}
	for i := 0; i < l.depth; i++ {
		l.q.AddHeavy(uint32(i), now)
	}
	l.drive()
	l.verifying = false
	l.ended = l.clock()
}

// issueVerify is the heavy item of the verify phase: read the next logged
// block back.
func (l *loop) issueVerify(si uint32, now int64) {
	if l.stopIssue || l.stop.Load() || l.vNext >= len(l.wlog.ents) {
		l.stopIssue = true
		return
	}
	e := l.wlog.ents[l.vNext]
	l.vNext++
	s := &l.slots[si]
	*s = slot{op: engines.OpRead, dir: jobfile.DirRead, file: e.file, off: e.off, length: e.n, start: now, slat: -1, zeroes: e.seq&seqTrimmed != 0}
	l.req = engines.Request{Op: engines.OpRead, File: int(e.file), Offset: e.off, Buf: l.bufs[si][:e.n]}
	l.res.Dirs[jobfile.DirRead].TotalIOs++
	if l.iolog != nil {
		l.logIO(now, engines.OpRead, int(e.file), e.off, uint64(e.n))
	}
	l.queue(si)
}
