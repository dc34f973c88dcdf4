package compare

import (
	"math"
	"slices"

	"github.com/aclements/go-moremath/stats"
)

// This file finds change points in a series of runs: E-divisive means
// (Matteson and James, "A Nonparametric Approach for Multiple Change Point
// Analysis of Multivariate Data", 2014) with the changes Fleming et al.
// made for Hunter ("Hunter: Using Change Point Detection to Hunt for
// Performance Regressions", 2023), which Apache Otava carries on: Student's
// t-test instead of the permutation test, overlapping windows, and weak
// change points found at a relaxed level and then merged away bottom-up
// until every one left passes the strict level.

// ChangePoint is where a series moved: Index is the first point of the
// new segment (never 0).
type ChangePoint struct {
	Index int
	// Before and After are the means of the segments either side, up to
	// the neighbouring change points; P is Student's two-sided t-test
	// p-value between them.
	Before, After float64
	P             float64
}

// ChangeOptions tune ChangePoints; the zero value is Hunter's defaults.
type ChangeOptions struct {
	// Window is the length of the overlapping windows the series is
	// searched in (Window/2 apart); 0 means 50, Otava's default.
	Window int
	// MaxP is the level every change point must pass; 0 means 0.001,
	// Otava's default. The weak change points are found at 10·MaxP.
	MaxP float64
	// MinSegment is the fewest points a segment may have; 0 means
	// MinSegment.
	MinSegment int
}

// MinSegment is the fewest runs on either side of a change point: one or
// two odd runs are outliers, not a change, and a t-test that splits one
// heavy-tailed point off a series rejects far more often than its level
// says (TestChangePointsStationary measures it).
const MinSegment = 3

func (o ChangeOptions) withDefaults() ChangeOptions {
	if o.Window <= 0 {
		o.Window = 50
	}
	if o.MaxP <= 0 {
		o.MaxP = 0.001
	}
	if o.MinSegment <= 0 {
		o.MinSegment = MinSegment
	}
	return o
}

// ChangePoints returns the change points of xs in order: the split step
// finds weak change points window by window at the relaxed level, and the
// merge step removes the weakest (largest p, recomputed over the segments
// its neighbours leave) until every change point has p < MaxP.
func ChangePoints(xs []float64, opt ChangeOptions) []ChangePoint {
	opt = opt.withDefaults()
	first := opt.MaxP * 10
	if opt.MaxP >= 0.05 {
		first = math.Min(opt.MaxP*2, 1)
	}
	idx := splitWindows(xs, opt.Window, opt.MinSegment, first)
	return mergeWeak(xs, idx, opt.MaxP)
}

// splitWindows runs the E-divisive detector over windows of xs, each
// starting half a window after the last (or at the last change point it
// found, if later), and returns the union of the change points found, as
// sorted indices into xs.
func splitWindows(xs []float64, window, minSeg int, maxP float64) []int {
	var found []int
	step := max(window/2, 1)
	for start := 0; start < len(xs); {
		end := min(start+window, len(xs))
		last := 0
		for _, i := range detect(xs[start:end], minSeg, maxP) {
			if !slices.Contains(found, start+i) {
				found = append(found, start+i)
			}
			last = start + i
		}
		start = max(last, start+step)
	}
	slices.Sort(found)
	return found
}

// mergeWeak drops weak change points, the one of largest p first, until
// each left has p < maxP over the segments up to its neighbours.
func mergeWeak(xs []float64, idx []int, maxP float64) []ChangePoint {
	cps := make([]ChangePoint, len(idx))
	for k := range idx {
		cps[k] = segmentTest(xs, idx, k)
	}
	for len(cps) > 0 {
		weakest := 0
		for k, c := range cps {
			if c.P > cps[weakest].P {
				weakest = k
			}
		}
		if cps[weakest].P < maxP {
			break
		}
		cps = slices.Delete(cps, weakest, weakest+1)
		idx = slices.Delete(idx, weakest, weakest+1)
		// The segments of both neighbours changed.
		for _, k := range []int{weakest - 1, weakest} {
			if k >= 0 && k < len(cps) {
				cps[k] = segmentTest(xs, idx, k)
			}
		}
	}
	return cps
}

// segmentTest tests change point k of the sorted indices idx: the segment
// from the change point before it to it against the one from it to the
// next.
func segmentTest(xs []float64, idx []int, k int) ChangePoint {
	lo, hi := 0, len(xs)
	if k > 0 {
		lo = idx[k-1]
	}
	if k+1 < len(idx) {
		hi = idx[k+1]
	}
	at := idx[k]
	l, r := xs[lo:at], xs[at:hi]
	return ChangePoint{Index: at, Before: stats.Mean(l), After: stats.Mean(r), P: tTest(l, r)}
}

