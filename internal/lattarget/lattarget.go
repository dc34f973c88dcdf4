package lattarget

import (
	"time"

	"github.com/gofio/gofio/jobfile"
)

// Search is fio's latency_target depth search (io_u.c lat_target_*):
// the job starts at depth 1 and, every latency_window, doubles the depth
// while latency_percentile percent of the window's I/Os completed within
// latency_target, then bisects between the last depth that met the target
// and the first that did not. When a window keeps the depth where it was,
// the depth has settled: one more window runs at it, with the statistics
// reset, and the job ends (unless latency_run keeps it searching).
//
// Search is pure: the loop passes the time and its count of completed
// I/Os, and applies the action each call returns.
type Search struct {
	Target int64   // latency_target (ns)
	window int64   // latency_window (us, as fio compares it)
	pct    float64 // latency_percentile
	keep   bool    // latency_run
	maxQD  int     // iodepth

	QD, low, high int
	stable        int    // successes in a row one below high
	failed        uint64 // I/Os over the target in this window
	ios0          uint64 // completed I/Os when the window started (latency_ios)
	start         int64  // when the window started (latency_ts)
	endRun        bool   // the final window at the settled depth runs
}

// Action is what the loop does after a Search step.
type Action uint8

const (
	None    Action = iota
	Quiesce        // drain every I/O in flight, then start a new window
	Final          // drain, reset the statistics, then start the final window
	Done           // the final window met the target: the job ends
	Fatal          // an I/O at depth 1 missed the target (latency_percentile=100): the job fails
)

// New returns the search for job j with iodepth maxQD, or nil
// without latency_target.
func New(j *jobfile.Job, maxQD int) *Search {
	lt := j.LatencyTarget
	if !lt.On() {
		return nil
	}
	return &Search{Target: int64(lt.Target), window: lt.Window.Microseconds(), pct: lt.Percentile, keep: lt.Run, maxQD: maxQD}
}

// Init is fio's lat_target_init: back to depth 1, a new window from now.
func (s *Search) Init(now int64, ios uint64) {
	s.endRun = false
	s.QD, s.high, s.low = 1, s.maxQD, 1
	s.start, s.ios0 = now, ios
}

// Reset is fio's lat_target_reset (at the end of ramp_time): a new search
// unless the final window runs.
func (s *Search) Reset(now int64, ios uint64) {
	if !s.endRun {
		s.Init(now, ios)
	}
}

// NewCycle is fio's lat_new_cycle: a new window from now.
func (s *Search) NewCycle(now int64, ios uint64) {
	s.start, s.ios0, s.failed = now, ios, 0
}

// Completed takes the latency (ns, submission to completion) of one read
// or write, as fio's account_io_completion: over the target, it counts as
// failed, or with latency_percentile=100 lowers the depth at once (or,
// at depth 1, fails the job).
func (s *Search) Completed(lat int64) Action {
	if lat <= s.Target {
		return None
	}
	if s.pct == 100 {
		return s.lower()
	}
	s.failed++
	return None
}

// lower is fio's __lat_target_failed: bisect down between low and the
// depth that failed, and drain before the new window.
func (s *Search) lower() Action {
	if s.QD == 1 {
		return Fatal
	}
	s.high = s.QD
	if s.QD == s.low {
		s.low--
	}
	s.QD = (s.QD + s.low) / 2
	s.stable = 0
	return Quiesce
}

// Check is fio's lat_target_check, run between I/Os: once the window has
// lasted latency_window, it met the target when latency_percentile
// percent of its I/Os did. ios is the count of completed I/Os.
func (s *Search) Check(now int64, ios uint64) Action {
	if (now-s.start)/int64(time.Microsecond) < s.window {
		return None
	}
	n := ios - s.ios0
	ok := float64(n-s.failed)/float64(n)*100 >= s.pct // 0/0 is NaN: not met, as in fio
	if !ok {
		if a := s.lower(); a == Quiesce {
			return a
		}
		return None // depth 1: fio keeps the window going
	}
	return s.raise(now, ios)
}

// raise is fio's lat_target_success: double the depth until one fails,
// then bisect below it; three successes one below the failing depth let
// that depth be tried again.
func (s *Search) raise(now int64, ios uint64) Action {
	qd := s.QD
	s.low = s.QD
	if s.QD+1 == s.high {
		if s.stable++; s.stable >= 3 {
			s.high++
			s.stable = 0
		}
	}
	if s.high != s.maxQD {
		s.QD = (s.QD + s.high) / 2
	} else {
		s.QD *= 2
	}
	s.QD = min(s.QD, s.maxQD)
	act := None
	if !s.keep && s.QD == qd {
		if s.endRun {
			act = Done
		} else {
			s.endRun = true
			act = Final
		}
	}
	if act != Final {
		s.NewCycle(now, ios)
	}
	return act
}
