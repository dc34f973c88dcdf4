package run

import (
	"fmt"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// Trim verify, as gofio runs it (fio 3.33's trim_percentage, trim_backlog,
// trim_backlog_batch and trim_verify_zero; jobfile's Job.TrimVerify says
// when a job does):
//
//   - Each write draws from fio's trim generator (seeded with fio's
//     FIO_RAND_TRIM_OFF seed) when it is issued, as fio draws when it logs
//     the write: trim_percentage percent of them join the trim list, in
//     the order their writes complete (fio's io_u_should_trim).
//   - Before each new I/O, while the list holds blocks or chosen writes
//     are in flight: a batch under way trims the next one; otherwise,
//     when the number of blocks in the verify log (the writes in flight
//     included, as fio logs at issue) is a multiple of trim_backlog and
//     the last I/O to complete was not a verify read, a batch of
//     trim_backlog_batch trims (trim_backlog when 0) starts with a trim
//     that does not count against it (fio's check_get_trim and
//     get_next_trim). A trim due while its block's write is still in
//     flight waits for that write.
//   - A trimmed block stays in the log with trim_verify_zero=1 and is read
//     back in the verify phase, where it must be zeroes (on the null
//     engine and with verify=null nothing is checked, as fio); with
//     trim_verify_zero=0 it leaves the log and is not read back.
//   - A block that leaves the log otherwise leaves the list too (fio's
//     remove_trim_entry): read back by verify_backlog, or, where fio keeps
//     its log sorted (verifylog.Log), overlapped by a later write.
//   - The list outlives the writes: while it holds blocks the job issues
//     past its size= (fio's do_io loops while its trim list is not
//     empty), trimming what is due, until the offsets run out (a job with
//     a random map, or sequential) or the list empties (norandommap);
//     blocks left on the list are reported as fio reports them ("trim
//     entries leaked?").
//   - A block joins the list when its write completes, so it is never
//     trimmed while its write is in flight; fio 3.33 does that at iodepth
//     above 1 and then finds the block not zeroed.

// trimDue says whether the next I/O is a trim of a listed block (fio's
// check_get_trim): a batch is under way, or the log's unverified blocks
// are a multiple of trim_backlog after anything but a verify read. The
// trim waits (trimWait) while the block it is due for is still being
// written.
func (l *loop) trimDue() trimVerdict {
	w := l.verify.wlog
	t := w.Trim
	w.Settle(l.curDepth() == 0)
	pending := t.Listed
	l.verify.trimListed = (pending > 0 || t.PickedInFlight > 0) && !l.trimRunaway()
	if !l.verify.trimListed {
		return trimNone
	}
	due := t.Owed
	switch {
	case due:
	case t.Batch > 0:
		t.Batch--
		due = true
	case uint64(w.Live+w.InFlight)%t.Backlog == 0 && !w.LastRead:
		t.Batch = t.BatchSize
		due = true
	}
	switch {
	case !due:
		return trimNone
	case pending == 0:
		t.Owed = true
		return trimWait
	}
	t.Owed = false
	return trimNow
}

// trimVerdict is what trimDue decides for the next I/O.
type trimVerdict uint8

const (
	trimNone trimVerdict = iota // no trim: the job's next I/O
	trimNow                     // trim the oldest listed block
	trimWait                    // a trim is due, its block's write is in flight
)

// issueLogged is the tail of issue for a job with a write log: with trim
// verify a trim of a listed block when one is due, else the job's next
// I/O, whose write the log counts in flight (and trim verify draws for).
func (l *loop) issueLogged(si uint32, now int64) {
	if !l.canIssue(now) || l.passCapped() {
		return
	}
	w := l.verify.wlog
	if w.Trim != nil {
		v := l.trimDue()
		w.Trim.Extending = l.verify.trimListed && l.budget > 0 && l.issued >= l.budget && !l.timeBased()
		switch v {
		case trimNow:
			l.issueTrim(si, now)
			return
		case trimWait:
			l.overlapWait(si)
			return
		}
	}
	var next nextIO
	if l.flowHeld(si) || !l.chooseIO(si, now, &next) {
		return
	}
	if next.op == engines.OpWrite {
		w.IssuedNow += next.n
		if w.Issued(si, int32(next.file), next.off, uint32(next.n)) && !l.trimRunaway() {
			l.verify.trimListed = true
		}
	}
	l.countIssued(si, &next)
}

// issueTrim trims the oldest listed block (fio's get_next_trim). With
// trim_verify_zero=0 the block leaves the verify log.
func (l *loop) issueTrim(si uint32, now int64) {
	e := l.verify.wlog.TakeTrim()
	l.verify.trimListed = (l.verify.wlog.Trim.Listed > 0 || l.verify.wlog.Trim.PickedInFlight > 0) && !l.trimRunaway()
	s := &l.slots[si]
	*s = slot{op: engines.OpTrim, dir: jobfile.DirTrim, file: e.File, off: e.Off, length: e.N, start: now, slat: -1, ramp: l.ramping}
	l.req = engines.Request{Op: engines.OpTrim, File: int(e.File), Offset: e.Off, Buf: l.bufs[si][:e.N]}
	// Counted as countIssued counts an I/O: fio's io_issues include
	// these trims, so number_ios ends a job sooner.
	l.res.Dirs[jobfile.DirTrim].TotalIOs++
	if !l.ramping {
		l.issuedIOs++
	}
	if l.iolog != nil {
		l.logIO(now, engines.OpTrim, int(e.File), e.Off, uint64(e.N))
	}
	l.queue(si)
}

// trimRunawayFactor bounds how far past its size= (or number_ios) a job
// issues for its trim list: fio 3.33 issues on until the list empties,
// which with norandommap and a list that outgrows its trims is never
// (fio ran for ever here: randtrimwrite norandommap trim_percentage=100
// trim_backlog=33 trim_backlog_batch=1 trim_verify_zero=0).
const trimRunawayFactor = 16

// trimRunaway reports whether the job has issued trimRunawayFactor times
// its size= or number_ios while its trim list kept blocks, and says so
// the first time.
func (l *loop) trimRunaway() bool {
	t := l.verify.wlog.Trim
	if t.Runaway {
		return true
	}
	if !(l.budget > 0 && l.issued >= trimRunawayFactor*l.budget) && !(l.numberIOs > 0 && l.issuedIOs >= trimRunawayFactor*l.numberIOs) {
		return false
	}
	t.Runaway = true
	if l.warn != nil {
		fmt.Fprintf(l.warn, "gofio: %s: the trim list still held blocks after %d times the job's size= or number_ios; stopping there (fio 3.33 issues on until it empties, here for ever)\n", l.job.Name, trimRunawayFactor)
	}
	return true
}

// warnTrimLeaked says how many listed blocks the writes left untrimmed,
// as fio's "trim entries leaked?" at the end of its I/O phase.
func (l *loop) warnTrimLeaked() {
	w := l.verify.wlog
	if w == nil || w.Trim == nil || l.warn == nil {
		return
	}
	if n := w.Trim.Listed; n > 0 {
		fmt.Fprintf(l.warn, "gofio: %s: %d trim entries leaked? (blocks trim_percentage chose that trim_backlog had not trimmed when the writes ended, as fio 3.33 reports them)\n", l.job.Name, n)
	}
}