// detect is the E-divisive detector on one window: it splits the segment
// whose best split has the largest divergence Q̂ (divergence), tests the
// split with Student's t-test between the two halves of that segment, and
// goes on while the test passes maxP. It returns the change points found,
// sorted, as indices into w.
func detect(w []float64, minSeg int, maxP float64) []int {
	d := newDivergence(w)
	var cps []int
	for {
		best, bestQ, bestLo, bestHi := -1, math.Inf(-1), 0, 0
		bounds := append(append([]int{0}, cps...), len(w))
		for s := 0; s+1 < len(bounds); s++ {
			lo, hi := bounds[s], bounds[s+1]
			if hi-lo < 2*minSeg {
				continue
			}
			if tau, q := d.best(lo, hi, minSeg); q > bestQ {
				best, bestQ, bestLo, bestHi = tau, q, lo, hi
			}
		}
		if best < 0 || tTest(w[bestLo:best], w[best:bestHi]) > maxP {
			return cps
		}
		cps = append(cps, best)
		slices.Sort(cps)
	}
}

// divergence computes Matteson and James's Q̂ over the splits of segments
// of one series, from the sums of pairwise distances |x_i - x_j| held as a
// two-dimensional prefix sum, so each Q̂ costs O(1).
type divergence struct {
	n   int
	sum []float64 // sum[i*(n+1)+j] = Σ_{a<i, b<j} |x_a - x_b|
}

func newDivergence(xs []float64) *divergence {
	n := len(xs)
	d := &divergence{n: n, sum: make([]float64, (n+1)*(n+1))}
	for i := 1; i <= n; i++ {
		for j := 1; j <= n; j++ {
			d.sum[i*(n+1)+j] = math.Abs(xs[i-1]-xs[j-1]) + d.sum[(i-1)*(n+1)+j] + d.sum[i*(n+1)+j-1] - d.sum[(i-1)*(n+1)+j-1]
		}
	}
	return d
}

// block is Σ |x_a - x_b| over a in [a0, a1), b in [b0, b1).
func (d *divergence) block(a0, a1, b0, b1 int) float64 {
	w := d.n + 1
	return d.sum[a1*w+b1] - d.sum[a0*w+b1] - d.sum[a1*w+b0] + d.sum[a0*w+b0]
}

// q is Q̂ of X = x[s:tau] against Y = x[tau:kappa]:
//
//	2/(n+m) ΣΣ|X_i - Y_j| - 2m/((n+m)(n-1)) Σ_{i<k}|X_i - X_k| - 2n/((n+m)(m-1)) Σ_{j<k}|Y_j - Y_k|
//
// with n = |X|, m = |Y|; the within term of a one-point half is 0.
func (d *divergence) q(s, tau, kappa int) float64 {
	n, m := float64(tau-s), float64(kappa-tau)
	q := 2 / (n + m) * d.block(s, tau, tau, kappa)
	if n > 1 {
		q -= 2 * m / ((n + m) * (n - 1)) * d.block(s, tau, s, tau) / 2
	}
	if m > 1 {
		q -= 2 * n / ((n + m) * (m - 1)) * d.block(tau, kappa, tau, kappa) / 2
	}
	return q
}

// best returns the split tau of the segment [lo, hi) that maximises Q̂
// over every end kappa (lo < tau < kappa <= hi), with that Q̂, leaving at
// least minSeg points on either side of tau.
func (d *divergence) best(lo, hi, minSeg int) (int, float64) {
	bt, bq := -1, math.Inf(-1)
	for tau := lo + minSeg; tau <= hi-minSeg; tau++ {
		for kappa := tau + minSeg; kappa <= hi; kappa++ {
			if q := d.q(lo, tau, kappa); q > bq {
				bt, bq = tau, q
			}
		}
	}
	return bt, bq
}

// tTest is Student's two-sample t-test with pooled variance, two-sided:
// the p-value that a and b have the same mean. It is 1 when there are no
// degrees of freedom (fewer than three points), and 0 or 1 when both
// halves are constant (different or equal means).
func tTest(a, b []float64) float64 {
	na, nb := float64(len(a)), float64(len(b))
	if len(a) == 0 || len(b) == 0 || na+nb-2 <= 0 {
		return 1
	}
	ma, mb := stats.Mean(a), stats.Mean(b)
	ss := 0.0
	for _, v := range a {
		ss += (v - ma) * (v - ma)
	}
	for _, v := range b {
		ss += (v - mb) * (v - mb)
	}
	df := na + nb - 2
	se := math.Sqrt(ss / df * (1/na + 1/nb))
	if se == 0 {
		if ma == mb {
			return 1
		}
		return 0
	}
	t := math.Abs(ma-mb) / se
	return 2 * (1 - stats.TDist{V: df}.CDF(t))
}
