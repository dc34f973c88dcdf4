package compare

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

func TestSignedRankCDFKnownValues(t *testing.T) {
	// Published critical values of the signed-rank test: n = 10 rejects at
	// two-sided 0.05 for T <= 8 (P(T <= 8) = 0.0244, P(T <= 9) = 0.0322);
	// n = 20 for T <= 52 (P = 0.0242).
	cdf := signedRankCDF(10)
	if got := cdf[8]; math.Abs(got-0.0244) > 0.00005 {
		t.Errorf("n=10 P(T<=8) = %.5f, want 0.0244", got)
	}
	if got := cdf[9]; math.Abs(got-0.0322) > 0.00005 {
		t.Errorf("n=10 P(T<=9) = %.5f, want 0.0322", got)
	}
	if k := signedRankCritical(10, 0.025); k != 9 {
		t.Errorf("signedRankCritical(10, 0.025) = %d, want 9 (T <= 8 rejects)", k)
	}
	if k := signedRankCritical(20, 0.025); k != 53 {
		t.Errorf("signedRankCritical(20, 0.025) = %d, want 53 (T <= 52 rejects)", k)
	}
	if got, want := signedRankCDF(5)[0], 1.0/32; got != want {
		t.Errorf("n=5 P(T=0) = %g, want %g", got, want)
	}
	if got := signedRankCDF(30)[465]; math.Abs(got-1) > 1e-12 {
		t.Errorf("n=30 CDF at the top = %g, want 1", got)
	}
	// No interval exists while 2^-n exceeds the tail.
	if k := signedRankCritical(5, 0.025); k != 0 {
		t.Errorf("signedRankCritical(5, 0.025) = %d, want 0 (1/32 > 0.025)", k)
	}
	if n := minSignedRankRounds(1e-4); n != 14 {
		t.Errorf("minSignedRankRounds(1e-4) = %d, want 14", n)
	}
}

func TestSignedRankNormalMatchesExact(t *testing.T) {
	// At the switch to the normal approximation the critical counts agree
	// within a fraction of a percent of the Walsh averages.
	n := exactSignedRankMax
	for _, tail := range []float64{0.025, 1e-3, 1e-5} {
		exact := signedRankCritical(n, tail)
		mean, sd := signedRankNormal(n)
		approx := int(math.Floor(mean-0.5+sd*normalQuantile(tail))) + 1
		if d := math.Abs(float64(exact - approx)); d > 0.001*float64(n*(n+1)/2) {
			t.Errorf("tail %g: exact k %d, normal %d", tail, exact, approx)
		}
	}
	if k := signedRankCritical(n+1, 0.025); k <= signedRankCritical(n, 0.025) {
		t.Errorf("k(%d) = %d not above k(%d) = %d", n+1, k, n, signedRankCritical(n, 0.025))
	}
}

func TestWalshCountsMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(30)
		d := make([]float64, n)
		for i := range d {
			d[i] = math.Round(rng.NormFloat64()*4) / 4 // ties on purpose
		}
		w := newWalsh(d)
		all := w.averages()
		c := math.Round(rng.NormFloat64()*4) / 8
		le, lt := 0, 0
		for _, a := range all {
			if a <= c {
				le++
			}
			if a < c {
				lt++
			}
		}
		if got := w.countAtMost(c, false); got != le {
			t.Fatalf("%v: countAtMost(%g) = %d, want %d", d, c, got, le)
		}
		if got := w.countAtMost(c, true); got != lt {
			t.Fatalf("%v: countAtMost(%g, strict) = %d, want %d", d, c, got, lt)
		}
		k := 1 + rng.IntN(len(all))
		if k > (len(all)+1)/2 {
			k = (len(all) + 1) / 2
		}
		if got, want := w.lowerAbove(c, k), all[k-1] > c; got != want {
			t.Fatalf("%v k=%d: lowerAbove(%g) = %v, want %v", d, k, c, got, want)
		}
		if got, want := w.upperBelow(c, k), all[len(all)-k] < c; got != want {
			t.Fatalf("%v k=%d: upperBelow(%g) = %v, want %v", d, k, c, got, want)
		}
	}
}

func TestWalshEstimateAndP(t *testing.T) {
	// Five positive differences: T+ = 15, the largest, two-sided p = 2/32.
	w := newWalsh([]float64{0.1, 0.3, 0.2, 0.5, 0.4})
	if p := w.pValue(); math.Abs(p-0.0625) > 1e-12 {
		t.Errorf("p = %g, want 0.0625", p)
	}
	hl, lo, hi := w.estimate(1)
	if math.Abs(hl-0.3) > 1e-12 || lo != 0.1 || hi != 0.5 {
		t.Errorf("estimate(1) = %g [%g, %g], want 0.3 [0.1, 0.5]", hl, lo, hi)
	}
	if _, lo, _ := w.estimate(0); !math.IsNaN(lo) {
		t.Errorf("estimate(0) has an interval: %g", lo)
	}
	// Symmetric about 0: p = 1.
	if p := newWalsh([]float64{-2, -1, 1, 2}).pValue(); p != 1 {
		t.Errorf("symmetric sample p = %g, want 1", p)
	}
}

func TestHLIntervalCoverage(t *testing.T) {
	// The interval at tail 0.025 covers the true centre of symmetric
	// heavy-tailed differences (Student's t, 3 df) in at least 95% of
	// samples, and not far more (it is exact, up to the discreteness).
	rng := rand.New(rand.NewPCG(3, 4))
	const trials, n = 4000, 12
	k := signedRankCritical(n, 0.025)
	covered := 0
	for i := 0; i < trials; i++ {
		d := make([]float64, n)
		for j := range d {
			d[j] = 0.3 + studentT3(rng)*0.1
		}
		_, lo, hi := newWalsh(d).estimate(k)
		if lo <= 0.3 && 0.3 <= hi {
			covered++
		}
	}
	conf := 1 - 2*signedRankCDF(n)[k-1]
	rate := float64(covered) / trials
	if rate < conf-0.01 || rate > conf+0.02 {
		t.Errorf("coverage %.4f, want about %.4f", rate, conf)
	}
}

// studentT3 draws from Student's t with 3 degrees of freedom.
func studentT3(rng *rand.Rand) float64 {
	z := rng.NormFloat64()
	chi := 0.0
	for range 3 {
		x := rng.NormFloat64()
		chi += x * x
	}
	return z / math.Sqrt(chi/3)
}

func TestSortedCopyLeavesInput(t *testing.T) {
	in := []float64{3, 1, 2}
	out := sortedCopy(in)
	if !sort.Float64sAreSorted(out) || in[0] != 3 {
		t.Errorf("sortedCopy: in %v out %v", in, out)
	}
}
