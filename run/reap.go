package run

import (
	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/joberr"
	"golang.org/x/sys/unix"
)

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
	case waitFor == 0 || l.reapLimit == 0:
		n, err = l.eng.Reap(l.cqes[:room], waitFor)
	default:
		// io_timeout (hung.go) or an open-loop wait (openloop.go): not long.
		l.callBegin()
		if l.timed != nil {
			n, err = l.timed.ReapTimeout(l.cqes[:room], waitFor, l.reapLimit)
		} else {
			n, err = l.eng.Reap(l.cqes[:room], waitFor)
		}
		l.callEnd()
	}
	if err != nil {
		l.fail(joberr.ErrnoOf(err, unix.EIO), "io_uring_enter getevents", err)
		return
	}
	if n == 0 && waitFor == 0 {
		return
	}
	t := l.clock()
	l.reapStamp, l.reapFresh = t, true
	if n == 0 && l.reapLimit > 0 {
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
		if n > 1 {
			l.q.Add(&l.batch, c.Slot, t)
		}
	}
	if n == 1 {
		// A batch of one is one completion added (the most common
		// harvest at depth 1, and of fio's reaping one at a time).
		l.q.AddCompletion(l.cqes[0].Slot, t)
	} else {
		l.q.AddBatch(&l.batch)
	}
	if l.zones != nil {
		l.zonesReaped(n)
	}
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
