package compare

import (
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/gofio/gofio/report"
)

// TestAnalyzeKnownVerdicts checks Analyze on fixed samples whose answers
// are known by hand: the exact two-sided Mann–Whitney p-value for samples
// without ties is 2·(ways to reach U or less)/C(n+m, n), and the
// Hodges–Lehmann interval for n = m = 5 at 95% is [d(3), d(23)] of the 25
// sorted differences (2·P(U ≤ 2) = 8/252 ≤ 0.05 < 2·P(U ≤ 3) = 14/252),
// with confidence 1 - 8/252.
func TestAnalyzeKnownVerdicts(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name     string
		new, old []float64
		metric   string
		verdict  string
		p        float64 // exact
		delta    float64 // (median new - median old) / median old * 100
		lo, hi   float64 // the interval, percent; NaN when none
	}{
		{
			// Every new value above every old one: U = 0, p = 2/252.
			// Differences new_i - old_j in log space; the third smallest
			// is log(110/104) (the pairs 110-104, 110-103, 111-104 in
			// that order) and the third largest log(114/102).
			name: "slower, complete separation", metric: report.GateAvg,
			new: []float64{110, 111, 112, 113, 114}, old: []float64{100, 101, 102, 103, 104},
			verdict: report.VerdictSlower, p: 2.0 / 252, delta: (112.0 - 102) / 102 * 100,
			lo: (110.0/103 - 1) * 100, hi: (114.0/101 - 1) * 100,
		},
		{
			// The same samples swapped: faster, the interval mirrored.
			name: "faster, complete separation", metric: report.GateAvg,
			new: []float64{100, 101, 102, 103, 104}, old: []float64{110, 111, 112, 113, 114},
			verdict: report.VerdictFaster, p: 2.0 / 252, delta: (102.0 - 112) / 112 * 100,
			lo: (101.0/114 - 1) * 100, hi: (103.0/110 - 1) * 100,
		},
		{
			// Interleaved samples: U = 8 of 25, p = 2·P(U ≤ 8) = 2·53/252
			// (the counts of U = 0..8 for 5,5 are 1,1,2,3,5,7,9,11,14),
			// 0.42: no evidence, though the medians differ by a third.
			name: "interleaved", metric: report.GateAvg,
			new: []float64{1, 2, 4, 7, 9}, old: []float64{3, 5, 6, 8, 10},
			verdict: report.VerdictNoEvidence, p: 2.0 * 53 / 252, delta: (4.0 - 6) / 6 * 100,
		},
		{
			// Three repeats each can never reach p < 0.05 (the least is
			// 2/20 = 0.1), however far apart: say so, give no interval.
			name: "three repeats", metric: report.GateAvg,
			new: []float64{200, 201, 202}, old: []float64{100, 101, 102},
			verdict: report.VerdictTooFew, p: 0.1, delta: (201.0 - 101) / 101 * 100, lo: nan, hi: nan,
		},
		{
			// IOPS: higher new values are faster.
			name: "iops higher is faster", metric: report.GateIOPS,
			new: []float64{1100, 1110, 1120, 1130, 1140}, old: []float64{1000, 1010, 1020, 1030, 1040},
			verdict: report.VerdictFaster, p: 2.0 / 252, delta: (1120.0 - 1020) / 1020 * 100,
			lo: (1100.0/1030 - 1) * 100, hi: (1140.0/1010 - 1) * 100,
		},
		{
			// Identical samples: p = 1, no difference.
			name: "identical", metric: report.GateP99,
			new: []float64{5, 6, 7, 8, 9}, old: []float64{5, 6, 7, 8, 9},
			verdict: report.VerdictNoEvidence, p: 1, delta: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Analyze(tt.new, tt.old, tt.metric)
			if s.Verdict != tt.verdict {
				t.Errorf("verdict %q, want %q (p=%v)", s.Verdict, tt.verdict, s.P)
			}
			if math.Abs(s.P-tt.p) > 1e-9 {
				t.Errorf("p = %v, want %v", s.P, tt.p)
			}
			if math.Abs(s.DeltaPct-tt.delta) > 1e-9 {
				t.Errorf("Δ%% = %v, want %v", s.DeltaPct, tt.delta)
			}
			if s.NewN != len(tt.new) || s.OldN != len(tt.old) || s.Metric != tt.metric || s.Alpha != Alpha {
				t.Errorf("n %d/%d metric %q alpha %v", s.NewN, s.OldN, s.Metric, s.Alpha)
			}
			switch {
			case math.IsNaN(tt.lo):
				if s.HasInterval() {
					t.Errorf("interval [%v, %v], want none", s.LoPct, s.HiPct)
				}
			case tt.lo != 0 || tt.hi != 0:
				if math.Abs(s.LoPct-tt.lo) > 1e-9 || math.Abs(s.HiPct-tt.hi) > 1e-9 {
					t.Errorf("interval [%v, %v], want [%v, %v]", s.LoPct, s.HiPct, tt.lo, tt.hi)
				}
				if want := 1 - 8.0/252; math.Abs(s.Confidence-want) > 1e-9 {
					t.Errorf("confidence %v, want %v", s.Confidence, want)
				}
			}
			if s.HasInterval() && (s.LoPct > s.DeltaPct+1e-9 || s.HiPct < s.DeltaPct-1e-9) && tt.verdict != report.VerdictNoEvidence {
				t.Errorf("Δ%% %v outside its interval [%v, %v]", s.DeltaPct, s.LoPct, s.HiPct)
			}
		})
	}
}

