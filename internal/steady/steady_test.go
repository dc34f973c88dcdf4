package steady

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/gofio/gofio/jobfile"
)

func cfg(iops, slope, pct bool, limit float64, secs int) jobfile.SteadyState {
	return jobfile.SteadyState{IOPS: iops, Slope: slope, Pct: pct, Limit: limit, Duration: time.Duration(secs) * time.Second}
}

// TestSlopeConstant: a flat rate has slope 0 and attains iops_slope as soon
// as the window is full, not before.
func TestSlopeConstant(t *testing.T) {
	w := NewWindow(cfg(true, true, true, 0.01, 5))
	for i := 1; i <= 5; i++ {
		got := w.Add(1000, 4096000, 0)
		if got != (i == 5) {
			t.Fatalf("sample %d: attained %v", i, got)
		}
	}
	r := w.Result()
	if !r.Attained || r.Slope != 0 || r.Criterion != 0 || r.IOPSMean() != 1000 || r.BWMean() != 4096000 {
		t.Errorf("result %+v", r)
	}
}

// TestSlopeLinear: a rate rising by 10 IOPS a second has slope 10 in every
// window as the window slides, and its criterion is 100*slope/mean with
// fio's integer mean.
func TestSlopeLinear(t *testing.T) {
	w := NewWindow(cfg(true, true, true, 1, 4))
	for i := 0; i < 9; i++ {
		if w.Add(uint64(100+10*i), 0, 0) {
			t.Fatalf("sample %d attained", i)
		}
		if i < 3 {
			continue
		}
		if math.Abs(w.slope-10) > 1e-9 {
			t.Fatalf("sample %d: slope %v, want 10", i, w.slope)
		}
		mean := uint64(0)
		for k := i - 3; k <= i; k++ {
			mean += uint64(100 + 10*k)
		}
		mean /= 4
		if want := 100 * 10 / float64(mean); math.Abs(w.criterion-want) > 1e-9 {
			t.Fatalf("sample %d: criterion %v, want %v", i, w.criterion, want)
		}
	}
	// A falling rate: the criterion is negative, its size is compared.
	w = NewWindow(cfg(false, true, false, 3, 3))
	for i, want := range []bool{false, false, true} {
		if got := w.Add(0, uint64(1000-2*i), 0); got != want {
			t.Fatalf("bw sample %d: %v, want %v", i, got, want)
		}
	}
	if w.slope != -2 || w.criterion != -2 {
		t.Errorf("slope %v, criterion %v, want -2", w.slope, w.criterion)
	}
}

// TestDeviation checks the mean-deviation criterion, in percent and in
// absolute units, and fio's JSON order of a full, sliding window.
func TestDeviation(t *testing.T) {
	w := NewWindow(cfg(true, false, true, 10, 5))
	for _, v := range []uint64{100, 100, 100, 100} {
		if w.Add(v, 0, 0) {
			t.Fatal("attained before the window is full")
		}
	}
	if !w.Add(110, 0, 0) {
		t.Fatalf("deviation 8 of mean 102 is under 10%%: criterion %v", w.criterion)
	}
	if w.deviation != 8 || math.Abs(w.criterion-800.0/102) > 1e-12 {
		t.Errorf("deviation %v, criterion %v", w.deviation, w.criterion)
	}

	w = NewWindow(cfg(false, false, false, 0, 3)) // never attained
	for _, v := range []uint64{1, 2, 3, 4, 5} {
		w.Add(v*10, v*1000, 0)
	}
	r := w.Result()
	if r.Attained || !reflect.DeepEqual(r.BW, []uint64{3000, 4000, 5000}) || !reflect.DeepEqual(r.IOPSData, []uint64{30, 40, 50}) {
		t.Errorf("window %v / %v, want the last three samples oldest first", r.BW, r.IOPSData)
	}
	if r.Deviation != 1000 || r.BWMean() != 4000 {
		t.Errorf("deviation %v, bw mean %d", r.Deviation, r.BWMean())
	}

	// Not full: head is the oldest, the empty samples come last.
	w = NewWindow(cfg(true, false, false, 5, 4))
	w.Add(7, 70, 0)
	w.Add(8, 80, 0)
	if r := w.Result(); !reflect.DeepEqual(r.IOPSData, []uint64{7, 8, 0, 0}) || r.IOPSMean() != 3 {
		t.Errorf("partial window %v, mean %d", r.IOPSData, r.IOPSMean())
	}
}

