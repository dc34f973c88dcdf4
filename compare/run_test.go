package compare

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofio/gofio/internal/fiostat"
	"github.com/gofio/gofio/internal/kstage"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// fakeRun is a RunFunc that makes up a result from the --set overrides:
// the job reads at iodepth D with latencies i*D µs for i = 1..100 (so the
// mean is 50.5*D µs, p50 50*D and p99 99*D), plus slow µs per sample for
// the FIFO policy and for ioengine=slowengine, plus drift µs per call so the order of runs shows.
type fakeRun struct {
	slow, drift float64
	noLat       bool // record only clat, as with disable_lat=1
	calls       [][]string
	failAt      int // 1-based call that fails; 0 never
	signalAt    int // 1-based call whose result is interrupted
	policy      string
	// sameSchedule gives both policies the same tw waits.
	sameSchedule bool
	// sq is what plays the SQ thread: report.SQGoroutine for the
	// priority side, report.SQKernel for FIFO, when set.
	sq bool
	// kstages gives every job kernel stages: 100 joined I/Os, the kernel's
	// tw wait 2 µs under priority and 6 µs under FIFO, the other stages
	// 1, 2, 3, 40 and 5 µs; unavailable on the run numbered unavailAt.
	kstages   bool
	unavailAt int
}

func (f *fakeRun) run(_ context.Context, sets []string) (*report.Result, error) {
	f.calls = append(f.calls, append([]string(nil), sets...))
	n := len(f.calls)
	if n == f.failAt {
		return nil, errors.New("no such file")
	}
	job := &jobfile.Job{RW: jobfile.RWRandRead, IOEngine: "io_uring", IODepth: 4, NumJobs: 1, TWPriority: true}
	job.BS = [jobfile.NumDirs]uint64{4096, 4096, 4096}
	for _, s := range sets {
		k, v, _ := strings.Cut(s, "=")
		switch k {
		case "iodepth":
			job.IODepth, _ = strconv.Atoi(v)
		case "tw_priority":
			job.TWPriority = v == "1"
		case "ioengine":
			job.IOEngine = v
		}
	}
	extra := f.drift * float64(n)
	if !job.TWPriority || job.IOEngine == "slowengine" {
		extra += f.slow
	}
	jr := &report.JobResult{Job: job, Name: "fake", Policy: f.policy}
	if f.sq {
		jr.SQThread = report.SQKernel
		if job.TWPriority {
			jr.SQThread = report.SQGoroutine
		}
	}
	ds := &jr.Dirs[jobfile.DirRead]
	for i := 1; i <= 100; i++ {
		ns := uint64((float64(i*job.IODepth) + extra) * 1000)
		if !f.noLat {
			ds.Lat.Add(ns)
			ds.LatHist.Add(ns)
		}
		ds.Clat.Add(ns / 2)
		ds.ClatHist.Add(ns / 2)
	}
	ds.TotalIOs = 100
	ds.Runtime = 50 * time.Millisecond
	// tw wait: i µs under priority, 3i µs under FIFO (mean 50.5 / 151.5,
	// p99 99 / 297), unless the fake runs the same schedule for both.
	for i := 1; i <= 100; i++ {
		w := uint64(i * 1000)
		if !job.TWPriority && !f.sameSchedule {
			w *= 3
		}
		jr.TWWait.Add(w)
		jr.TWWaitHist.Add(w)
	}
	if f.kstages {
		k := &kstage.KernelStages{Available: n != f.unavailAt, Traced: 101}
		if !k.Available {
			k.Reason, k.Traced = "no tracefs", 0
		} else {
			tw := uint64(2000)
			if !job.TWPriority {
				tw = 6000
			}
			for range 100 {
				k.Add(&[kstage.NumStages]uint64{1000, 2000, 3000, 40000, tw, 5000})
			}
			k.Unjoined[kstage.LossIOWQ] = 1
		}
		jr.KernelStages = k
	}
	res := &report.Result{Version: "gofio-test", Kernel: "6.18.0-test", Jobs: []*report.JobResult{jr}}
	if n == f.signalAt {
		res.Signal = "interrupt"
	}
	return res, nil
}

// histUs is the value fio reports for a sample of us µs.
func histUs(us float64) float64 {
	return float64(fiostat.HistValue(fiostat.HistIndex(uint64(us*1000)))) / 1000
}

