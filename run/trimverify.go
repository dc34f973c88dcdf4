package run

import (
	"fmt"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/fiorand"
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
//     its log sorted (writeLog), overlapped by a later write.
//   - The list outlives the writes: while it holds blocks the job issues
//     past its size= (fio's do_io loops while its trim list is not
//     empty), trimming what is due, until the offsets run out (a job with
//     a random map, or sequential) or the list empties (norandommap);
//     blocks left on the list are reported as fio reports them ("trim
//     entries leaked?").
//   - A block joins the list when its write completes, so it is never
//     trimmed while its write is in flight; fio 3.33 does that at iodepth
//     above 1 and then finds the block not zeroed.

// trimList is the trim state of a job with trim verify: the list of
// logged blocks chosen for trimming and the batch under way. It lives in
// the job's writeLog, which indexes its entries.
type trimList struct {
	rng       fiorand.Frand
	seed      uint64
	use64     bool
	reseed    bool   // reseed at each new pass (fio's rand_repeatable)
	threshold uint64 // a draw at or below it picks the block (fio's io_u_should_trim)
	backlog   uint64
	batchSize int  // trim_backlog_batch, or trim_backlog when 0
	zero      bool // trim_verify_zero: trimmed blocks stay in the log, read back as zeroes
	// idx holds the indexes into the log's entries of the blocks chosen,
	// in the order they joined the list; head is the first that may
	// still be on it (an entry is while it has seqListed), and listed
	// counts those (fio's trim_entries).
	idx          []int
	head, listed int
	// batch is the trims left in the current batch (fio's trim_batch).
	batch int
	// picked says, per slot, whether the write in flight in it was drawn
	// for trimming, and pickedInFlight counts those.
	pickedInFlight int
	picked         []bool
	// owed is a trim that came due while its block's write was in flight.
	owed bool
	// extending says the job issues past its size= for the list's sake:
	// the log keeps its pass (writeLog.add); runaway that it stopped
	// doing so (trimRunaway).
	extending, runaway bool
}

// newTrimList returns the trim state of job j, fio's thread number
// thread, with depth slots, or nil when the job does not trim what it
// verifies.
func newTrimList(j *jobfile.Job, thread, depth int) *trimList {
	if !j.TrimVerify() {
		return nil
	}
	fs := fiorand.NewSeeds(j, thread)
	t := &trimList{
		seed:      fs.Seed[fiorand.SeedTrim],
		use64:     fs.Use64,
		reseed:    fs.Repeatable,
		backlog:   j.TrimBacklog,
		batchSize: j.TrimBacklogBatch,
		zero:      j.TrimVerifyZero,
		picked:    make([]bool, depth),
	}
	if t.batchSize == 0 {
		t.batchSize = int(min(j.TrimBacklog, uint64(maxInt)))
	}
	t.rng = fiorand.NewFrand(t.seed, t.use64)
	t.threshold = t.rng.Max() / 100 * uint64(j.TrimPercentage)
	return t
}

// maxInt is the largest int.
const maxInt = int(^uint(0) >> 1)

// newPass empties the list for a new verify log (writes in flight stay
// drawn, and a batch under way goes on, as fio's trim_batch); with reseed
// it starts the generator again, as fio reseeds every generator at each
// loop.
func (t *trimList) newPass(reseed bool) {
	t.idx, t.head, t.listed, t.owed = t.idx[:0], 0, 0, false
	if reseed && t.reseed {
		t.rng = fiorand.NewFrand(t.seed, t.use64)
	}
}

// issued counts the write of n bytes at off in file issued in slot si,
// which fio logs as it issues: a sorted log loses the blocks it overlaps
// now (the write joins the log when it completes, so that nothing reads
// or trims it before), and trim verify draws for it. It reports whether
// the draw picked it.
func (w *writeLog) issued(si uint32, file int32, off uint64, n uint32) bool {
	w.inFlight++
	if w.flying != nil {
		// With one slot nothing else is issued before the write
		// completes, and its add takes the blocks it overlaps out then.
		early := w.sorts && len(w.flying) > 1
		if early {
			w.overtake(file, off, n)
		}
		w.flying[si] = flyingWrite{seq: w.seq, off: off, n: n, file: file, busy: true}
		w.seq += seqStep
		if early {
			w.evict(file, off, n, len(w.ents), ^uint64(0))
		}
	}
	t := w.trim
	if t == nil {
		return false
	}
	if t.rng.Next() <= t.threshold {
		t.picked[si] = true
		t.pickedInFlight++
		return true
	}
	return false
}

// overtake marks the writes in flight that the n bytes at off in file
// overlap as overtaken: fio's log_io_piece takes them out of its log (and
// off the trim list) as it logs the new write, in flight or not.
func (w *writeLog) overtake(file int32, off uint64, n uint32) {
	for k := range w.flying {
		g := &w.flying[k]
		if !g.busy || g.overtaken || g.file != file || g.off >= off+uint64(n) || off >= g.off+uint64(g.n) {
			continue
		}
		g.overtaken = true
		w.inFlight--
		if t := w.trim; t != nil && t.picked[k] {
			t.picked[k] = false
			t.pickedInFlight--
		}
	}
}

// logged follows add for the write that completed in slot si: it is no
// longer in flight (unless a later write overtook it, which counted it
// out then), and it joins the trim list when its draw picked it.
func (w *writeLog) logged(si uint32, overtaken bool) {
	if w.inFlight > 0 && !overtaken {
		w.inFlight--
	}
	w.lastRead = false
	t := w.trim
	if t == nil || !t.picked[si] {
		return
	}
	t.picked[si] = false
	t.pickedInFlight--
	i := len(w.ents) - 1
	if w.ents[i].seq&seqOut != 0 {
		return // a write issued after it took it out of fio's log, and off the list
	}
	t.idx = append(t.idx, i)
	t.listed++
	w.ents[i].seq |= seqListed
}

// settle forgets the writes counted in flight once nothing is: those
// failed, and nothing will log them.
func (w *writeLog) settle(l *loop) {
	if w.inFlight > 0 && l.curDepth() == 0 {
		w.inFlight = 0
		for k := range w.flying {
			w.flying[k].busy = false
		}
		if t := w.trim; t != nil {
			t.pickedInFlight = 0
			clear(t.picked)
		}
	}
}

// trimDue says whether the next I/O is a trim of a listed block (fio's
// check_get_trim): a batch is under way, or the log's unverified blocks
// are a multiple of trim_backlog after anything but a verify read. The
// trim waits (trimWait) while the block it is due for is still being
// written.
func (l *loop) trimDue() trimVerdict {
	w := l.verify.wlog
	t := w.trim
	w.settle(l)
	pending := t.listed
	l.verify.trimListed = (pending > 0 || t.pickedInFlight > 0) && !l.trimRunaway()
	if !l.verify.trimListed {
		return trimNone
	}
	due := t.owed
	switch {
	case due:
	case t.batch > 0:
		t.batch--
		due = true
	case uint64(w.live+w.inFlight)%t.backlog == 0 && !w.lastRead:
		t.batch = t.batchSize
		due = true
	}
	switch {
	case !due:
		return trimNone
	case pending == 0:
		t.owed = true
		return trimWait
	}
	t.owed = false
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
	if w.trim != nil {
		v := l.trimDue()
		w.trim.extending = l.verify.trimListed && l.budget > 0 && l.issued >= l.budget && !l.timeBased()
		switch v {
		case trimNow:
			l.issueTrim(si, now)
			return
		case trimWait:
			l.overlapWait(si)
			return
		}
	}
	if l.flowHeld(si) {
		return
	}
	var next nextIO
	if !l.chooseIO(si, now, &next) {
		return
	}
	if next.op == engines.OpWrite {
		w.issuedNow += next.n
		if w.issued(si, int32(next.file), next.off, uint32(next.n)) && !l.trimRunaway() {
			l.verify.trimListed = true
		}
	}
	l.countIssued(si, &next)
}

// issueTrim trims the oldest listed block (fio's get_next_trim). With
// trim_verify_zero=0 the block leaves the verify log.
func (l *loop) issueTrim(si uint32, now int64) {
	e := l.verify.wlog.takeTrim()
	l.verify.trimListed = (l.verify.wlog.trim.listed > 0 || l.verify.wlog.trim.pickedInFlight > 0) && !l.trimRunaway()
	s := &l.slots[si]
	*s = slot{op: engines.OpTrim, dir: jobfile.DirTrim, file: e.file, off: e.off, length: e.n, start: now, slat: -1, ramp: l.ramping}
	l.req = engines.Request{Op: engines.OpTrim, File: int(e.file), Offset: e.off, Buf: l.bufs[si][:e.n]}
	// Counted as countIssued counts an I/O: fio's io_issues include
	// these trims, so number_ios ends a job sooner.
	l.res.Dirs[jobfile.DirTrim].TotalIOs++
	if !l.ramping {
		l.issuedIOs++
	}
	if l.iolog != nil {
		l.logIO(now, engines.OpTrim, int(e.file), e.off, uint64(e.n))
	}
	l.queue(si)
}

// takeTrim takes the oldest listed block off the trim list and marks it
// trimmed in the log; with trim_verify_zero=0 it leaves the log.
func (w *writeLog) takeTrim() written {
	t := w.trim
	for w.ents[t.idx[t.head]].seq&seqListed == 0 {
		t.head++
	}
	i := t.idx[t.head]
	t.head++
	t.listed--
	e := &w.ents[i]
	e.seq = e.seq&^seqListed | seqTrimmed
	if !t.zero {
		e.seq |= seqOut
		w.live--
		if w.tree != nil {
			w.tree.Remove(e.file, e.off)
		}
	}
	w.lastRead = false
	return *e
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
	t := l.verify.wlog.trim
	if t.runaway {
		return true
	}
	if !(l.budget > 0 && l.issued >= trimRunawayFactor*l.budget) && !(l.numberIOs > 0 && l.issuedIOs >= trimRunawayFactor*l.numberIOs) {
		return false
	}
	t.runaway = true
	if l.warn != nil {
		fmt.Fprintf(l.warn, "gofio: %s: the trim list still held blocks after %d times the job's size= or number_ios; stopping there (fio 3.33 issues on until it empties, here for ever)\n", l.job.Name, trimRunawayFactor)
	}
	return true
}

// warnTrimLeaked says how many listed blocks the writes left untrimmed,
// as fio's "trim entries leaked?" at the end of its I/O phase.
func (l *loop) warnTrimLeaked() {
	w := l.verify.wlog
	if w == nil || w.trim == nil || l.warn == nil {
		return
	}
	if n := w.trim.listed; n > 0 {
		fmt.Fprintf(l.warn, "gofio: %s: %d trim entries leaked? (blocks trim_percentage chose that trim_backlog had not trimmed when the writes ended, as fio 3.33 reports them)\n", l.job.Name, n)
	}
}
