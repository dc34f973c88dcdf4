package run

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/lattarget"
)

// latAdmit decides whether slot si may issue a new I/O under
// latency_target: no more than the search's depth in flight (queued
// included), and none while a drain is under way; a refused slot waits in
// latIdle. When there is room, idle slots are woken to fill it.
func (l *loop) latAdmit(si uint32, now int64) bool {
	s := l.latTarget.search
	if !l.ramping && !l.latTarget.drain {
		l.latApply(s.Check(now, l.latTarget.ios), now)
	}
	busy := l.inflight + l.pN
	if l.latTarget.drain {
		if busy > 0 {
			l.latTarget.idle = append(l.latTarget.idle, si)
			return false
		}
		l.latTarget.drain = false
		if l.latTarget.reset {
			l.latTarget.reset = false
			l.resetStats(now)
			if l.job.Runtime > 0 {
				// fio's reset_all_stats moves the epoch its runtime counts from.
				l.deadline = now + int64(l.job.Runtime)
			}
		}
		s.NewCycle(now, l.latTarget.ios)
	}
	if busy >= s.QD {
		l.latTarget.idle = append(l.latTarget.idle, si)
		return false
	}
	for room := s.QD - busy - 1; room > 0 && len(l.latTarget.idle) > 0; room-- {
		n := len(l.latTarget.idle) - 1
		l.q.AddHeavy(l.latTarget.idle[n], now)
		l.latTarget.idle = l.latTarget.idle[:n]
	}
	return true
}

// latApply carries out a lattarget.Action.
func (l *loop) latApply(a lattarget.Action, now int64) {
	switch a {
	case lattarget.Quiesce:
		l.latTarget.drain = true
	case lattarget.Final:
		l.latTarget.drain, l.latTarget.reset = true, true
	case lattarget.Done:
		l.stopIssue = true
	}
}

// latCompleted feeds one completed read, write or trim to the search; lat is
// its latency from submission (ns), which fio does not take with
// disable_lat. A miss at depth 1 with latency_percentile=100 fails the job
// with fio's ETIMEDOUT.
func (l *loop) latCompleted(s *slot, lat int64, now int64) {
	l.latTarget.ios++
	if l.noLat {
		return
	}
	a := l.latTarget.search.Completed(lat)
	if a != lattarget.Fatal {
		l.latApply(a, now)
		return
	}
	l.latFatal(s, lat, l.latTarget.search.Target)
}

// latFatal is fio's lat_fatal: an I/O took lat ns, more than max (a
// missed latency_target at depth 1, or max_latency): the job ends with
// ETIMEDOUT, saying which I/O, in fio's words.
func (l *loop) latFatal(s *slot, lat int64, max int64) {
	if l.warn != nil && l.res.Error == 0 {
		name := l.slotPath(s)
		fmt.Fprintf(l.warn, "gofio: latency of %d nsec exceeds specified max (%d nsec): %s %s %d %d\n",
			lat, max, name, s.dir, s.off-uint64(s.done), s.length)
	}
	l.setError(int(unix.ETIMEDOUT), "max latency exceeded", unix.ETIMEDOUT)
	l.stopIssue = true
}