// TestAnalyzeDoesNotReorder checks that the caller's slices keep their
// repeat order.
func TestAnalyzeDoesNotReorder(t *testing.T) {
	n, o := []float64{3, 1, 2, 5, 4}, []float64{9, 7, 8, 6, 10}
	Analyze(n, o, report.GateAvg)
	if sort.Float64sAreSorted(n) || sort.Float64sAreSorted(o) {
		t.Errorf("Analyze sorted its inputs: %v %v", n, o)
	}
}

// TestAnalyzeIntervalCoversShift checks the interval's duality with the
// test on a shifted sample: a 10% shift with 1% jitter gives an interval
// around +10% that excludes 0, and the gate fails at 5% but not at 12%.
func TestAnalyzeIntervalCoversShift(t *testing.T) {
	old := []float64{100, 101, 99, 100.5, 99.5, 100.2, 99.8}
	var new []float64
	for _, v := range old {
		new = append(new, v*1.10)
	}
	s := Analyze(new, old, report.GateAvg)
	if s.Verdict != report.VerdictSlower || !s.HasInterval() {
		t.Fatalf("verdict %q interval %v: want slower with an interval", s.Verdict, s.HasInterval())
	}
	if s.LoPct <= 0 || s.LoPct > 10 || s.HiPct < 10 {
		t.Errorf("interval [%v, %v] should hold +10%% and exclude 0", s.LoPct, s.HiPct)
	}
	if !s.SlowerBeyond(5) || s.SlowerBeyond(12) {
		t.Errorf("SlowerBeyond(5)=%v SlowerBeyond(12)=%v, want true, false", s.SlowerBeyond(5), s.SlowerBeyond(12))
	}
}

// TestJudgeAndGate runs Judge and the gate over a comparison with rows of
// known verdicts.
func TestJudgeAndGate(t *testing.T) {
	side := func(vals ...float64) report.ComparisonSide {
		var s report.ComparisonSide
		for i, v := range vals {
			s.Repeats = append(s.Repeats, report.RepeatStats{Repeat: i, AvgLatUs: v, P99Us: 2 * v, IOPS: 1e6 / v})
		}
		s.Summarize()
		return s
	}
	c := &report.Comparison{Key: "iodepth", Compared: true,
		New: report.SideSpec{Name: "priority", Key: "tw_priority", Value: "1"},
		Old: report.SideSpec{Name: "fifo", Key: "tw_priority", Value: "0"},
		Rows: []report.ComparisonRow{
			{Value: "1", New: side(110, 111, 112, 113, 114), Old: side(100, 101, 102, 103, 104)},  // slower, CI [+6.8%, +12.9%]
			{Value: "8", New: side(1, 2, 4, 7, 9), Old: side(3, 5, 6, 8, 10)},                     // ~
			{Value: "16", New: side(300, 301, 302), Old: side(100, 101, 102)},                     // too few repeats
			{Value: "32", New: side(100, 101, 102, 103, 104), Old: side(110, 111, 112, 113, 114)}, // faster
			{Value: "64", New: side(100, 101)},                                                    // old missing
		}}
	for i := range c.Rows {
		// Different schedules: a row whose tw waits were equal would be
		// no result.
		c.Rows[i].New.TWWaitUs, c.Rows[i].Old.TWWaitUs = 1, 2
	}
	Judge(c, "")
	want := []string{report.VerdictSlower, report.VerdictNoEvidence, report.VerdictTooFew, report.VerdictFaster, ""}
	for i, r := range c.Rows {
		got := ""
		if r.Stats != nil {
			got = r.Stats.Verdict
		}
		if got != want[i] {
			t.Errorf("row %s: verdict %q, want %q", r.Value, got, want[i])
		}
	}
	if c.GateMetric != report.GateAvg {
		t.Errorf("GateMetric %q, want avg", c.GateMetric)
	}
	for _, tt := range []struct {
		pct  float64
		fail bool
	}{{0, true}, {6.7, true}, {6.9, false}, {50, false}} {
		err := CheckSlower(c, tt.pct)
		if (err != nil) != tt.fail {
			t.Errorf("CheckSlower(%g) = %v, want failure %v", tt.pct, err, tt.fail)
		}
		if err != nil {
			for _, s := range []string{"priority (tw_priority=1) slower than fifo (tw_priority=0)", "iodepth=1 (+9.80%"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		}
	}
	// The same rows judged on IOPS: row 1's IOPS are lower, so it is
	// still slower; row 32 still faster.
	Judge(c, report.GateIOPS)
	if v := c.Rows[0].Stats.Verdict; v != report.VerdictSlower {
		t.Errorf("iops row 1: %q, want slower", v)
	}
	if v := c.Rows[3].Stats.Verdict; v != report.VerdictFaster {
		t.Errorf("iops row 32: %q, want faster", v)
	}
	if CheckSlower(c, 5) == nil {
		t.Error("iops gate at 5%: want row 1 to fail")
	}
}
