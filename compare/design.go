package compare

import (
	"math"
	"slices"
	"time"

	"github.com/gofio/gofio/report"
)

// This file is the measurement design of a --compare and its sequential
// rule: how many rounds a row runs, when it is looked at, and what each
// look decides. docs/ci.md explains the choices.

// Looks is the most looks the sequential rule of a gated comparison takes
// at a row. Every look spends an equal share of FamilyAlpha (Bonferroni
// over looks, valid whatever the dependence between them).
const Looks = 6

// lookGrowth is the factor between the rounds of successive looks.
const lookGrowth = 1.5

// EquivalenceBeta bounds, per row, the chance that a row slower or faster
// by the threshold or more reads VerdictSame: the equivalence boundary of
// the sequential rule is a futility boundary, spending EquivalenceBeta
// evenly over the looks. It costs no false alarms (a row read the same
// stops, it never fails), only power, so it is set by the power the gate
// promises rather than by FamilyAlpha.
const EquivalenceBeta = 0.05

// DefaultBudget is the default of --budget: the time all rows of a gated
// comparison may take together.
const DefaultBudget = 15 * time.Minute

// Design is the measurement design of a comparison of two sides in rounds.
// A round is one run of each side back to back, in ABBA order (the order
// alternates round by round from a random start), so that a drift linear
// over a pair of rounds and the effect of running first or second cancel.
type Design struct {
	// Rows is the number of rows judged together (the sweep's points).
	Rows int
	// MinRounds is --repeat: the rounds of an ungated comparison, and the
	// fewest before the first look of a gated one.
	MinRounds int
	// Gated is --fail-if-slower given: rows run until the sequential rule
	// decides them, at ThresholdPct percent, or the rounds or Budget run
	// out. Ungated, every row runs MinRounds rounds and is judged once.
	Gated        bool
	ThresholdPct float64
	// GateMetric is the figure judged (report.GateAvg, GateP99, GateIOPS).
	GateMetric string
	// Budget is the time the rounds of all rows may take together (gated
	// only; 0 is no limit).
	Budget time.Duration
}

// looks returns the number of looks: Looks when gated, one otherwise.
func (d Design) looks() int {
	if d.Gated {
		return Looks
	}
	return 1
}

// Tail returns the one-sided error level of every interval that decides
// faster or slower: half of FamilyAlpha split evenly over the rows and the
// looks (Bonferroni), so that all of them hold together with probability
// at least 1 - FamilyAlpha.
func (d Design) Tail() float64 {
	return FamilyAlpha / 2 / float64(max(1, d.Rows)*d.looks())
}

// EquivalenceTail returns the one-sided error level of the interval that
// decides the same: EquivalenceBeta split over the looks.
func (d Design) EquivalenceTail() float64 { return EquivalenceBeta / float64(d.looks()) }

// LookRounds returns the round counts at which a row is judged. Ungated:
// MinRounds, once. Gated: the first look comes at MinRounds or at the
// fewest rounds whose interval can exclude no change at Tail, whichever is
// more, rounded up to an even count (whole ABBA pairs); each later look at
// lookGrowth times the one before, again even.
func (d Design) LookRounds() []int {
	if !d.Gated {
		return []int{max(1, d.MinRounds)}
	}
	n := even(max(d.MinRounds, minSignedRankRounds(d.Tail())))
	out := []int{n}
	for len(out) < Looks {
		n = even(max(n+2, int(math.Ceil(float64(n)*lookGrowth))))
		out = append(out, n)
	}
	return out
}

// even rounds n up to an even number.
func even(n int) int { return n + n%2 }

