package compare

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestHolm(t *testing.T) {
	ps := []float64{0.01, 0.04, 0.03, 0.005}
	adj := HolmAdjust(ps)
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if math.Abs(adj[i]-want[i]) > 1e-12 {
			t.Errorf("HolmAdjust(%v)[%d] = %g, want %g", ps, i, adj[i], want[i])
		}
	}
	got := Holm(ps, 0.05)
	for i, w := range []bool{true, false, false, true} {
		if got[i] != w {
			t.Errorf("Holm(%v, 0.05)[%d] = %v, want %v", ps, i, got[i], w)
		}
	}
	if adj := HolmAdjust([]float64{math.NaN(), 0.02}); !math.IsNaN(adj[0]) || adj[1] != 0.02 {
		t.Errorf("HolmAdjust with a NaN = %v, want [NaN 0.02]", adj)
	}
	if adj := HolmAdjust([]float64{0.9, 0.8}); adj[0] != 1 && adj[1] != 1 {
		t.Errorf("HolmAdjust caps at 1: %v", adj)
	}
}

func TestHolmFamilyWise(t *testing.T) {
	// Fifteen true null hypotheses with uniform p-values: Holm at 0.05
	// rejects any in at most 5% of families.
	rng := rand.New(rand.NewPCG(5, 6))
	const families = 20000
	any := 0
	ps := make([]float64, 15)
	for i := 0; i < families; i++ {
		for j := range ps {
			ps[j] = rng.Float64()
		}
		for _, r := range Holm(ps, 0.05) {
			if r {
				any++
				break
			}
		}
	}
	if rate := float64(any) / families; rate > 0.05+3*math.Sqrt(0.05*0.95/families) {
		t.Errorf("family-wise rate %.4f above 0.05", rate)
	}
}
