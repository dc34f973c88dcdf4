package lattarget

import (
	"testing"
	"time"
)

// TestLatSearchSteps walks fio's depth search by hand: doubling while
// windows meet the target, bisecting after a miss, the final window at
// the settled depth, then done.
func TestLatSearchSteps(t *testing.T) {
	const us = int64(time.Microsecond)
	s := &Search{Target: 100 * us, window: 1000, pct: 100, maxQD: 16}
	s.Init(0, 0)
	now, ios := int64(0), uint64(0)
	// window runs one latency_window with n I/Os, each of latency lat,
	// and returns the action of the check that closes it.
	window := func(n int, lat int64) Action {
		for i := 0; i < n; i++ {
			ios++
			if a := s.Completed(lat); a != None {
				return a
			}
		}
		now += 1000 * us
		return s.Check(now, ios)
	}
	if a := s.Check(now+999*us, ios); a != None {
		t.Fatalf("check before the window ended: %v", a)
	}
	for _, want := range []int{2, 4, 8} {
		if a := window(10, 50*us); a != None || s.QD != want {
			t.Fatalf("after a good window: action %v, depth %d, want %d", a, s.QD, want)
		}
	}
	// A miss at 8 with latency_percentile=100 bisects at once: (8+4)/2.
	if a := window(10, 150*us); a != Quiesce || s.QD != 6 || s.high != 8 || s.low != 4 {
		t.Fatalf("after a miss: action %v, qd %d (%d..%d), want quiesce at 6 (4..8)", a, s.QD, s.low, s.high)
	}
	s.NewCycle(now, ios) // the loop does this once drained
	if a := window(10, 150*us); a != Quiesce || s.QD != 5 {
		t.Fatalf("second miss: action %v, depth %d, want 5", a, s.QD)
	}
	s.NewCycle(now, ios)
	if a := window(10, 150*us); a != Quiesce || s.QD != 4 {
		t.Fatalf("third miss: action %v, depth %d, want 4", a, s.QD)
	}
	s.NewCycle(now, ios)
	// 4 meets the target, one below the failing 5: the depth stays, so
	// the final window starts.
	if a := window(10, 50*us); a != Final || s.QD != 4 || !s.endRun {
		t.Fatalf("settled: action %v, depth %d, end run %v; want final at 4", a, s.QD, s.endRun)
	}
	s.NewCycle(now, ios)
	if a := window(10, 50*us); a != Done || s.QD != 4 {
		t.Fatalf("final window: action %v, depth %d; want done at 4", a, s.QD)
	}
}

// TestLatSearchPercentile: below 100, misses only count, and the window's
// share decides; a miss at depth 1 with 100 fails the job, while a
// failing window at depth 1 keeps it going.
func TestLatSearchPercentile(t *testing.T) {
	s := &Search{Target: 10, window: 0, pct: 90, maxQD: 8}
	s.Init(0, 0)
	for i := 0; i < 9; i++ {
		s.Completed(5)
	}
	if a := s.Completed(50); a != None || s.failed != 1 {
		t.Fatalf("a miss under 90%%: action %v, failed %d", a, s.failed)
	}
	if a := s.Check(1000, 10); a != None || s.QD != 2 {
		t.Fatalf("9 of 10 within target meets 90%%: action %v, depth %d", a, s.QD)
	}
	for i := 0; i < 8; i++ {
		s.Completed(50)
	}
	if a := s.Check(2000, 20); a != Quiesce || s.QD != 1 {
		t.Fatalf("2 of 10: action %v, depth %d; want quiesce at 1", a, s.QD)
	}
	s.NewCycle(2000, 20)
	if a := s.Check(3000, 20); a != None || s.QD != 1 {
		t.Fatalf("an empty window at depth 1: action %v, depth %d", a, s.QD)
	}
	s.pct = 100
	if a := s.Completed(50); a != Fatal {
		t.Fatalf("a miss at depth 1 with 100%%: %v, want fatal", a)
	}
	// latency_run keeps searching: no final window.
	k := &Search{Target: 10, pct: 100, maxQD: 2, keep: true}
	k.Init(0, 0)
	for i := 0; i < 4; i++ {
		if a := k.Check(int64(i+1)*1000, uint64(i+1)); a != None {
			t.Fatalf("latency_run: action %v", a)
		}
	}
	if k.QD != 2 {
		t.Errorf("latency_run: depth %d, want 2", k.QD)
	}
}