// JudgeRounds judges one row of a comparison in rounds from the paired
// per-round values of the gate metric (newVals[i] and oldVals[i] ran in
// round i) at look (1-based; 0 for rounds that reached no look, which get
// no interval). The differences are the log ratios new/old of each round
// (the relative differences against the old median when a value is not
// positive); the statistics are the Wilcoxon signed-rank test and its
// Hodges–Lehmann estimate and interval. The interval reported (LoPct,
// HiPct) is the family-wise one, at d.Tail() a side.
//
// With u and l the thresholds +T% and -T% (T = ThresholdPct gated, 0
// ungated), the rule reads, for differences oriented so that up is higher:
// the row is higher when the family-wise interval lies above 0 and the
// estimate above u, lower when it lies below 0 and the estimate below l,
// and, gated, the same when the equivalence interval (d.EquivalenceTail()
// a side) lies within (l, u). Higher is slower for a latency and faster
// for IOPS. Otherwise it is undecided: VerdictInconclusive gated (the
// caller gives it more rounds while it can), VerdictNoEvidence ungated,
// VerdictTooFew when no interval exists at this many rounds.
func JudgeRounds(newVals, oldVals []float64, d Design, look int) report.RowStats {
	n := min(len(newVals), len(oldVals))
	newVals, oldVals = newVals[:n], oldVals[:n]
	s := report.RowStats{
		Metric: d.GateMetric, NewN: n, OldN: n, Paired: true, Look: look,
		LoPct: math.NaN(), HiPct: math.NaN(), EqLoPct: math.NaN(), EqHiPct: math.NaN(),
		P: 1, PAdj: 1, Alpha: FamilyAlpha, Verdict: report.VerdictTooFew,
	}
	if d.Gated {
		s.Verdict = report.VerdictInconclusive
	}
	if n == 0 {
		return s
	}
	s.New, s.Old = median(sortedCopy(newVals)), median(sortedCopy(oldVals))
	diffs, toPct, fromPct := roundDiffs(newVals, oldVals, s.Old)
	if diffs == nil {
		return s
	}
	w := newWalsh(diffs)
	k, keq := 0, 0
	if look > 0 {
		k = signedRankCritical(n, d.Tail())
		keq = signedRankCritical(n, d.EquivalenceTail())
	}
	hl, lo, hi := w.estimate(k)
	s.DeltaPct, s.LoPct, s.HiPct = toPct(hl), toPct(lo), toPct(hi)
	if d.Gated {
		_, lo, hi = w.estimate(keq)
		s.EqLoPct, s.EqHiPct = toPct(lo), toPct(hi)
	}
	s.P = w.pValue()
	s.PAdj = math.Min(1, s.P*float64(max(1, d.Rows)*d.looks()))
	if k == 0 {
		return s
	}
	s.Confidence = 1 - 2*signedRankLowerTail(n, float64(k-1))
	s.Verdict = w.verdict(k, keq, fromPct, d)
	return s
}

// verdict decides a row from its sorted differences w, the critical
// counts k of the family-wise interval (k > 0) and keq of the equivalence
// interval, as JudgeRounds describes, with fromPct mapping a percent
// change to the differences' scale.
func (w walsh) verdict(k, keq int, fromPct func(float64) float64, d Design) string {
	t := 0.0
	if d.Gated {
		t = d.ThresholdPct
	}
	u, l := fromPct(t), fromPct(-t)
	higher := w.lowerAbove(0, k) && w.centreAbove(u)
	lower := w.upperBelow(0, k) && w.centreBelow(l)
	switch {
	case higher != lower:
		if higher != report.HigherIsBetter(d.GateMetric) {
			return report.VerdictSlower
		}
		return report.VerdictFaster
	case d.Gated && w.lowerAbove(l, keq) && w.upperBelow(u, keq):
		return report.VerdictSame
	case d.Gated:
		return report.VerdictInconclusive
	}
	return report.VerdictNoEvidence
}

// roundDiffs returns the per-round differences: log(new/old) when every
// value is positive, with the maps between a difference and a percent
// change; else (new-old)/|old median|, or nil when the old median is 0.
func roundDiffs(newVals, oldVals []float64, oldMedian float64) (d []float64, toPct, fromPct func(float64) float64) {
	positive := true
	for i := range newVals {
		if !(newVals[i] > 0 && oldVals[i] > 0) {
			positive = false
		}
	}
	d = make([]float64, len(newVals))
	if positive {
		for i := range d {
			d[i] = math.Log(newVals[i] / oldVals[i])
		}
		return d, logToPct, pctToLog
	}
	if oldMedian == 0 {
		return nil, nil, nil
	}
	scale := math.Abs(oldMedian)
	for i := range d {
		d[i] = (newVals[i] - oldVals[i]) / scale
	}
	return d, func(x float64) float64 { return x * 100 }, func(p float64) float64 { return p / 100 }
}

// logToPct maps a log ratio to a percent change.
func logToPct(x float64) float64 { return math.Expm1(x) * 100 }

// pctToLog maps a percent change to a log ratio (-Inf at -100% or below).
func pctToLog(p float64) float64 {
	if p <= -100 {
		return math.Inf(-1)
	}
	return math.Log1p(p / 100)
}

// sortedCopy returns xs sorted, in a copy.
func sortedCopy(xs []float64) []float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}
