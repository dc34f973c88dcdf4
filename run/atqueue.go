package run

import (
	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/joberr"
	"golang.org/x/sys/unix"
)

// doneAtQueue reports whether the engine runs op, a trim or a sync, inside
// Queue, as its fio counterpart does in its queue hook (FIO_Q_COMPLETED):
// io_uring's and libaio's trims, libaio's syncs.
func (l *loop) doneAtQueue(op engines.Op) bool {
	if op == engines.OpTrim {
		return l.trimAtQueue
	}
	return l.syncAtQueue
}

// queueAtQueue hands l.req, a trim or a sync that the engine runs inside
// Queue, to the engine. fio's hook answers busy while requests wait to be
// committed (ld->queued): in a plain run the loop first commits and
// waits, as do_io does on FIO_Q_BUSY. A trim then counts as issued now
// (trimmedAtQueue); a sync is done when Queue returns (syncedAtQueue).
func (l *loop) queueAtQueue(si uint32) {
	if !l.syncIO && !l.reapAll && l.pN > l.trimsPending {
		l.busy()
		if l.fatal {
			return
		}
	}
	trim := l.req.Op == engines.OpTrim
	if trim {
		l.slots[si].issue = l.clock()
	}
	var err error
	if l.locks != nil {
		// lockfile='s lock is held across the engine's hook, as fio's
		// td_io_prep and td_io_queue hold it.
		shared := l.locks.Lock(l.req.File, l.req.Op)
		err = l.eng.Queue(si, &l.req)
		l.locks.Unlock(l.req.File, shared)
	} else {
		err = l.eng.Queue(si, &l.req)
	}
	if err != nil {
		l.fail(joberr.ErrnoOf(err, unix.EIO), "io_u queue", err)
		return
	}
	if trim {
		l.trimmedAtQueue(si)
		return
	}
	if qc, ok := l.eng.(engines.QueueCompleter); ok {
		if res, ok := qc.CompletedAtQueue(si); ok {
			l.syncedAtQueue(si, res)
			return
		}
	}
	l.queued(si) // the engine left the sync to Submit (a test's stand-in)
}

// trimmedAtQueue accounts the trim the engine ran in Queue in slot si.
// fio's hook completes it at once: one submit, one complete, and the
// depth bucket of cur_depth with it, which it then leaves. Its completion
// waits in the engine for the next reap, kept out of cur_depth and of the
// submit and complete maps (trimsFlying, trimsPending).
func (l *loop) trimmedAtQueue(si uint32) {
	l.slots[si].flight = true
	l.res.IODepth[depthBucket(l.curDepth()+1)]++
	l.res.SubmitCalls++
	l.res.Submit[batchBucket(1)]++
	l.res.CompleteCalls++
	l.res.Complete[batchBucket(1)]++
	l.trimsFlying++
	l.trimsPending++
	l.pushPending(si)
}

// syncedAtQueue completes the sync the engine ran in Queue in slot si,
// with result res, as fio's td_io_queue and io_queue_event do on
// FIO_Q_COMPLETED: the IO depths map counts it in the bucket of cur_depth,
// its own io_u included; the submit and complete maps do not count it;
// io_u_sync_complete completes it at once (lastWasSync set, its latency
// accounted) and frees its io_u, so the slot takes the next I/O.
//
// Its latency is fio's: fio's libaio stamps an io_u's issue time at
// commit alone, so a sync's is the one its io_u kept from its last read
// or write, which the slot keeps too (countIssued), from the job's start
// for a slot not used before (fio: from its clock's start).
func (l *loop) syncedAtQueue(si uint32, res int32) {
	l.res.IODepth[depthBucket(l.curDepth()+1)]++
	now := l.clock()
	s := &l.slots[si]
	s.res = res
	if res < 0 {
		if !l.failedIO(s, res) {
			return
		}
	} else {
		from := s.issue
		if from == 0 {
			from = l.started
		}
		l.syncedAt = now
		l.syncDone(s, now, from, !l.ramping)
	}
	if !l.fatal {
		l.q.AddHeavy(si, now)
	}
}