// TestGroupTick checks the once-a-second sampling: integer rates over the
// milliseconds since the last tick, nothing until steadystate_ramp_time
// plus one second has passed, the group's rates summed, and a stopped job
// left out.
func TestGroupTick(t *testing.T) {
	const s = int64(time.Second)
	c := cfg(true, false, false, 1, 2)
	c.Ramp = 2 * time.Second
	g := NewGroup(c, []int64{10 * s, 10 * s})
	tick := func(now int64, ios0, ios1 uint64, run1 bool) bool {
		return g.Tick(now, []Counters{{IOs: ios0, Bytes: ios0 * 4096, Running: true}, {IOs: ios1, Bytes: ios1 * 512, Running: run1}})
	}
	for i, now := range []int64{11 * s, 12 * s} {
		if tick(now, uint64(i+1)*100, uint64(i+1)*50, true) {
			t.Fatal("attained during the ramp")
		}
	}
	if g.win.tail != 0 || g.win.iops[0] != 0 {
		t.Fatalf("a sample was taken during the ramp: %v", g.win.iops)
	}
	// 13 s: ramp (2 s) + 1 s is over; 1500 ms since the last tick.
	tick(13*s+s/2, 400, 125, true)
	if got, want := g.win.iops[0], uint64(1000*(400-200)/1500+1000*(125-100)/1500); got != want {
		t.Errorf("iops sample %d, want %d", got, want)
	}
	if got, want := g.win.bw[0], uint64(1000*(200*4096)/1500+1000*(25*512)/1500); got != want {
		t.Errorf("bw sample %d, want %d", got, want)
	}
	// The last job (the window's holder) stopped: no sample.
	if tick(14*s+s/2, 500, 125, false) || g.win.tail != 1 {
		t.Errorf("sample taken with the window's job stopped (tail %d)", g.win.tail)
	}
}

// TestGroupCounterReset: counters that went back to zero (the job's
// ramp_time ended) count from zero instead of wrapping.
func TestGroupCounterReset(t *testing.T) {
	g := NewGroup(cfg(true, false, false, 1e9, 2), []int64{0})
	g.Tick(int64(time.Second), []Counters{{IOs: 1000, Bytes: 1000, Running: true}})
	g.Tick(2*int64(time.Second), []Counters{{IOs: 10, Bytes: 10, Running: true}})
	if g.win.iops[1] != 10 {
		t.Errorf("sample after reset %d, want 10", g.win.iops[1])
	}
}

// TestGroupEpochs: steadystate_ramp_time counts from each job's own epoch
// (fio moves it to the end of the job's ramp_time), so a job whose epoch
// is later joins the samples later.
func TestGroupEpochs(t *testing.T) {
	const s = int64(time.Second)
	c := cfg(true, false, false, 0, 3)
	c.Ramp = time.Second
	g := NewGroup(c, []int64{0, 3 * s})
	for i := int64(1); i <= 3; i++ {
		g.Tick(i*s, []Counters{{IOs: uint64(i) * 10, Running: true}, {IOs: uint64(i) * 1000, Running: true}})
	}
	// Tick 1: neither is past ramp + 1 s; ticks 2 and 3: only the first.
	if got := g.win.iops[:2]; got[0] != 10 || got[1] != 10 {
		t.Errorf("samples %v, want [10 10] (the second job still ramping)", got)
	}
}

