package report

import (
	"math"
	"testing"
)

// cmpSide builds a summarized side from per-repeat average latencies.
func cmpSide(name string, avgs ...float64) ComparisonSide {
	s := ComparisonSide{Name: name}
	for i, a := range avgs {
		s.Repeats = append(s.Repeats, RepeatStats{Repeat: i, AvgLatUs: a, IOPS: 1e6 / a})
	}
	s.Summarize()
	return s
}

func TestComparisonSideSummarize(t *testing.T) {
	s := cmpSide(PolicyPriority, 10, 12, 14)
	if s.AvgLatUs != 12 || s.MinAvgUs != 10 || s.MaxAvgUs != 14 {
		t.Errorf("avg/min/max = %v/%v/%v, want 12/10/14", s.AvgLatUs, s.MinAvgUs, s.MaxAvgUs)
	}
	if got, want := s.SpreadPct(), 4.0/12*100; math.Abs(got-want) > 1e-9 {
		t.Errorf("SpreadPct = %v, want %v", got, want)
	}
	wantIOPS := (1e6/10 + 1e6/12 + 1e6/14) / 3
	if math.Abs(s.IOPS-wantIOPS) > 1e-6 {
		t.Errorf("IOPS = %v, want %v", s.IOPS, wantIOPS)
	}
	if one := cmpSide(PolicyFIFO, 10); one.SpreadPct() != 0 {
		t.Errorf("SpreadPct of one repeat = %v, want 0", one.SpreadPct())
	}
	var none ComparisonSide
	none.Summarize()
	if none.Ran() || none.AvgLatUs != 0 {
		t.Errorf("empty side: Ran=%v avg=%v", none.Ran(), none.AvgLatUs)
	}
}

func TestSlowerBeyond(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		s    *RowStats
		pct  float64
		want bool
	}{
		{"no stats", nil, 5, false},
		{"slower, interval above pct", &RowStats{Metric: GateAvg, Verdict: VerdictSlower, LoPct: 6, HiPct: 9}, 5, true},
		{"slower, interval reaches below pct", &RowStats{Metric: GateAvg, Verdict: VerdictSlower, LoPct: 4, HiPct: 9}, 5, false},
		{"slower, interval on pct", &RowStats{Metric: GateAvg, Verdict: VerdictSlower, LoPct: 5, HiPct: 9}, 5, false},
		{"no evidence, large delta", &RowStats{Metric: GateAvg, Verdict: VerdictNoEvidence, LoPct: 6, HiPct: 90}, 5, false},
		{"too few repeats", &RowStats{Metric: GateAvg, Verdict: VerdictTooFew, LoPct: nan, HiPct: nan}, 5, false},
		{"faster", &RowStats{Metric: GateAvg, Verdict: VerdictFaster, LoPct: -9, HiPct: -6}, 5, false},
		{"iops slower, interval below -pct", &RowStats{Metric: GateIOPS, Verdict: VerdictSlower, LoPct: -12, HiPct: -6}, 5, true},
		{"iops slower, interval reaches above -pct", &RowStats{Metric: GateIOPS, Verdict: VerdictSlower, LoPct: -12, HiPct: -4}, 5, false},
		{"gate 0: any slower", &RowStats{Metric: GateP99, Verdict: VerdictSlower, LoPct: 0.5, HiPct: 2}, 0, true},
	}
	for _, tt := range tests {
		if got := tt.s.SlowerBeyond(tt.pct); got != tt.want {
			t.Errorf("%s: SlowerBeyond(%g) = %v, want %v", tt.name, tt.pct, got, tt.want)
		}
	}
}

func TestSideSpecLabel(t *testing.T) {
	tests := []struct {
		s    SideSpec
		want string
	}{
		{SideSpec{Name: "priority", Key: "tw_priority", Value: "1"}, "priority (tw_priority=1)"},
		{SideSpec{Name: "io_uring", Key: "ioengine", Value: "io_uring"}, "ioengine=io_uring"},
		{SideSpec{Name: "priority"}, "priority"},
	}
	for _, tt := range tests {
		if got := tt.s.Label(); got != tt.want {
			t.Errorf("Label(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestComparisonKeyLabel(t *testing.T) {
	tests := []struct{ key, want string }{
		{"iodepth", "depth"}, // the patch's table says depth
		{"", "depth"},        // nothing swept: the job's iodepth
		{"bs", "bs"},
		{"iodepth,bs", "iodepth,bs"},
	}
	for _, tt := range tests {
		c := Comparison{Key: tt.key}
		if got := c.KeyLabel(); got != tt.want {
			t.Errorf("KeyLabel(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}
