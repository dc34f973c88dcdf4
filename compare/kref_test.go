package compare

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/kstage"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// TestWithKernelRef checks the plan of a comparison with the kernel's
// reference: after both sides of each repeat of each point, one run of the
// point's swept values on the kernel's SQPOLL thread, without the compared
// key, and the points numbered again.
func TestWithKernelRef(t *testing.T) {
	ab := DefaultAB
	pts := WithKernelRef(Plan([]Sweep{{Key: "iodepth", Values: []string{"1", "32"}}}, &ab, 3))
	if len(pts) != 2*3*3 {
		t.Fatalf("%d points, want 18", len(pts))
	}
	for i, p := range pts {
		if p.Index != i {
			t.Fatalf("point %d has index %d", i, p.Index)
		}
		if i%3 != 2 {
			if p.Side == SideKernel {
				t.Fatalf("point %d (%s) is the reference before both sides ran", i, p)
			}
			continue
		}
		want := []string{"iodepth=" + p.Values[0], "sqthread_poll=1", "tw_thread=kernel"}
		if p.Side != SideKernel || p.Name != report.KernelRefName || !slices.Equal(p.Sets, want) ||
			p.Row != pts[i-1].Row || p.Repeat != pts[i-1].Repeat {
			t.Fatalf("point %d: %+v, want the reference of row %d repeat %d with sets %v", i, p, pts[i-1].Row, pts[i-1].Repeat, want)
		}
		if got := p.String(); got != "iodepth="+p.Values[0]+" tw_thread=kernel repeat "+string(rune('1'+p.Repeat))+"/3" {
			t.Errorf("point %d reads %q", i, got)
		}
	}
}

