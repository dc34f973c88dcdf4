package run

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/jobfile"
)

// latSearch is fio's latency_target depth search (io_u.c lat_target_*):
// the job starts at depth 1 and, every latency_window, doubles the depth
// while latency_percentile percent of the window's I/Os completed within
// latency_target, then bisects between the last depth that met the target
// and the first that did not. When a window keeps the depth where it was,
// the depth has settled: one more window runs at it, with the statistics
// reset, and the job ends (unless latency_run keeps it searching).
//
// latSearch is pure: the loop passes the time and its count of completed
// I/Os, and applies the action each call returns.
type latSearch struct {
	target int64   // latency_target (ns)
	window int64   // latency_window (us, as fio compares it)
	pct    float64 // latency_percentile
	keep   bool    // latency_run
	maxQD  int     // iodepth

	qd, low, high int
	stable        int    // successes in a row one below high
	failed        uint64 // I/Os over the target in this window
	ios0          uint64 // completed I/Os when the window started (latency_ios)
	start         int64  // when the window started (latency_ts)
	endRun        bool   // the final window at the settled depth runs
}

// latAction is what the loop does after a latSearch step.
type latAction uint8

const (
	latNone    latAction = iota
	latQuiesce           // drain every I/O in flight, then start a new window
	latFinal             // drain, reset the statistics, then start the final window
	latDone              // the final window met the target: the job ends
	latFatal             // an I/O at depth 1 missed the target (latency_percentile=100): the job fails
)

// newLatSearch returns the search for job j with iodepth maxQD, or nil
// without latency_target.
func newLatSearch(j *jobfile.Job, maxQD int) *latSearch {
	lt := j.LatencyTarget
	if !lt.On() {
		return nil
	}
	return &latSearch{target: int64(lt.Target), window: lt.Window.Microseconds(), pct: lt.Percentile, keep: lt.Run, maxQD: maxQD}
}

// init is fio's lat_target_init: back to depth 1, a new window from now.
func (s *latSearch) init(now int64, ios uint64) {
	s.endRun = false
	s.qd, s.high, s.low = 1, s.maxQD, 1
	s.start, s.ios0 = now, ios
}

// reset is fio's lat_target_reset (at the end of ramp_time): a new search
// unless the final window runs.
func (s *latSearch) reset(now int64, ios uint64) {
	if !s.endRun {
		s.init(now, ios)
	}
}

// newCycle is fio's lat_new_cycle: a new window from now.
func (s *latSearch) newCycle(now int64, ios uint64) {
	s.start, s.ios0, s.failed = now, ios, 0
}

// completed takes the latency (ns, submission to completion) of one read
// or write, as fio's account_io_completion: over the target, it counts as
// failed, or with latency_percentile=100 lowers the depth at once (or,
// at depth 1, fails the job).
func (s *latSearch) completed(lat int64) latAction {
	if lat <= s.target {
		return latNone
	}
	if s.pct == 100 {
		return s.lower()
	}
	s.failed++
	return latNone
}

// lower is fio's __lat_target_failed: bisect down between low and the
// depth that failed, and drain before the new window.
func (s *latSearch) lower() latAction {
	if s.qd == 1 {
		return latFatal
	}
	s.high = s.qd
	if s.qd == s.low {
		s.low--
	}
	s.qd = (s.qd + s.low) / 2
	s.stable = 0
	return latQuiesce
}

// check is fio's lat_target_check, run between I/Os: once the window has
// lasted latency_window, it met the target when latency_percentile
// percent of its I/Os did. ios is the count of completed I/Os.
func (s *latSearch) check(now int64, ios uint64) latAction {
	if (now-s.start)/int64(time.Microsecond) < s.window {
		return latNone
	}
	n := ios - s.ios0
	ok := float64(n-s.failed)/float64(n)*100 >= s.pct // 0/0 is NaN: not met, as in fio
	if !ok {
		if a := s.lower(); a == latQuiesce {
			return a
		}
		return latNone // depth 1: fio keeps the window going
	}
	return s.raise(now, ios)
}

// raise is fio's lat_target_success: double the depth until one fails,
// then bisect below it; three successes one below the failing depth let
// that depth be tried again.
func (s *latSearch) raise(now int64, ios uint64) latAction {
	qd := s.qd
	s.low = s.qd
	if s.qd+1 == s.high {
		if s.stable++; s.stable >= 3 {
			s.high++
			s.stable = 0
		}
	}
	if s.high != s.maxQD {
		s.qd = (s.qd + s.high) / 2
	} else {
		s.qd *= 2
	}
	s.qd = min(s.qd, s.maxQD)
	act := latNone
	if !s.keep && s.qd == qd {
		if s.endRun {
			act = latDone
		} else {
			s.endRun = true
			act = latFinal
		}
	}
	if act != latFinal {
		s.newCycle(now, ios)
	}
	return act
}

// latAdmit decides whether slot si may issue a new I/O under
// latency_target: no more than the search's depth in flight (queued
// included), and none while a drain is under way; a refused slot waits in
// latIdle. When there is room, idle slots are woken to fill it.
func (l *loop) latAdmit(si uint32, now int64) bool {
	s := l.lat
	if !l.ramping && !l.latDrain {
		l.latApply(s.check(now, l.latIOs), now)
	}
	busy := l.inflight + l.pN
	if l.latDrain {
		if busy > 0 {
			l.latIdle = append(l.latIdle, si)
			return false
		}
		l.latDrain = false
		if l.latReset {
			l.latReset = false
			l.resetStats(now)
			if l.job.Runtime > 0 {
				// fio's reset_all_stats moves the epoch its runtime counts from.
				l.deadline = now + int64(l.job.Runtime)
			}
		}
		s.newCycle(now, l.latIOs)
	}
	if busy >= s.qd {
		l.latIdle = append(l.latIdle, si)
		return false
	}
	for room := s.qd - busy - 1; room > 0 && len(l.latIdle) > 0; room-- {
		n := len(l.latIdle) - 1
		l.q.AddHeavy(l.latIdle[n], now)
		l.latIdle = l.latIdle[:n]
	}
	return true
}

// latApply carries out a latSearch action.
func (l *loop) latApply(a latAction, now int64) {
	switch a {
	case latQuiesce:
		l.latDrain = true
	case latFinal:
		l.latDrain, l.latReset = true, true
	case latDone:
		l.stopIssue = true
	}
}

// latCompleted feeds one completed read, write or trim to the search; lat is
// its latency from submission (ns), which fio does not take with
// disable_lat. A miss at depth 1 with latency_percentile=100 fails the job
// with fio's ETIMEDOUT.
func (l *loop) latCompleted(s *slot, lat int64, now int64) {
	l.latIOs++
	if l.noLat {
		return
	}
	a := l.lat.completed(lat)
	if a != latFatal {
		l.latApply(a, now)
		return
	}
	if l.warn != nil && l.res.Error == 0 {
		name := l.slotPath(s)
		fmt.Fprintf(l.warn, "gofio: latency of %d nsec exceeds specified max (%d nsec): %s %s %d %d\n",
			lat, l.lat.target, name, s.dir, s.off-uint64(s.done), s.length)
	}
	l.setError(int(unix.ETIMEDOUT), "max latency exceeded", unix.ETIMEDOUT)
	l.stopIssue = true
}
