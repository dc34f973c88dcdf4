package compare

import (
	"math"
	"sort"
	"sync"
)

// This file is the Wilcoxon signed-rank test of paired differences and its
// Hodges–Lehmann interval, the statistics of a --compare's rounds.
//
// With d the n per-round differences (log ratios new/old), the Walsh
// averages are the M = n(n+1)/2 means (d_i + d_j)/2 over i <= j. Their
// median is the Hodges–Lehmann estimate of the centre of the differences;
// the number of positive ones is the signed-rank statistic T+ (Tukey's
// form), whose null distribution, when each d_i is symmetric about 0, is
// that of the sum of a random subset of the ranks 1..n. The interval
// [W(k), W(M+1-k)] of the sorted Walsh averages covers the centre with
// probability at least 1 - 2·P(T+ <= k-1), and excludes a value c exactly
// when the signed-rank test of centre c rejects at that level, so every
// decision below is a count of Walsh averages on one side of a threshold.

// exactSignedRankMax is the largest n whose null distribution is computed
// exactly; above it the normal approximation with a continuity correction
// is used, whose error in the tails that matter here is far below the
// levels involved.
const exactSignedRankMax = 400

// signedRankCDFs caches the exact null CDFs by n. Only a handful of n (the
// looks of a design) are ever asked for.
var signedRankCDFs = struct {
	sync.Mutex
	byN map[int][]float64
}{byN: map[int][]float64{}}

// signedRankCDF returns P(T+ <= t) for t = 0..n(n+1)/2 under the null
// hypothesis, for n <= exactSignedRankMax. It is computed by adding one
// rank at a time (each rank in or out of the positive set with probability
// 1/2) and cached.
func signedRankCDF(n int) []float64 {
	signedRankCDFs.Lock()
	defer signedRankCDFs.Unlock()
	if c, ok := signedRankCDFs.byN[n]; ok {
		return c
	}
	m := n * (n + 1) / 2
	p := make([]float64, m+1)
	p[0] = 1
	top := 0
	for r := 1; r <= n; r++ {
		top += r
		for t := top; t >= 0; t-- {
			v := p[t]
			if t >= r {
				v += p[t-r]
			}
			p[t] = v / 2
		}
	}
	for t := 1; t <= m; t++ {
		p[t] += p[t-1]
	}
	signedRankCDFs.byN[n] = p
	return p
}

// signedRankNormal returns the mean and standard deviation of T+ under the
// null hypothesis.
func signedRankNormal(n int) (mean, sd float64) {
	fn := float64(n)
	return fn * (fn + 1) / 4, math.Sqrt(fn * (fn + 1) * (2*fn + 1) / 24)
}

// signedRankLowerTail returns P(T+ <= t) under the null hypothesis.
func signedRankLowerTail(n int, t float64) float64 {
	if t < 0 {
		return 0
	}
	m := float64(n * (n + 1) / 2)
	if t >= m {
		return 1
	}
	if n <= exactSignedRankMax {
		return signedRankCDF(n)[int(math.Floor(t))]
	}
	mean, sd := signedRankNormal(n)
	return normalCDF((math.Floor(t) + 0.5 - mean) / sd)
}

// signedRankCritical returns k, the number of Walsh averages the interval
// leaves out at each end, for n differences and a one-sided tail: the
// largest k with P(T+ <= k-1) <= tail, so that [W(k), W(M+1-k)] has
// confidence at least 1 - 2·tail. It is 0 when even k = 1 exceeds the
// tail (2^-n > tail): n differences are then too few for any interval at
// that level.
func signedRankCritical(n int, tail float64) int {
	if n <= 0 {
		return 0
	}
	m := n * (n + 1) / 2
	if n <= exactSignedRankMax {
		cdf := signedRankCDF(n)
		k := sort.Search(m+1, func(t int) bool { return cdf[t] > tail })
		return min(k, (m+1)/2)
	}
	mean, sd := signedRankNormal(n)
	k := int(math.Floor(mean-0.5+sd*normalQuantile(tail))) + 1
	return max(0, min(k, (m+1)/2))
}