// TestNoNaN checks the windows where fio divides by zero: a one-second
// slope window and a percentage of a zero mean. fio's NaN (or infinity)
// is never below the limit, so steady state is not attained; gofio keeps
// every reported figure finite, since JSON has no NaN (a NaN here once
// made the state JSON fail).
func TestNoNaN(t *testing.T) {
	for _, c := range []struct {
		name    string
		cfg     jobfile.SteadyState
		samples []uint64
	}{
		{"slope over one second", cfg(true, true, false, 1e12, 1), []uint64{5, 5}},
		{"slope percent of a zero mean", cfg(true, true, true, 1e12, 2), []uint64{0, 0, 0}},
		{"deviation percent of a zero mean", cfg(false, false, true, 1e12, 1), []uint64{0, 0}},
	} {
		w := NewWindow(c.cfg)
		for _, v := range c.samples {
			if w.Add(v, v, 0) {
				t.Errorf("%s: attained, where fio's NaN never is", c.name)
			}
		}
		r := w.Result()
		for _, f := range []float64{r.Slope, r.Deviation, r.Criterion, w.criterion, w.slope} {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				t.Errorf("%s: a figure is %v", c.name, f)
			}
		}
	}
}

// TestLatInterval checks fio 3.42's steady state: a check interval of 2 s
// over a duration of 6 s gives a window of 3 samples, the ramp ends one
// interval after steadystate_ramp_time, and the lat criterion judges the
// mean completion latency of each period, the group's latency sum over
// its samples, truncated to whole nanoseconds as fio's lat_data.
func TestLatInterval(t *testing.T) {
	const s = int64(time.Second)
	c := jobfile.SteadyState{Lat: true, Pct: true, Limit: 10, Duration: 6 * time.Second, Interval: 2 * time.Second, IntervalSet: true, Ramp: time.Second}
	if c.Samples() != 3 || Period(c) != 2*time.Second {
		t.Fatalf("samples %d, period %v; want 3 and 2s", c.Samples(), Period(c))
	}
	g := NewGroup(c, []int64{0, 0})
	var sum0, sum1 float64
	var n0, n1 uint64
	tick := func(now int64, lat0, lat1 float64, k0, k1 uint64) bool {
		sum0, n0, sum1, n1 = sum0+lat0*float64(k0), n0+k0, sum1+lat1*float64(k1), n1+k1
		return g.Tick(now, []Counters{{IOs: n0, ClatSum: sum0, ClatN: n0, Running: true}, {IOs: n1, ClatSum: sum1, ClatN: n1, Running: true}})
	}
	if tick(2*s, 1000, 3000, 10, 10) || g.win.tail != 0 {
		t.Fatal("a sample at 2 s: the ramp ends one interval after steadystate_ramp_time, at 3 s")
	}
	// 1000 I/Os at 1000.5 ns and 3000 at 2000 ns: (1000500+6000000)/4000.
	tick(4*s, 1000.5, 2000, 1000, 3000)
	if got := g.win.lat[0]; got != 1750 {
		t.Errorf("lat sample %d, want 1750 (the group's mean, truncated)", got)
	}
	tick(6*s, 1900, 1600, 1000, 1000)
	if tick(8*s, 1750, 1750, 500, 500) != true {
		t.Errorf("not attained: samples %v, criterion %.3f%% (deviations under 10%% of the mean)", g.win.lat, g.win.criterion)
	}
	r := g.win.Result()
	if r.Duration != 6 || !r.Lat || !reflect.DeepEqual(r.LatData, []uint64{1750, 1750, 1750}) || r.LatMean() != 1750 {
		t.Errorf("result duration %d lat %v %v mean %d; want 6 s and three samples of 1750", r.Duration, r.Lat, r.LatData, r.LatMean())
	}
	if got := (jobfile.SteadyState{IOPS: true, Duration: 3 * time.Second, Interval: time.Second}).Samples(); got != 3 {
		t.Errorf("fio 3.33's window: %d samples, want 3", got)
	}
}
