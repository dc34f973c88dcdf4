package run

import (
	"time"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/openloop"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/sched"
)

// This file is the run loop's side of open_loop=1 (internal/openloop):
// the intended time of each I/O is the direction's next time on fio's
// rate schedule (nextIssue), which only rate_iops= (or rate=) and
// rate_process= move; a free slot waits for it without draining what is
// in flight, and each completion's response latency is taken from it. A
// job without open_loop pays nothing on its path but the nil test of
// l.open in accountIO; the rest sits behind the rate tests a job without
// a rate never passes.

// openLoopPoll is the longest a wait of an open-loop job sleeps at once
// when its engine cannot wait for completions with a time limit: the
// completions that come meanwhile are harvested late by up to this.
const openLoopPoll = 50 * time.Microsecond

// setOpenLoop gives an open-loop job's loop its timetable (none for
// fio's closed loop) and readies it, on the job's thread: its figures go
// into the job's result, and an engine that can wait for completions with
// a time limit waits so between intended times. Between them the loop
// sleeps as every job does (internal/threadsleep: clock_nanosleep at 1 us
// timer slack); each moment it wakes late is time an I/O due meanwhile
// waits, in its response latency.
func (l *loop) setOpenLoop() {
	if l.open = openloop.New(l.job, l.depth); l.open == nil {
		return
	}
	l.res.OpenLoop = l.open.Stats
	if tr, ok := l.eng.(engines.TimedReaper); ok && tr.CanReapTimeout() && l.timed == nil {
		l.timed = tr
	}
}

// openIssue records that slot si issues, at now, the I/O of direction d
// due at the direction's next intended time.
func (l *loop) openIssue(si uint32, d jobfile.Dir, now int64) {
	if l.open != nil {
		l.open.Issue(si, d, l.nextIssue[d], now)
	}
}

// openWait is rateWait for an open-loop job: slot si is free and the next
// I/O is due in wait ns. The slot goes back as a heavy item, what is
// queued is submitted, and the loop waits until the I/O is due or an I/O
// in flight completes, whichever comes first, without draining what is
// in flight as fio's rate wait does: the timetable does not wait for the
// target.
func (l *loop) openWait(si uint32, wait int64) {
	l.open.Wait(si)
	l.q.AddHeavy(si, l.clock())
	if !l.syncIO && !l.reapAll {
		l.commitQueued()
	}
	if l.pN > 0 {
		l.submit()
	}
	wait = min(wait, int64(10*time.Millisecond))
	if l.inflight == 0 {
		l.sleep(time.Duration(wait))
		l.reapFresh = false
		return
	}
	if l.timed != nil {
		prev := l.reapLimit
		l.reapLimit = time.Duration(wait)
		l.reap(1)
		l.reapLimit = prev
		return
	}
	if l.getEventsAll {
		l.reap(l.inflight) // null: every request is complete at submit
	} else {
		l.reap(0)
	}
	if k, ok := l.q.Peek(); ok && k == sched.Completion {
		return
	}
	l.sleep(time.Duration(min(wait, int64(openLoopPoll))))
	l.reapFresh = false
}