// minSignedRankRounds returns the fewest differences for which the
// signed-rank interval exists at a one-sided tail: 2^-n <= tail.
func minSignedRankRounds(tail float64) int {
	n := 1
	for math.Ldexp(1, -n) > tail {
		n++
	}
	return n
}

// normalCDF is the standard normal distribution function.
func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// normalQuantile is the inverse of normalCDF.
func normalQuantile(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }

// walsh is a sorted sample of paired differences, with the counts of its
// Walsh averages that the signed-rank decisions read.
type walsh []float64

// newWalsh returns the differences sorted, in a copy.
func newWalsh(d []float64) walsh {
	w := append(walsh(nil), d...)
	sort.Float64s(w)
	return w
}

// pairs returns M = n(n+1)/2, the number of Walsh averages.
func (w walsh) pairs() int { return len(w) * (len(w) + 1) / 2 }

// countAtMost returns the number of Walsh averages <= c (< c when strict),
// in O(n): as i grows, the largest j with d_i + d_j <= 2c only shrinks.
func (w walsh) countAtMost(c float64, strict bool) int {
	n, count := len(w), 0
	j := n - 1
	for i := 0; i < n; i++ {
		for j >= i && (w[i]+w[j] > 2*c || strict && w[i]+w[j] == 2*c) {
			j--
		}
		if j < i {
			break
		}
		count += j - i + 1
	}
	return count
}

// lowerAbove reports whether the interval's lower end W(k) lies above c:
// fewer than k Walsh averages are <= c. k = 0 (no interval) never does.
func (w walsh) lowerAbove(c float64, k int) bool {
	return k > 0 && w.countAtMost(c, false) < k
}

// upperBelow reports whether the interval's upper end W(M+1-k) lies below
// c: fewer than k Walsh averages are >= c.
func (w walsh) upperBelow(c float64, k int) bool {
	return k > 0 && w.pairs()-w.countAtMost(c, true) < k
}

// centreAbove reports whether more than half of the Walsh averages exceed
// c: the Hodges–Lehmann estimate lies above c. centreBelow is its mirror.
func (w walsh) centreAbove(c float64) bool {
	return 2*(w.pairs()-w.countAtMost(c, false)) > w.pairs()
}

func (w walsh) centreBelow(c float64) bool {
	return 2*w.countAtMost(c, true) > w.pairs()
}

// averages returns every Walsh average, sorted.
func (w walsh) averages() []float64 {
	a := make([]float64, 0, w.pairs())
	for i := range w {
		for j := i; j < len(w); j++ {
			a = append(a, (w[i]+w[j])/2)
		}
	}
	sort.Float64s(a)
	return a
}

// estimate returns the Hodges–Lehmann estimate, the median of the Walsh
// averages, and the interval [W(k), W(M+1-k)] (NaN ends when k = 0).
func (w walsh) estimate(k int) (hl, lo, hi float64) {
	if len(w) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	a := w.averages()
	hl = median(a)
	lo, hi = math.NaN(), math.NaN()
	if k > 0 {
		lo, hi = a[k-1], a[len(a)-k]
	}
	return hl, lo, hi
}

// oneSidedP returns the one-sided signed-rank p-value of centre 0 against
// a centre above 0 (higher) or below it: the null chance of as few Walsh
// averages at or below 0 (at or above it), so that it is at most a tail
// exactly when the interval's end cut at that tail excludes 0.
func (w walsh) oneSidedP(higher bool) float64 {
	c := w.countAtMost(0, false)
	if !higher {
		c = w.pairs() - w.countAtMost(0, true)
	}
	return signedRankLowerTail(len(w), float64(c))
}

// pValue returns the two-sided signed-rank p-value of centre 0, with T+
// counted as the positive Walsh averages plus half the zero ones.
func (w walsh) pValue() float64 {
	n := len(w)
	if n == 0 {
		return 1
	}
	m := w.pairs()
	pos := float64(m - w.countAtMost(0, false))
	zero := float64(w.countAtMost(0, false) - w.countAtMost(0, true))
	t := pos + zero/2
	lower := signedRankLowerTail(n, t)
	upper := 1 - signedRankLowerTail(n, math.Ceil(t)-1)
	return math.Min(1, 2*math.Min(lower, upper))
}