// TestWantsKernelRef: only a comparison of the model's options, on jobs
// the model runs, sweeping nothing that decides the SQ thread, gets the
// reference.
func TestWantsKernelRef(t *testing.T) {
	model := &jobfile.Job{IOEngine: "io_uring", SQThreadPoll: true, TWThread: "auto"}
	noSQ := &jobfile.Job{IOEngine: "io_uring"}
	kernel := &jobfile.Job{IOEngine: "io_uring", SQThreadPoll: true, TWThread: "kernel"}
	libaio := &jobfile.Job{IOEngine: "libaio"}
	tw, list, bs := DefaultAB, AB{Key: "tw_list", New: "lockfree", Old: "locked"}, AB{Key: "bs", New: "4k", Old: "8k"}
	depth, mode := []Sweep{{Key: "iodepth", Values: []string{"1"}}}, []Sweep{{Key: "taskrun_mode", Values: []string{"none"}}}
	for _, tt := range []struct {
		name   string
		ab     *AB
		sweeps []Sweep
		jobs   []*jobfile.Job
		want   bool
	}{
		{"tw_priority", &tw, depth, []*jobfile.Job{model}, true},
		{"tw_list", &list, nil, []*jobfile.Job{model, model}, true},
		{"no compare", nil, depth, []*jobfile.Job{model}, false},
		{"compares bs", &bs, depth, []*jobfile.Job{model}, false},
		{"sweeps taskrun_mode", &tw, mode, []*jobfile.Job{model}, false},
		{"no sqpoll", &tw, depth, []*jobfile.Job{noSQ}, false},
		{"tw_thread=kernel", &tw, depth, []*jobfile.Job{kernel}, false},
		{"a libaio job", &tw, depth, []*jobfile.Job{model, libaio}, false},
	} {
		if got := WantsKernelRef(tt.ab, tt.sweeps, tt.jobs); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestRunKernelRef runs a plan with the reference: its runs fill each
// row's Kernel side, not the compared ones, with their stages.
func TestRunKernelRef(t *testing.T) {
	f := &fakeRun{kstages: true}
	ab := DefaultAB
	pts := WithKernelRef(Plan([]Sweep{{Key: "iodepth", Values: []string{"1", "8"}}}, &ab, 2))
	c, err := Run(context.Background(), pts, &ab, f.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.HasKernelRef() || len(f.calls) != 12 {
		t.Fatalf("reference %v after %d runs", c.HasKernelRef(), len(f.calls))
	}
	for _, r := range c.Rows {
		if len(r.New.Repeats) != 2 || len(r.Old.Repeats) != 2 || len(r.Kernel.Repeats) != 2 {
			t.Fatalf("row %s: %d/%d/%d repeats", r.Value, len(r.New.Repeats), len(r.Old.Repeats), len(r.Kernel.Repeats))
		}
		if r.Kernel.Name != report.KernelRefName || !r.Kernel.KStages.Measured() || r.Kernel.Repeats[0].KStages == nil {
			t.Errorf("row %s: kernel side %+v", r.Value, r.Kernel)
		}
		if v, ok := report.ModelCostPct(&r); !ok || math.IsNaN(v) {
			t.Errorf("row %s: model cost %v %v", r.Value, v, ok)
		}
	}
}

// stageSide is a side whose repeats have the kernel tw means tw (the other
// stages 1 µs).
func stageSide(tw ...float64) report.ComparisonSide {
	var s report.ComparisonSide
	for i, v := range tw {
		s.Repeats = append(s.Repeats, report.RepeatStats{Repeat: i, AvgLatUs: 10 + v,
			KStages: &report.RepeatKStages{Traced: 10, Joined: 10, MeanUs: report.KStageUsJSON{1, 1, 1, 1, v, 1}}})
	}
	s.Summarize()
	return s
}

// TestExplainStages checks the stage deltas: paired within one run (the
// mean of the repeats' differences, Student's t interval with n-1
// degrees of freedom), Welch's interval for a diff of two runs, none for a
// row without stages on a side.
func TestExplainStages(t *testing.T) {
	c := &report.Comparison{Compared: true, New: report.SideSpec{Key: "tw_priority"}, Rows: []report.ComparisonRow{
		{Value: "8", New: stageSide(10, 12, 14), Old: stageSide(5, 6, 7)},
		{Value: "16", New: stageSide(10, 12, 14), Old: report.ComparisonSide{Repeats: []report.RepeatStats{{AvgLatUs: 1}}}},
	}}
	ExplainStages(c)
	d := c.Rows[0].KStageDeltas
	// Differences 5, 6, 7: mean 6, sd 1, t(0.975, 2) = 4.3027.
	h := 4.302653 / math.Sqrt(3)
	if d == nil || !d.Paired || d.N != 3 || math.Abs(d.Stages[kstage.TW].MeanUs-6) > 1e-9 ||
		math.Abs(d.Stages[kstage.TW].HiUs-6-h) > 1e-4 || math.Abs(d.Sum.LoUs-6+h) > 1e-4 || d.Stages[kstage.Device].MeanUs != 0 {
		t.Fatalf("paired: %+v", d)
	}
	if d.Where() != "kernel" || !strings.HasPrefix(d.Words(), "+6.0 ±2.5 µs, in the kernel (submit, queue, device, tw): tw +6.0 ±2.5*") {
		t.Errorf("words %q", d.Words())
	}
	if c.Rows[1].KStageDeltas != nil {
		t.Error("a row with a side untraced has deltas")
	}
	// A diff: sides from two runs, not paired.
	c.New.Key = report.DiffSideKey
	ExplainStages(c)
	d = c.Rows[0].KStageDeltas
	// Welch: means 12 and 6, variances 4 and 1 over 3 each: se = sqrt(5/3),
	// df = (5/3)^2 / ((4/3)^2/2 + (1/3)^2/2) = 2.9412, t = 3.2199 or so.
	se := math.Sqrt(5.0 / 3)
	df := (5.0 / 3) * (5.0 / 3) / ((16.0/9)/2 + (1.0/9)/2)
	half := tQuantile(df) * se
	if d.Paired || math.Abs(d.Stages[kstage.TW].MeanUs-6) > 1e-9 || math.Abs(d.Stages[kstage.TW].HiUs-6-half) > 1e-9 ||
		half < 4 || half > 4.5 {
		t.Fatalf("welch: %+v (half-width %v, df %v)", d, half, df)
	}
}

// TestJudgeStageMetric gates on the kernel's tw: rows traced on both
// sides get statistics of the repeats' ktw means, a row with an untraced
// repeat none, and the deltas explain each traced row.
func TestJudgeStageMetric(t *testing.T) {
	f := &fakeRun{kstages: true, unavailAt: 3}
	ab := DefaultAB
	c, err := Run(context.Background(), Plan([]Sweep{{Key: "iodepth", Values: []string{"1", "8"}}}, &ab, 5), &ab, f.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	Judge(c, "ktw")
	if c.Rows[0].Stats != nil {
		t.Errorf("row 1 (a repeat untraced) judged on ktw: %+v", c.Rows[0].Stats)
	}
	s := c.Rows[1].Stats
	if s == nil || s.New != 2 || s.Old != 6 || s.Verdict != report.VerdictFaster {
		t.Fatalf("row 8 on ktw: %+v", s)
	}
	if d := c.Rows[1].KStageDeltas; d == nil || d.Stages[kstage.TW].MeanUs != -4 {
		t.Errorf("row 8 deltas %+v", d)
	}
}

// TestDiffJobByJobKeepsStages diffs runs of two jobs with kernel stages:
// each job's row carries that job's stages, from its repeats.
func TestDiffJobByJobKeepsStages(t *testing.T) {
	run := func(path string, twB float64) *Saved {
		return jobsRun(path, func(k int) []report.JobRepeat {
			ks := func(tw float64) *report.RepeatKStages {
				return &report.RepeatKStages{Traced: 100, Joined: 100, MeanUs: report.KStageUsJSON{1, 1, 1, 10, tw + float64(k), 1},
					P99Us: report.KStageUsJSON{2, 2, 2, 20, 3 * tw, 2}}
			}
			return []report.JobRepeat{
				{Name: "a", AvgLatUs: 100, P99Us: 200, IOPS: 1e4, KStages: ks(5)},
				{Name: "b", AvgLatUs: 100, P99Us: 200, IOPS: 1e4, KStages: ks(twB)},
			}
		})
	}
	d, _, err := Diff(run("old.json", 5), run("new.json", 50), Allow{})
	if err != nil {
		t.Fatal(err)
	}
	Judge(d, "ktw")
	if len(d.Rows) != 2 {
		t.Fatalf("%d rows", len(d.Rows))
	}
	a, b := d.Rows[0], d.Rows[1]
	if !a.New.KStages.Measured() || !b.Old.KStages.Measured() || b.New.KStages.P99Us[kstage.TW] != 150 {
		t.Fatalf("job sides lack their stages: %+v / %+v", a.New.KStages, b.New.KStages)
	}
	if a.Stats == nil || a.Stats.Verdict == report.VerdictSlower || b.Stats == nil || b.Stats.Verdict != report.VerdictSlower {
		t.Errorf("ktw verdicts: a %+v, b %+v", a.Stats, b.Stats)
	}
	if b.KStageDeltas == nil || b.KStageDeltas.Paired || math.Abs(b.KStageDeltas.Stages[kstage.TW].MeanUs-45) > 1e-9 {
		t.Errorf("job b's deltas %+v", b.KStageDeltas)
	}
	if err := CheckSlower(d, 10); err == nil || !strings.Contains(err.Error(), "1,b") {
		t.Errorf("gate on ktw: %v", err)
	}
}

// TestRoundsKernelRef runs a comparison in rounds with the kernel's
// reference: after both sides of each of a row's first MinRounds rounds,
// one run of the reference, filed in the row's Kernel side with its
// round; the rounds past MinRounds of a gated row run none. A gate on the
// kernel's tw judges the traced rows and explains them by stage.
func TestRoundsKernelRef(t *testing.T) {
	f := &fakeRun{kstages: true}
	ab := DefaultAB
	rs := Rounds{Design: Design{MinRounds: 3, GateMetric: "ktw"}, KernelRef: true, Rand: rand.New(rand.NewPCG(1, 2))}
	c, err := rs.Run(context.Background(), []Sweep{{Key: "iodepth", Values: []string{"1", "8"}}}, &ab, f.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.calls) != 2*3*3 {
		t.Fatalf("%d runs, want 18", len(f.calls))
	}
	for _, call := range f.calls[2:3] {
		if !slices.Contains(call, "tw_thread=kernel") || slices.Contains(call, "tw_priority=1") || slices.Contains(call, "tw_priority=0") {
			t.Errorf("the third run %v is not the reference", call)
		}
	}
	for _, r := range c.Rows {
		if len(r.Kernel.Repeats) != 3 || r.Kernel.Repeats[2].Repeat != 2 || !r.Kernel.KStages.Measured() {
			t.Errorf("row %s: reference %+v", r.Value, r.Kernel.Repeats)
		}
		if r.Stats == nil || r.Stats.Metric != "ktw" || r.KStageDeltas == nil || r.KStageDeltas.Stages[kstage.TW].MeanUs != -4 {
			t.Errorf("row %s: stats %+v deltas %+v", r.Value, r.Stats, r.KStageDeltas)
		}
	}
	// Without stages a ktw gate has nothing to judge: every row is no
	// result.
	c, err = (&Rounds{Design: Design{MinRounds: 3, GateMetric: "ktw"}}).Run(context.Background(), nil, &ab, (&fakeRun{}).run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := &c.Rows[0]; c.RowVerdict(r) != report.VerdictNoResult || c.RowNoResultReason(r) != report.NoResultNoStages || r.Stats != nil {
		t.Errorf("untraced row: verdict %q, reason %q, stats %+v", c.RowVerdict(r), c.RowNoResultReason(r), r.Stats)
	}
}
