package report

import (
	"math"
	"testing"
)

// cmpSide builds a summarized side from per-repeat average latencies.
func cmpSide(policy string, avgs ...float64) ComparisonSide {
	s := ComparisonSide{Policy: policy}
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

func TestComparisonRowClassify(t *testing.T) {
	tests := []struct {
		name     string
		new, old []float64
		hasDelta bool
		delta    float64
		noise    bool
	}{
		// Ranges [10,12] and [11,13] overlap: within noise.
		{"overlapping ranges", []float64{10, 12}, []float64{11, 13}, true, -1 / 12.0 * 100, true},
		// Ranges touch at one end: still overlap, ends included.
		{"touching ranges", []float64{10, 11}, []float64{11, 12}, true, -1 / 11.5 * 100, true},
		// Disjoint ranges: beyond noise even though |delta| < 5%.
		{"disjoint small delta", []float64{10.0, 10.1}, []float64{10.3, 10.4}, true, (10.05 - 10.35) / 10.35 * 100, false},
		// Disjoint ranges, priority slower: beyond noise.
		{"disjoint slower", []float64{13, 14, 15}, []float64{10, 11, 12}, true, 3 / 11.0 * 100, false},
		// Wide ranges swallow a large delta: within noise.
		{"wide spread", []float64{10, 30}, []float64{12, 14}, true, (20 - 13) / 13.0 * 100, true},
		// A single repeat uses the 5% band: 4% is noise.
		{"one repeat inside band", []float64{10.4}, []float64{10}, true, 4, true},
		// Exactly 5% is still inside the band.
		{"one repeat on band edge", []float64{10.5}, []float64{10}, true, 5, true},
		// 6% is beyond the band.
		{"one repeat beyond band", []float64{9.4}, []float64{10}, true, -6, false},
		// One side with one repeat, the other with three: band rule.
		{"mixed repeat counts", []float64{11, 11.2, 11.4}, []float64{10}, true, 12, false},
		// The baseline did not run: no delta, not noise.
		{"baseline missing", []float64{10}, nil, false, 0, false},
		// Priority did not run: no delta.
		{"priority missing", nil, []float64{10}, false, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ComparisonRow{
				Priority: cmpSide(PolicyPriority, tt.new...),
				Baseline: cmpSide(PolicyFIFO, tt.old...),
				Noise:    true, // Classify must overwrite stale values
				DeltaPct: 99,
			}
			r.Classify()
			if r.HasDelta != tt.hasDelta {
				t.Fatalf("HasDelta = %v, want %v", r.HasDelta, tt.hasDelta)
			}
			if math.Abs(r.DeltaPct-tt.delta) > 1e-9 {
				t.Errorf("DeltaPct = %v, want %v", r.DeltaPct, tt.delta)
			}
			if r.Noise != tt.noise {
				t.Errorf("Noise = %v, want %v", r.Noise, tt.noise)
			}
		})
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
