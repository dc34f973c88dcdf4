package compare

import (
	"math"
	"sort"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchmath"

	"github.com/gofio/gofio/report"
)

// Alpha is the level of the Mann–Whitney U test and one minus the
// confidence of the interval: 0.05, as benchstat uses.
const Alpha = 0.05

// MinGateRepeats is the fewest repeats per side --fail-if-slower accepts.
// With n repeats on each side the smallest two-sided p-value the U test can
// reach is 2/C(2n, n): 0.1 for 3, 0.029 for 4 and 0.0079 for 5. Four is
// the least that can ever reject at 0.05; five also gives a 95% interval
// that does not reach to the extremes of the sample, so one outlier
// cannot decide the gate alone.
const MinGateRepeats = 5

// Analyze compares the per-repeat values of the new and the old side of a
// row with benchmath, the engine of benchstat: the medians of each side
// (benchmath.AssumeNothing), the relative change of the medians, and the
// two-sided Mann–Whitney U test. The confidence interval of the change is
// the Hodges–Lehmann one: with d the n·m differences log(new_i) -
// log(old_j) sorted, it is [d(k), d(nm+1-k)] where k-1 is the largest
// value u with 2·P(U ≤ u) ≤ Alpha under the null U distribution
// (go-moremath's stats.UDist, the one benchmath's test uses), mapped back
// to percent by exp(d)-1. benchmath has no interval for a difference, and
// this one is dual to the test: without ties it excludes 0 exactly when
// the test rejects. Values that are not all positive (no log) use the
// plain differences, scaled by the old median.
//
// The verdict is VerdictTooFew when the sample sizes cannot give a p-value
// below Alpha whatever the values, else faster or slower when p < Alpha
// (by the sign of the Hodges–Lehmann estimate, read for metric), else
// VerdictNoEvidence.
func Analyze(newVals, oldVals []float64, metric string) report.RowStats {
	s := report.RowStats{
		Metric: metric, NewN: len(newVals), OldN: len(oldVals),
		LoPct: math.NaN(), HiPct: math.NaN(), EqLoPct: math.NaN(), EqHiPct: math.NaN(), P: 1, PAdj: 1, Alpha: Alpha,
		Verdict: report.VerdictNoEvidence,
	}
	if len(newVals) == 0 || len(oldVals) == 0 {
		s.Verdict = report.VerdictTooFew
		return s
	}
	th := &benchmath.Thresholds{CompareAlpha: Alpha}
	newS := benchmath.NewSample(append([]float64(nil), newVals...), th)
	oldS := benchmath.NewSample(append([]float64(nil), oldVals...), th)
	s.New = benchmath.AssumeNothing.Summary(newS, 1-Alpha).Center
	s.Old = benchmath.AssumeNothing.Summary(oldS, 1-Alpha).Center
	if s.Old != 0 {
		s.DeltaPct = (s.New - s.Old) / s.Old * 100
	}
	cmp := benchmath.AssumeNothing.Compare(newS, oldS)
	s.P, s.PAdj = cmp.P, cmp.P

	n, m := len(newS.Values), len(oldS.Values)
	null := stats.UDist{N1: n, N2: m}
	if minP := math.Min(1, 2*null.CDF(0)); minP > Alpha {
		s.Verdict = report.VerdictTooFew
		return s
	}
	d, scale, ok := differences(newS.Values, oldS.Values, s.Old)
	shift := median(d)
	// k-1 is the largest u with 2·P(U <= u) <= Alpha; u = 0 qualifies, as
	// the check above shows.
	k := 1
	for u := 1; u < n*m/2 && 2*null.CDF(float64(u)) <= Alpha; u++ {
		k = u + 1
	}
	if ok {
		s.LoPct, s.HiPct = scale(d[k-1]), scale(d[n*m-k])
		s.Confidence = 1 - 2*null.CDF(float64(k-1))
	}
	s.Verdict = verdict(s.P, shift, report.HigherIsBetter(metric))
	return s
}

// verdict names the outcome: VerdictNoEvidence unless p < Alpha with a non-zero
// shift (new minus old); otherwise faster or slower, a positive shift
// being slower for a latency and faster when higherIsBetter (IOPS).
func verdict(p, shift float64, higherIsBetter bool) string {
	if p >= Alpha || shift == 0 {
		return report.VerdictNoEvidence
	}
	if (shift > 0) != higherIsBetter {
		return report.VerdictSlower
	}
	return report.VerdictFaster
}

// differences returns the sorted pairwise differences new_i - old_j on a
// log scale when every value is positive, or plain ones otherwise, with the
// function that turns a difference into a percent change. ok is false when
// no percent change can be given (plain differences against an old median
// of 0).
func differences(nv, ov []float64, oldMedian float64) (d []float64, pct func(float64) float64, ok bool) {
	positive := true
	for _, v := range append(append([]float64(nil), nv...), ov...) {
		if !(v > 0) {
			positive = false
		}
	}
	d = make([]float64, 0, len(nv)*len(ov))
	for _, a := range nv {
		for _, b := range ov {
			if positive {
				d = append(d, math.Log(a)-math.Log(b))
			} else {
				d = append(d, a-b)
			}
		}
	}
	sort.Float64s(d)
	if positive {
		return d, func(x float64) float64 { return math.Expm1(x) * 100 }, true
	}
	if oldMedian == 0 {
		return d, nil, false
	}
	return d, func(x float64) float64 { return x / math.Abs(oldMedian) * 100 }, true
}

// median returns the median of sorted xs.
func median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