func TestRunCompare(t *testing.T) {
	sw, err := ParseSweep("iodepth=1,8")
	if err != nil {
		t.Fatal(err)
	}
	points := Plan([]Sweep{sw}, &DefaultAB, 2)
	f := &fakeRun{slow: 0.5}
	var seen []int
	c, err := Run(context.Background(), points, &DefaultAB, f.run, func(p Point, r *report.Result) {
		seen = append(seen, p.Index)
		if r == nil {
			t.Error("onResult got a nil result")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// Every point ran once, in plan order, with its sets.
	if len(f.calls) != len(points) || len(seen) != len(points) {
		t.Fatalf("%d runs, %d results, want %d", len(f.calls), len(seen), len(points))
	}
	for i, p := range points {
		if strings.Join(f.calls[i], " ") != strings.Join(p.Sets, " ") || seen[i] != i {
			t.Errorf("run %d got sets %v, want %v", i, f.calls[i], p.Sets)
		}
	}
	if c.Key != "iodepth" || !c.Compared || c.Repeat != 2 || c.Metric != "lat" {
		t.Errorf("comparison header: %+v", c)
	}
	if c.RW != "randread" || c.BS != "4k" || c.Engine != "io_uring" || c.SQPoll != "0" ||
		c.Version != "gofio-test" || c.Kernel != "6.18.0-test" {
		t.Errorf("title: rw=%s bs=%s engine=%s sqpoll=%s version=%s kernel=%s",
			c.RW, c.BS, c.Engine, c.SQPoll, c.Version, c.Kernel)
	}
	if len(c.Rows) != 2 {
		t.Fatalf("%d rows, want 2", len(c.Rows))
	}
	for i, d := range []float64{1, 8} {
		r := c.Rows[i]
		if r.Value != sw.Values[i] || r.X != d {
			t.Errorf("row %d: value %q x %v", i, r.Value, r.X)
		}
		for _, s := range []struct {
			side  *report.ComparisonSide
			extra float64
		}{{&r.New, 0}, {&r.Old, 0.5}} {
			if len(s.side.Repeats) != 2 {
				t.Fatalf("row %d %s: %d repeats, want 2", i, s.side.Name, len(s.side.Repeats))
			}
			for k, rep := range s.side.Repeats {
				if rep.Repeat != k {
					t.Errorf("row %d %s: repeat %d has index %d", i, s.side.Name, k, rep.Repeat)
				}
			}
			if want := 50.5*d + s.extra; math.Abs(s.side.AvgLatUs-want) > 1e-6 {
				t.Errorf("row %d %s: avg %v, want %v", i, s.side.Name, s.side.AvgLatUs, want)
			}
			if want := histUs(50*d + s.extra); s.side.P50Us != want {
				t.Errorf("row %d %s: p50 %v, want %v", i, s.side.Name, s.side.P50Us, want)
			}
			if want := histUs(99*d + s.extra); s.side.P99Us != want {
				t.Errorf("row %d %s: p99 %v, want %v", i, s.side.Name, s.side.P99Us, want)
			}
			if s.side.IOPS != 2000 {
				t.Errorf("row %d %s: IOPS %v, want 2000", i, s.side.Name, s.side.IOPS)
			}
		}
		if r.Stats != nil {
			t.Errorf("row %d has statistics before Judge", i)
		}
	}
	if c.New.Name != "priority" || c.Old.Label() != "fifo (tw_priority=0)" || c.Rows[0].Old.Name != "fifo" {
		t.Errorf("sides %+v %+v", c.New, c.Old)
	}
	// Two repeats a side: a 0.5 µs gap with no spread is still too few
	// repeats to call.
	Judge(c, report.GateAvg)
	if r := c.Rows[0]; r.Stats == nil || r.Stats.Verdict != report.VerdictTooFew ||
		math.Abs(r.Stats.DeltaPct-(-0.5/51*100)) > 1e-9 {
		t.Errorf("depth 1: stats %+v", r.Stats)
	}
}

// TestRunCompareAnyOption compares on ioengine: the sides are named by
// value, and with five repeats the slower engine is found slower.
func TestRunCompareAnyOption(t *testing.T) {
	ab := &AB{Key: "ioengine", New: "slowengine", Old: "io_uring"}
	f := &fakeRun{slow: 10}
	c, err := Run(context.Background(), Plan(nil, ab, 5), ab, f.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Engine != "slowengine vs io_uring" || c.New.Label() != "ioengine=slowengine" || c.Old.Label() != "ioengine=io_uring" {
		t.Errorf("title engine %q sides %q %q", c.Engine, c.New.Label(), c.Old.Label())
	}
	Judge(c, "")
	if s := c.Rows[0].Stats; s == nil || s.Verdict != report.VerdictSlower || !s.SlowerBeyond(3) || s.SlowerBeyond(5) {
		t.Errorf("stats %+v: want slower, beyond 3%% (10/202 µs = 4.95%%) and not beyond 5%%", s)
	}
}

// TestRunDriftIsNoise shows why the order alternates: a drift that adds
// time to every later run spreads both sides' repeats across the same
// range, so an A/A comparison under drift finds no difference.
func TestRunDriftIsNoise(t *testing.T) {
	ab := &AB{Key: "tw_priority", New: "1", Old: "1"}
	points := Plan(nil, ab, 6)
	f := &fakeRun{drift: 0.2}
	c, err := Run(context.Background(), points, ab, f.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	Judge(c, "")
	r := c.Rows[0]
	if r.Stats == nil || r.Stats.P < 0.5 || r.Stats.LoPct > 0 || r.Stats.HiPct < 0 {
		t.Errorf("equal sides under drift: stats %+v, want no difference", r.Stats)
	}
	// Both sides ran one policy, so the same schedule: no result.
	if v := c.RowVerdict(&r); v != report.VerdictNoResult {
		t.Errorf("A/A of one policy reads %q, want no result", v)
	}
	if math.Abs(r.New.AvgLatUs-r.Old.AvgLatUs) > 1e-3 {
		t.Errorf("alternation should cancel the drift: new %v old %v", r.New.AvgLatUs, r.Old.AvgLatUs)
	}
	// Nothing swept: the row is the job's iodepth.
	if c.Key != "iodepth" || r.Value != "4" || r.X != 4 {
		t.Errorf("unswept row: key %q value %q x %v", c.Key, r.Value, r.X)
	}
}

func TestRunClatFallback(t *testing.T) {
	f := &fakeRun{noLat: true}
	c, err := Run(context.Background(), Plan(nil, &DefaultAB, 1), &DefaultAB, f.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Metric != "clat" {
		t.Errorf("metric %q, want clat", c.Metric)
	}
	if got, want := c.Rows[0].New.AvgLatUs, 50.5*4/2; math.Abs(got-want) > 1e-3 {
		t.Errorf("clat avg %v, want %v", got, want)
	}
	if c.Rows[0].New.P99Us == 0 {
		t.Error("clat p99 is 0: the clat histogram was not used")
	}
}

func TestRunSweepWithoutCompare(t *testing.T) {
	sw, _ := ParseSweep("iodepth=2,4")
	for _, tt := range []struct {
		policy string
		fifo   bool
	}{
		{report.PolicyFIFO, true},      // the job ran with tw_priority=0
		{report.PolicyPriority, false}, // the default
		{"", false},                    // engines without a policy count as priority
	} {
		f := &fakeRun{policy: tt.policy}
		c, err := Run(context.Background(), Plan([]Sweep{sw}, nil, 1), nil, f.run, nil)
		if err != nil {
			t.Fatal(err)
		}
		Judge(c, "")
		if c.Compared {
			t.Error("Compared without --compare")
		}
		want := report.PolicyPriority
		if tt.fifo {
			want = report.PolicyFIFO
		}
		if c.New.Name != want {
			t.Errorf("policy %q: side named %q, want %q", tt.policy, c.New.Name, want)
		}
		for _, r := range c.Rows {
			if !r.New.Ran() || r.Old.Ran() || r.Stats != nil {
				t.Errorf("policy %q: new ran %v, old ran %v, stats %v", tt.policy, r.New.Ran(), r.Old.Ran(), r.Stats)
			}
		}
	}
}

func TestRunStops(t *testing.T) {
	sw, _ := ParseSweep("iodepth=1..4")
	points := Plan([]Sweep{sw}, &DefaultAB, 1) // 6 runs
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		ctx      context.Context
		f        *fakeRun
		calls    int    // runs made
		measured int    // runs in the comparison
		want     string // in the error
		interr   bool
	}{
		// The third run fails: two measured, the error names the point.
		{"run error", context.Background(), &fakeRun{failAt: 3}, 3, 2, "iodepth=2 tw_priority=1: no such file", false},
		// The fourth run is interrupted: three measured, not the fourth.
		{"signal", context.Background(), &fakeRun{signalAt: 4}, 4, 3, "interrupted by interrupt", true},
		// Cancelled before the first run: nothing runs.
		{"cancelled", cancelled, &fakeRun{}, 0, 0, "context canceled", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Run(tt.ctx, points, &DefaultAB, tt.f.run, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if errors.Is(err, ErrInterrupted) != tt.interr {
				t.Errorf("errors.Is(err, ErrInterrupted) = %v", !tt.interr)
			}
			if c == nil {
				t.Fatal("no partial comparison")
			}
			if len(tt.f.calls) != tt.calls {
				t.Errorf("%d runs, want %d", len(tt.f.calls), tt.calls)
			}
			n := 0
			for _, r := range c.Rows {
				n += len(r.New.Repeats) + len(r.Old.Repeats)
			}
			if n != tt.measured {
				t.Errorf("%d runs measured, want %d", n, tt.measured)
			}
		})
	}
}

func TestRunTitleSwept(t *testing.T) {
	sw, _ := ParseSweep("bs=4k,8k")
	c, err := Run(context.Background(), Plan([]Sweep{sw}, nil, 1), nil, (&fakeRun{}).run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.BS != "swept" || c.Key != "bs" || c.Rows[1].X != 8192 {
		t.Errorf("bs sweep: title bs %q key %q x %v", c.BS, c.Key, c.Rows[1].X)
	}
}

func TestJSONDirPath(t *testing.T) {
	res, _ := (&fakeRun{}).run(context.Background(), []string{"iodepth=64"})
	tests := []struct {
		p    Point
		want string
	}{
		{Point{Repeats: 1}, "out/randread-64-1.json"},                                            // sweep only
		{Point{Name: "priority", Repeats: 1}, "out/priority/randread-64-1.json"},                 // compare
		{Point{Name: "libaio", Repeat: 1, Repeats: 3}, "out/libaio/repeat-2/randread-64-1.json"}, // repeats
	}
	for _, tt := range tests {
		if got := JSONDirPath("out", tt.p, res); got != tt.want {
			t.Errorf("JSONDirPath(%v) = %q, want %q", tt.p, got, tt.want)
		}
	}
	if got := JSONDirName("randwrite", 16384, 4); got != "randwrite-16384-4.json" {
		t.Errorf("JSONDirName = %q", got)
	}
}

// TestMeasure merges two jobs and two directions of one run.
func TestMeasure(t *testing.T) {
	mk := func(reads, writes []uint64, rt time.Duration) *report.JobResult {
		jr := &report.JobResult{}
		for d, vs := range [][]uint64{reads, writes} {
			ds := &jr.Dirs[d]
			for _, v := range vs {
				ds.Lat.Add(v)
				ds.LatHist.Add(v)
			}
			ds.TotalIOs = uint64(len(vs))
			ds.Runtime = rt
		}
		return jr
	}
	res := &report.Result{Jobs: []*report.JobResult{
		mk([]uint64{1000, 2000}, []uint64{3000}, time.Second),
		nil, // a slot without a result is skipped
		mk([]uint64{4000}, nil, 500*time.Millisecond),
	}}
	var m measurement
	measure(res, &m)
	if m.stats.AvgLatUs != 2.5 { // (1+2+3+4)/4 µs
		t.Errorf("avg %v, want 2.5", m.stats.AvgLatUs)
	}
	if m.stats.IOPS != 2+1+2 { // 2 reads/s + 1 write/s + 1 read in 0.5 s
		t.Errorf("IOPS %v, want 5", m.stats.IOPS)
	}
	if m.stats.IOs != 4 || m.metric != "lat" {
		t.Errorf("IOs %d metric %q", m.stats.IOs, m.metric)
	}
	// Four samples: p50 is the 2nd (2 µs), p99 the 4th (4 µs), as bucket
	// midpoints.
	if m.stats.P50Us != histUs(2) || m.stats.P99Us != histUs(4) {
		t.Errorf("p50 %v p99 %v, want %v %v", m.stats.P50Us, m.stats.P99Us, histUs(2), histUs(4))
	}
	var empty measurement
	measure(&report.Result{}, &empty)
	if empty.stats.AvgLatUs != 0 || empty.stats.P99Us != 0 || empty.stats.IOPS != 0 {
		t.Errorf("empty result measured %+v", empty.stats)
	}
}

// TestRunTWWait checks that each side carries its tw wait, mean and p99 of
// all repeats, and that a row is the same schedule exactly when the two
// sides' tw waits agree.
func TestRunTWWait(t *testing.T) {
	for _, same := range []bool{false, true} {
		f := &fakeRun{sameSchedule: same}
		ab := DefaultAB
		c, err := Run(context.Background(), Plan(nil, &ab, 2), &ab, f.run, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := &c.Rows[0]
		wantOld, wantOldP99 := 151.5, histUs(297)
		if same {
			wantOld, wantOldP99 = 50.5, histUs(99)
		}
		if r.New.TWWaitUs != 50.5 || r.New.TWWaitP99Us != histUs(99) || r.Old.TWWaitUs != wantOld || r.Old.TWWaitP99Us != wantOldP99 {
			t.Errorf("same=%v: tw wait new %v/%v old %v/%v, want 50.5/%v %v/%v", same,
				r.New.TWWaitUs, r.New.TWWaitP99Us, r.Old.TWWaitUs, r.Old.TWWaitP99Us, histUs(99), wantOld, wantOldP99)
		}
		if got := c.SameSchedule(r); got != same {
			t.Errorf("same=%v: SameSchedule %v", same, got)
		}
	}
}

// TestTitleBlockSize checks that the comparison's bs title comes from the
// job's block-size bounds (jobfile's BSMin/BSMax), so bsrange= and
// bssplit= jobs show their range, not the default bs=.
func TestTitleBlockSize(t *testing.T) {
	const k = 1024
	for _, tt := range []struct {
		name string
		set  func(j *jobfile.Job)
		want string
	}{
		{"bs", func(j *jobfile.Job) {}, "4k"},
		{"bsrange", func(j *jobfile.Job) { j.BSRangeMin[0], j.BSRangeMax[0] = 8*k, 64*k }, "8k-64k"},
		{"bssplit", func(j *jobfile.Job) {
			j.BSSplit[0] = []jobfile.BSSplitEntry{{BS: 16 * k, Pct: 50}, {BS: 128 * k, Pct: 50}}
		}, "16k-128k"},
	} {
		job := &jobfile.Job{RW: jobfile.RWRandRead, IOEngine: "io_uring", BS: [jobfile.NumDirs]uint64{4 * k, 4 * k, 4 * k}}
		tt.set(job)
		b := newBuilder(nil, nil)
		b.title(&report.Result{}, job)
		if b.c.BS != tt.want {
			t.Errorf("%s: title bs %q, want %q", tt.name, b.c.BS, tt.want)
		}
	}
}

// TestRunSQThread: each side says what played its SQ thread, from its
// runs' results, and the writers' header says it.
func TestRunSQThread(t *testing.T) {
	f := &fakeRun{sq: true}
	ab := DefaultAB
	c, err := Run(context.Background(), Plan(nil, &ab, 2), &ab, f.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.New.SQThread != report.SQGoroutine || c.Old.SQThread != report.SQKernel {
		t.Errorf("sides' SQ threads %q, %q; want goroutine, kernel", c.New.SQThread, c.Old.SQThread)
	}
	var b strings.Builder
	if err := report.WriteCompareTable(&b, c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"new = priority (tw_priority=1) [SQ thread: gofio's goroutine (the model), not the kernel's SQPOLL]",
		"old = fifo (tw_priority=0) [SQ thread: the kernel's SQPOLL thread]", "SQ thread: gofio's model, not the kernel's"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

// TestRunKernelStages checks that each side of a row gets the kernel
// stages of every repeat merged, and a run whose tracing was unavailable
// adds nothing to them; untraced runs give no stages.
func TestRunKernelStages(t *testing.T) {
	f := &fakeRun{kstages: true, unavailAt: 3}
	ab := DefaultAB
	c, err := Run(context.Background(), Plan([]Sweep{{Key: "iodepth", Values: []string{"1", "8"}}}, &ab, 2), &ab, f.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Rows {
		for _, sd := range []struct {
			s      *report.ComparisonSide
			tw     float64
			joined uint64
		}{{&r.New, 2, 200}, {&r.Old, 6, 200}} {
			k := sd.s.KStages
			if k == nil || !k.Available {
				t.Fatalf("row %s side %s: stages %+v", r.Value, sd.s.Name, k)
			}
			joined := sd.joined
			if r.Value == "1" && sd.s.Name == report.PolicyFIFO {
				joined = 100 // call 3 (depth 1, repeat 2, FIFO first) could not trace
			}
			if k.Joined != joined || k.MeanUs[kstage.TW] != sd.tw || k.MeanUs[kstage.Device] != 40 || k.SumUs() != 51+sd.tw {
				t.Errorf("row %s side %s: joined %d tw %v device %v sum %v, want %d, %v, 40, %v", r.Value, sd.s.Name,
					k.Joined, k.MeanUs[kstage.TW], k.MeanUs[kstage.Device], k.SumUs(), joined, sd.tw, 51+sd.tw)
			}
		}
	}
	if !c.HasKStages() {
		t.Error("HasKStages is false")
	}
	plain, err := Run(context.Background(), Plan(nil, &ab, 1), &ab, (&fakeRun{}).run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if plain.HasKStages() || plain.Rows[0].New.KStages != nil {
		t.Errorf("an untraced run has stages: %+v", plain.Rows[0].New.KStages)
	}
}
