package fiostat

import (
	"math"
	"testing"
)

func TestHistIndexValue(t *testing.T) {
	tests := []struct {
		v    uint64
		idx  int
		back uint64
	}{
		{0, 0, 0},                               // exact region
		{127, 127, 127},                         // last exact bucket
		{128, 128, 129},                         // first 2-wide bucket, midpoint
		{1000, 317, 1004},                       // reference example
		{1 << 40, HistBuckets - 1, 17112760320}, // clamped to the last bucket
	}
	for _, tc := range tests {
		if got := HistIndex(tc.v); got != tc.idx {
			t.Errorf("HistIndex(%d) = %d, want %d", tc.v, got, tc.idx)
		}
		if got := HistValue(tc.idx); got != tc.back {
			t.Errorf("HistValue(%d) = %d, want %d", tc.idx, got, tc.back)
		}
	}
}

func TestStatMergeMatchesOnePass(t *testing.T) {
	var a, b, all Stat
	for v := uint64(1); v <= 1000; v++ {
		all.Add(v * v % 977)
		if v%3 == 0 {
			a.Add(v * v % 977)
		} else {
			b.Add(v * v % 977)
		}
	}
	a.Merge(b)
	if a.N != all.N || a.Min != all.Min || a.Max != all.Max ||
		math.Abs(a.Mean-all.Mean) > 1e-9 || math.Abs(a.Stddev()-all.Stddev()) > 1e-9 {
		t.Errorf("merged %+v, one pass %+v", a, all)
	}
}
