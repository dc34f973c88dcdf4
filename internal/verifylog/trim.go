package verifylog

import (
	"math"

	"github.com/gofio/gofio/internal/fiorand"
	"github.com/gofio/gofio/jobfile"
)

// TrimList is the trim state of a job with trim verify: the list of
// logged blocks chosen for trimming and the batch under way. It lives in
// the job's Log, which indexes its entries.
type TrimList struct {
	rng       fiorand.Frand
	seed      uint64
	use64     bool
	reseed    bool   // reseed at each new pass (fio's rand_repeatable)
	threshold uint64 // a draw at or below it picks the block (fio's io_u_should_trim)
	Backlog   uint64
	BatchSize int  // trim_backlog_batch, or trim_backlog when 0
	zero      bool // trim_verify_zero: trimmed blocks stay in the log, read back as zeroes
	// idx holds the indexes into the log's entries of the blocks chosen,
	// in the order they joined the list; head is the first that may
	// still be on it (an entry is while it has seqListed), and listed
	// counts those (fio's trim_entries).
	Idx          []int
	head, Listed int
	// batch is the trims left in the current batch (fio's trim_batch).
	Batch int
	// picked says, per slot, whether the write in flight in it was drawn
	// for trimming, and pickedInFlight counts those.
	PickedInFlight int
	picked         []bool
	// owed is a trim that came due while its block's write was in flight.
	Owed bool
	// extending says the job issues past its size= for the list's sake:
	// the log keeps its pass (Log.Add); runaway that it stopped
	// doing so (trimRunaway).
	Extending, Runaway bool
}

// NewTrimList returns the trim state of job j, fio's thread number
// thread, with depth slots, or nil when the job does not trim what it
// verifies.
func NewTrimList(j *jobfile.Job, thread, depth int) *TrimList {
	if !j.TrimVerify() {
		return nil
	}
	fs := fiorand.NewSeeds(j, thread)
	t := &TrimList{
		seed:      fs.Seed[fiorand.SeedTrim],
		use64:     fs.Use64,
		reseed:    fs.Repeatable,
		Backlog:   j.TrimBacklog,
		BatchSize: j.TrimBacklogBatch,
		zero:      j.TrimVerifyZero,
		picked:    make([]bool, depth),
	}
	if t.BatchSize == 0 {
		t.BatchSize = int(min(j.TrimBacklog, uint64(math.MaxInt)))
	}
	t.rng = fiorand.NewFrand(t.seed, t.use64)
	t.threshold = t.rng.Max() / 100 * uint64(j.TrimPercentage)
	return t
}

// newPass empties the list for a new verify log (writes in flight stay
// drawn, and a batch under way goes on, as fio's trim_batch); with reseed
// it starts the generator again, as fio reseeds every generator at each
// loop.
func (t *TrimList) newPass(reseed bool) {
	t.Idx, t.head, t.Listed, t.Owed = t.Idx[:0], 0, 0, false
	if reseed && t.reseed {
		t.rng = fiorand.NewFrand(t.seed, t.use64)
	}
}

// Issued counts the write of n bytes at off in file issued in slot si,
// which fio logs as it issues: a sorted log loses the blocks it overlaps
// now (the write joins the log when it completes, so that nothing reads
// or trims it before), and trim verify draws for it. It reports whether
// the draw picked it.
func (w *Log) Issued(si uint32, file int32, off uint64, n uint32) bool {
	w.InFlight++
	if w.Flying != nil {
		// With one slot nothing else is issued before the write
		// completes, and its add takes the blocks it overlaps out then.
		early := w.Sorts && len(w.Flying) > 1
		if early {
			w.overtake(file, off, n)
		}
		w.Flying[si] = FlyingWrite{Seq: w.Seq, Off: off, N: n, File: file, busy: true}
		w.Seq += seqStep
		if early {
			w.evict(file, off, n, len(w.Ents), ^uint64(0))
		}
	}
	t := w.Trim
	if t == nil {
		return false
	}
	if t.rng.Next() <= t.threshold {
		t.picked[si] = true
		t.PickedInFlight++
		return true
	}
	return false
}

// overtake marks the writes in flight that the n bytes at off in file
// overlap as overtaken: fio's log_io_piece takes them out of its log (and
// off the trim list) as it logs the new write, in flight or not.
func (w *Log) overtake(file int32, off uint64, n uint32) {
	for k := range w.Flying {
		g := &w.Flying[k]
		if !g.busy || g.overtaken || g.File != file || g.Off >= off+uint64(n) || off >= g.Off+uint64(g.N) {
			continue
		}
		g.overtaken = true
		w.InFlight--
		if t := w.Trim; t != nil && t.picked[k] {
			t.picked[k] = false
			t.PickedInFlight--
		}
	}
}

// logged follows add for the write that completed in slot si: it is no
// longer in flight (unless a later write overtook it, which counted it
// out then), and it joins the trim list when its draw picked it.
func (w *Log) logged(si uint32, overtaken bool) {
	if w.InFlight > 0 && !overtaken {
		w.InFlight--
	}
	w.LastRead = false
	t := w.Trim
	if t == nil || !t.picked[si] {
		return
	}
	t.picked[si] = false
	t.PickedInFlight--
	i := len(w.Ents) - 1
	if w.Ents[i].Seq&seqOut != 0 {
		return // a write issued after it took it out of fio's log, and off the list
	}
	t.Idx = append(t.Idx, i)
	t.Listed++
	w.Ents[i].Seq |= seqListed
}

// TakeTrim takes the oldest listed block off the trim list and marks it
// trimmed in the log; with trim_verify_zero=0 it leaves the log.
func (w *Log) TakeTrim() Written {
	t := w.Trim
	for w.Ents[t.Idx[t.head]].Seq&seqListed == 0 {
		t.head++
	}
	i := t.Idx[t.head]
	t.head++
	t.Listed--
	e := &w.Ents[i]
	e.Seq = e.Seq&^seqListed | SeqTrimmed
	if !t.zero {
		e.Seq |= seqOut
		w.Live--
		if w.tree != nil {
			w.tree.Remove(e.File, e.Off)
		}
	}
	w.LastRead = false
	return *e
}

// Settle forgets the writes counted in flight once nothing is (idle):
// those failed, and nothing will log them.
func (w *Log) Settle(idle bool) {
	if w.InFlight > 0 && idle {
		w.InFlight = 0
		for k := range w.Flying {
			w.Flying[k].busy = false
		}
		if t := w.Trim; t != nil {
			t.PickedInFlight = 0
			clear(t.picked)
		}
	}
}
