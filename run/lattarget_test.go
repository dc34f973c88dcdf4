package run

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/null"
	"github.com/gofio/gofio/jobfile"
)

// TestLatSearchSteps walks fio's depth search by hand: doubling while
// windows meet the target, bisecting after a miss, the final window at
// the settled depth, then done.
func TestLatSearchSteps(t *testing.T) {
	const us = int64(time.Microsecond)
	s := &latSearch{target: 100 * us, window: 1000, pct: 100, maxQD: 16}
	s.init(0, 0)
	now, ios := int64(0), uint64(0)
	// window runs one latency_window with n I/Os, each of latency lat,
	// and returns the action of the check that closes it.
	window := func(n int, lat int64) latAction {
		for i := 0; i < n; i++ {
			ios++
			if a := s.completed(lat); a != latNone {
				return a
			}
		}
		now += 1000 * us
		return s.check(now, ios)
	}
	if a := s.check(now+999*us, ios); a != latNone {
		t.Fatalf("check before the window ended: %v", a)
	}
	for _, want := range []int{2, 4, 8} {
		if a := window(10, 50*us); a != latNone || s.qd != want {
			t.Fatalf("after a good window: action %v, depth %d, want %d", a, s.qd, want)
		}
	}
	// A miss at 8 with latency_percentile=100 bisects at once: (8+4)/2.
	if a := window(10, 150*us); a != latQuiesce || s.qd != 6 || s.high != 8 || s.low != 4 {
		t.Fatalf("after a miss: action %v, qd %d (%d..%d), want quiesce at 6 (4..8)", a, s.qd, s.low, s.high)
	}
	s.newCycle(now, ios) // the loop does this once drained
	if a := window(10, 150*us); a != latQuiesce || s.qd != 5 {
		t.Fatalf("second miss: action %v, depth %d, want 5", a, s.qd)
	}
	s.newCycle(now, ios)
	if a := window(10, 150*us); a != latQuiesce || s.qd != 4 {
		t.Fatalf("third miss: action %v, depth %d, want 4", a, s.qd)
	}
	s.newCycle(now, ios)
	// 4 meets the target, one below the failing 5: the depth stays, so
	// the final window starts.
	if a := window(10, 50*us); a != latFinal || s.qd != 4 || !s.endRun {
		t.Fatalf("settled: action %v, depth %d, end run %v; want final at 4", a, s.qd, s.endRun)
	}
	s.newCycle(now, ios)
	if a := window(10, 50*us); a != latDone || s.qd != 4 {
		t.Fatalf("final window: action %v, depth %d; want done at 4", a, s.qd)
	}
}

// TestLatSearchPercentile: below 100, misses only count, and the window's
// share decides; a miss at depth 1 with 100 fails the job, while a
// failing window at depth 1 keeps it going.
func TestLatSearchPercentile(t *testing.T) {
	s := &latSearch{target: 10, window: 0, pct: 90, maxQD: 8}
	s.init(0, 0)
	for i := 0; i < 9; i++ {
		s.completed(5)
	}
	if a := s.completed(50); a != latNone || s.failed != 1 {
		t.Fatalf("a miss under 90%%: action %v, failed %d", a, s.failed)
	}
	if a := s.check(1000, 10); a != latNone || s.qd != 2 {
		t.Fatalf("9 of 10 within target meets 90%%: action %v, depth %d", a, s.qd)
	}
	for i := 0; i < 8; i++ {
		s.completed(50)
	}
	if a := s.check(2000, 20); a != latQuiesce || s.qd != 1 {
		t.Fatalf("2 of 10: action %v, depth %d; want quiesce at 1", a, s.qd)
	}
	s.newCycle(2000, 20)
	if a := s.check(3000, 20); a != latNone || s.qd != 1 {
		t.Fatalf("an empty window at depth 1: action %v, depth %d", a, s.qd)
	}
	s.pct = 100
	if a := s.completed(50); a != latFatal {
		t.Fatalf("a miss at depth 1 with 100%%: %v, want fatal", a)
	}
	// latency_run keeps searching: no final window.
	k := &latSearch{target: 10, pct: 100, maxQD: 2, keep: true}
	k.init(0, 0)
	for i := 0; i < 4; i++ {
		if a := k.check(int64(i+1)*1000, uint64(i+1)); a != latNone {
			t.Fatalf("latency_run: action %v", a)
		}
	}
	if k.qd != 2 {
		t.Errorf("latency_run: depth %d, want 2", k.qd)
	}
}

