package compare

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSpendingBoundaries(t *testing.T) {
	// Lan–DeMets boundaries at 5 equally spaced looks, one-sided 0.025,
	// as published (Jennison and Turnbull 2000, table 7.6; R's ldbounds).
	ts := []float64{0.2, 0.4, 0.6, 0.8, 1}
	for _, tc := range []struct {
		s    Spending
		want []float64
	}{
		{OBrienFlemingSpending, []float64{4.877, 3.357, 2.680, 2.290, 2.031}},
		{PocockSpending, []float64{2.438, 2.427, 2.410, 2.397, 2.386}},
	} {
		got := tc.s.boundaries(0.025, ts)
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 0.005 {
				t.Errorf("%s: boundaries %.3f, want %.3f", tc.s.Name, got, tc.want)
				break
			}
		}
	}
}

func TestSpendingMonteCarlo(t *testing.T) {
	// A Brownian motion looked at at the design's fractions crosses the
	// boundaries first at each look as often as the function spends there.
	ts := []float64{12.0 / 96, 18.0 / 96, 28.0 / 96, 42.0 / 96, 64.0 / 96, 1}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range []Spending{PocockSpending, OBrienFlemingSpending, HSDSpending(-2)} {
		const alpha, n = 0.05, 400000
		nom := s.Nominal(alpha, ts)
		crossed := make([]int, len(ts))
		for range n {
			sum, prev := 0.0, 0.0
			for k, tk := range ts {
				sum += rng.NormFloat64() * math.Sqrt(tk-prev)
				prev = tk
				if 1-normalCDF(sum/math.Sqrt(tk)) <= nom[k] {
					crossed[k]++
					break
				}
			}
		}
		total, spent := 0, 0.0
		for k, tk := range ts {
			total += crossed[k]
			want := s.Spent(alpha, tk)
			got := float64(total) / n
			if se := math.Sqrt(want * (1 - want) / n); math.Abs(got-want) > 4*se+1e-4 {
				t.Errorf("%s: spent %.5f by look %d, want %.5f", s.Name, got, k+1, want)
			}
			spent = want
		}
		if spent != alpha {
			t.Errorf("%s: spends %g in all, want %g", s.Name, spent, alpha)
		}
		t.Logf("%s: nominal levels %.5f", s.Name, nom)
	}
}
