package report

import (
	"testing"
)

func TestPercentiles(t *testing.T) {
	// 1..1000 ns, one sample each: bucket i<128 holds value i; above,
	// buckets are 2, 4, 8 ns wide and report their midpoint.
	var h Hist
	for v := uint64(1); v <= 1000; v++ {
		h.Add(v)
	}
	tests := []struct {
		name  string
		plist []float64
		n     uint64
		want  []uint64
	}{
		// 1% of 1000 = 10 samples -> value 10; 50% -> sample 500, which lies in
		// the 4-wide bucket [500,504) reported as 502; 99.9% needs all 1000 (the
		// double 99.9 is a hair above 99.9), so 1000 in [1000,1008) -> 1004.
		{"exact and bucketed", []float64{1, 50, 99.9, 100}, 1000, []uint64{10, 502, 1004, 1004}},
		// 12.7% of 1000 = 127 -> exact bucket 127; 12.8% -> 128 in [128,130).
		{"bucket edge", []float64{12.7, 12.8}, 1000, []uint64{127, 129}},
		// No samples: every value is bucket 0.
		{"empty", []float64{50, 99}, 0, []uint64{0, 0}},
	}
	for _, tc := range tests {
		var hh Hist
		if tc.n > 0 {
			hh = h
		}
		got, _, _ := Percentiles(&hh, tc.n, tc.plist)
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: p%v = %d, want %d", tc.name, tc.plist[i], got[i], tc.want[i])
			}
		}
	}
}

func TestThresholdLongDouble(t *testing.T) {
	// 99.9 is slightly above 99.9 as a double, so fio needs 1000 samples of
	// 1000 for p99.9 only when the long double product exceeds 999.
	if got := threshold(99.9, 1000); got != 1000 {
		t.Errorf("threshold(99.9, 1000) = %d, want 1000", got)
	}
	if got := threshold(50, 1000); got != 500 {
		t.Errorf("threshold(50, 1000) = %d, want 500", got)
	}
	if got := threshold(1, 0); got != 0 {
		t.Errorf("threshold(1, 0) = %d, want 0", got)
	}
}

func TestPercentileListSorted(t *testing.T) {
	got := percentileList([]float64{99, 1, 50, 0, 5})
	want := []float64{1, 50, 99}
	if len(got) != len(want) {
		t.Fatalf("percentileList = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("percentileList = %v, want %v", got, want)
		}
	}
}
