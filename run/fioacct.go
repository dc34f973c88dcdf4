package run

import "github.com/gofio/gofio/report"

// fioAcct keeps the three maps fio prints as "submit", "complete" and "IO
// depths" the way fio 3.33 fills them, although gofio's loop does not
// submit and reap when fio would: gofio harvests every CQE the ring holds
// between heavy items (the irq of the task-work model), where fio reaps
// only when its queue is full, and only iodepth_batch_complete_max at a
// time. The maps are fio's bookkeeping of its own schedule, so fioAcct
// replays that schedule from the order in which gofio queues requests:
//
//   - a queued request raises fio's cur_depth and io_u_queued;
//   - td_io_commit runs when io_u_queued reaches iodepth_batch_submit: it
//     adds io_u_queued to the IO depths bucket of cur_depth and commits
//     (marking the submit map with the count the engine submitted);
//   - when cur_depth reaches iodepth, wait_for_completions reaps
//     min(iodepth_batch_complete_min, cur_depth) (at least 1) events, up to
//     iodepth_batch_complete_max, and repeats while more than iodepth_low
//     remain. Each getevents call first commits what is queued (without a
//     depth mark) and marks the complete map with the number it reaped;
//   - at the end every I/O still counted in cur_depth is reaped in one
//     call.
//
// Between the min and the max of a wait the count fio reaps is whatever
// the ring holds; fioAcct takes what gofio's harvests found and fio's
// reaps have not yet consumed, clamped to [min, max]. Engine rules come
// from fio's engines: io_uring with SQPOLL marks no submit (its commit
// only wakes the thread); null returns every committed event from one
// getevents, ignoring the max, and refuses to queue while events are
// pending, which makes fio wait at once. Everything is O(1) per request.
type fioAcct struct {
	res         *report.JobResult
	depth       int // iodepth
	batch       int // iodepth_batch_submit (0 means iodepth)
	completeMin int // iodepth_batch_complete_min as given (0 allowed)
	completeMax int // iodepth_batch_complete_max after fio's fixup
	low         int // iodepth_low

	markSubmit bool // the engine's commit marks the submit map
	reapAll    bool // fio's null engine rules (see the type doc)

	curDepth  int // fio's td->cur_depth
	queued    int // fio's td->io_u_queued (reset by td_io_commit)
	uncommit  int // queued in the engine, not committed (ld->queued)
	committed int // committed and not reaped
	avail     int // harvested by gofio, not yet reaped by the replay
}

// newFioAcct returns fio's accounting for a job run at depth with the
// given batch options on engine (with sqpoll for io_uring's SQPOLL).
func newFioAcct(res *report.JobResult, depth, batch, completeMin, completeMax, low int, engine string, sqpoll bool) *fioAcct {
	if batch <= 0 || batch > depth {
		batch = depth
	}
	if completeMax < completeMin {
		completeMax = completeMin
	}
	if low <= 0 || low > depth {
		low = depth
	}
	return &fioAcct{
		res: res, depth: depth, batch: batch, completeMin: completeMin, completeMax: completeMax, low: low,
		markSubmit: !(engine == "io_uring" && sqpoll),
		reapAll:    engine == "null",
	}
}

// queuedOne records one request queued to the engine (td_io_queue
// returning FIO_Q_QUEUED), with fio's commits and waits that follow it.
func (a *fioAcct) queuedOne() {
	if a.reapAll && a.committed > 0 {
		// fio's null engine answers FIO_Q_BUSY while events are pending:
		// fio commits (nothing queued) and waits, queue not full.
		a.wait(a.curDepth >= a.depth)
	}
	a.curDepth++
	a.queued++
	a.uncommit++
	if a.queued >= a.batch {
		a.commit()
	}
	if a.curDepth >= a.depth {
		a.wait(true)
	}
}

// commit is td_io_commit: the depth mark, then the engine's commit.
func (a *fioAcct) commit() {
	if a.curDepth == 0 || a.queued == 0 {
		return
	}
	a.res.IODepth[depthBucket(a.curDepth)] += uint64(a.queued)
	a.queued = 0
	a.engineCommit()
}

// engineCommit is the engine's own commit hook: it submits what is queued
// and marks the submit map with the count (io_u_mark_submit).
func (a *fioAcct) engineCommit() {
	if a.uncommit == 0 {
		return
	}
	if a.reapAll && a.committed > 0 {
		return // null_commit does nothing while events are pending
	}
	if a.markSubmit {
		a.res.SubmitCalls++
		a.res.Submit[batchBucket(a.uncommit)]++
	}
	a.committed += a.uncommit
	a.uncommit = 0
}

// wait is wait_for_completions.
func (a *fioAcct) wait(full bool) {
	min := a.completeMin
	if min > a.curDepth {
		min = a.curDepth
	}
	if (full && min == 0) || a.completeMin == 0 {
		min = 1
	}
	for {
		a.getevents(min)
		if !full || a.curDepth <= a.low || a.curDepth == 0 {
			return
		}
	}
}

// getevents is io_u_queued_complete(min) over td_io_getevents: commit,
// reap between min and max events, mark the complete map.
func (a *fioAcct) getevents(min int) {
	if min > a.curDepth {
		min = a.curDepth
	}
	if min > 0 {
		a.engineCommit()
	}
	max := a.completeMax
	if max > a.curDepth {
		max = a.curDepth
	}
	if min > max {
		max = min
	}
	n := a.avail
	switch {
	case a.reapAll:
		n = 0
		if min > 0 {
			n = a.committed
		}
	case n < min:
		n = min
	case n > max:
		n = max
	}
	if n > a.committed {
		n = a.committed
	}
	a.res.CompleteCalls++
	a.res.Complete[batchBucket(n)]++
	a.curDepth -= n
	a.committed -= n
	a.avail -= n
	if a.avail < 0 {
		a.avail = 0
	}
}

// trimmedOne records a trim io_uring or libaio ran in its queue hook
// (FIO_Q_COMPLETED). With requests queued and not committed fio's hook
// first answers busy: fio commits them and, with I/O in flight, waits for
// completions. The trim then counts in the IO depths bucket of cur_depth
// with it, and as one submit and one complete, and leaves cur_depth at
// once.
func (a *fioAcct) trimmedOne() {
	if a.uncommit > 0 {
		a.commit()
		if a.curDepth > 0 {
			a.wait(a.curDepth >= a.depth)
		}
	}
	a.res.IODepth[depthBucket(a.curDepth+1)]++
	a.res.SubmitCalls++
	a.res.Submit[batchBucket(1)]++
	a.res.CompleteCalls++
	a.res.Complete[batchBucket(1)]++
}

// harvested records n completions gofio took from the engine.
func (a *fioAcct) harvested(n int) { a.avail += n }

// finish is fio's final reap of everything still in cur_depth, as do_io
// ends with io_u_queued_complete(td, cur_depth).
func (a *fioAcct) finish() {
	if a.curDepth > 0 {
		a.getevents(a.curDepth)
	}
	a.avail = 0
}