// depthEngine is the null engine whose completions arrive only on a
// blocking reap, all at once, after 100 us of fake time per I/O in flight:
// the deeper the queue, the slower each I/O. It records the deepest queue
// it saw.
type depthEngine struct {
	engines.Engine
	clock             *fakeClock
	inflight, deepest int
	depths            []int // the depth of each harvest
}

func (e *depthEngine) Submit() (int, error) {
	n, err := e.Engine.Submit()
	e.inflight += n
	e.deepest = max(e.deepest, e.inflight)
	return n, err
}

func (e *depthEngine) Reap(out []engines.Completion, min int) (int, error) {
	if min == 0 {
		return 0, nil
	}
	n, err := e.Engine.Reap(out, min)
	e.clock.t.Add(int64(n) * int64(100*time.Microsecond))
	e.depths = append(e.depths, n)
	e.inflight -= n
	return n, err
}

// TestLatencyTargetFindsDepth runs the search on an engine where depth d
// takes d*100 us: a 450 us target settles on depth 4 of 16, the loop
// really runs 8 deep while it searches and no deeper than 4 in its final
// window, and the job ends there, long before its runtime.
func TestLatencyTargetFindsDepth(t *testing.T) {
	clock := &fakeClock{step: 1}
	var eng *depthEngine
	engs := map[string]engines.Opener{"depth": func(s engines.Setup) (engines.Engine, error) {
		e, err := null.Open(s)
		eng = &depthEngine{Engine: e, clock: clock}
		return eng, err
	}}
	j := testJob(t.TempDir(), "lat", jobfile.RWRandRead, "depth")
	setDepth(j, 16)
	j.Size = 64 << 20
	j.TimeBased = true
	j.Runtime = 10 * time.Second
	// Percentile 99: with 100, as in fio, every I/O of the first harvest
	// 8 deep would lower the depth once more, down to a failure at 1.
	j.LatencyTarget = jobfile.LatencyTarget{Target: 450 * time.Microsecond, Window: 10 * time.Millisecond, Percentile: 99}
	opts := clock.opts()
	opts.Engines = engs
	var warn strings.Builder
	opts.Warn = &warn
	res, err := Run(context.Background(), []*jobfile.Job{j}, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Jobs[0]
	if warn.Len() > 0 {
		t.Log(warn.String())
	}
	if r.Error != 0 || r.LatencyDepth != 4 {
		t.Fatalf("error %d (%s), latency depth %d; want 0 and 4", r.Error, r.ErrorText, r.LatencyDepth)
	}
	if eng.deepest != 8 {
		t.Errorf("deepest queue %d, want 8 (the search tried 8)", eng.deepest)
	}
	if last := eng.depths[len(eng.depths)-1]; last > 4 {
		t.Errorf("last harvest %d deep, want at most 4", last)
	}
	if r.Elapsed >= j.Runtime {
		t.Errorf("elapsed %v: the job did not end at the settled depth", r.Elapsed)
	}
	// The final window's statistics only: every I/O at depth 4, about
	// 10 ms / 400 us harvests of 4.
	ios := r.Dirs[0].TotalIOs
	if ios < 80 || ios > 120 || r.Dirs[0].Lat.Max > uint64(450*time.Microsecond) {
		t.Errorf("final window: %d I/Os, max latency %d ns; want about 100, all within the target", ios, r.Dirs[0].Lat.Max)
	}
}

// TestLatencyTargetMissAtDepthOne: with latency_percentile=100 an I/O over
// the target at depth 1 fails the job with fio's ETIMEDOUT.
func TestLatencyTargetMissAtDepthOne(t *testing.T) {
	clock := &fakeClock{step: 1}
	engs := map[string]engines.Opener{"depth": func(s engines.Setup) (engines.Engine, error) {
		e, err := null.Open(s)
		return &depthEngine{Engine: e, clock: clock}, err
	}}
	j := testJob(t.TempDir(), "lat", jobfile.RWRandRead, "depth")
	setDepth(j, 4)
	j.LatencyTarget = jobfile.LatencyTarget{Target: 50 * time.Microsecond, Window: time.Millisecond, Percentile: 100}
	opts := clock.opts()
	opts.Engines = engs
	res, err := Run(context.Background(), []*jobfile.Job{j}, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Jobs[0]
	if r.Error != 110 || r.ErrorText != "func=max latency exceeded, error=Connection timed out" || r.LatencyDepth != 1 {
		t.Errorf("error %d %q, depth %d; want 110, fio's text, depth 1", r.Error, r.ErrorText, r.LatencyDepth)
	}
}
