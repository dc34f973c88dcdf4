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
// at a row.
const Looks = 6

// lookGrowth is the factor between the rounds of successive looks.
const lookGrowth = 1.5

// EquivalenceBeta bounds, per row, the chance that a row slower or faster
// by the threshold or more reads VerdictSame, over all its looks: each of
// the two one-sided tests of the equivalence (TOST) spends it over the
// looks, so that a row decided at a single look would be decided by a
// 90% interval within ± the threshold. A wrong "same" is a miss, not a
// false alarm: a row read the same stops and never fails, so the rate
// bounds what the rule loses in power, and is set by the power the gate
// promises rather than by FamilyAlpha.
const EquivalenceBeta = 0.05

// DefaultSpending is the error-spending function of every boundary of
// the sequential rule: Lan and DeMets' Pocock type, which lets the early
// looks decide and narrows every look from the third on against
// splitting the error evenly over the looks (docs/ci.md has the figures).
var DefaultSpending = PocockSpending

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
	// Spending spends each boundary's error over the looks; the zero
	// value is DefaultSpending.
	Spending Spending
	// MaxRounds, when set, is the most rounds a row is planned to run
	// (gated): the rounds the budget can give a row (PlanRounds), the last
	// look's, with the looks spaced evenly on a log scale up to it. 0 is
	// Looks looks, each lookGrowth times the one before.
	MaxRounds int
}

// maxPlannedRounds bounds Design.MaxRounds: beyond it a look's interval
// narrows too little to be worth the planning.
const maxPlannedRounds = 2000

// budgetShare is how much more than an even share of the budget a row is
// planned for: rows decided early leave their share to the others.
const budgetShare = 1.5

// PlanRounds returns the MaxRounds that a budget gives each of rows rows
// whose rounds are two runs of run each (the longest time-based run):
// budgetShare times the rounds of an even share of the budget, at most
// maxPlannedRounds; 0 (the default looks) when either is unknown.
func PlanRounds(budget, run time.Duration, rows int) int {
	if budget <= 0 || run <= 0 || rows <= 0 {
		return 0
	}
	n := budgetShare * budget.Seconds() / (float64(rows) * 2 * run.Seconds())
	return int(math.Min(math.Round(n), maxPlannedRounds))
}

// Open is where Holm's step-down over the rows stands, family by family:
// the rows read slower form one family and the rows read faster another,
// each judged at FamilyAlpha, and a row's share of a family's error is
// FamilyAlpha over the rows whose hypothesis in it (not slower, not
// faster) is not yet rejected. A zero count is every row.
type Open struct{ Slower, Faster int }

// looks returns the number of looks: Looks when gated, one otherwise.
func (d Design) looks() int {
	if d.Gated {
		return Looks
	}
	return 1
}

// spending returns d.Spending, or DefaultSpending.
func (d Design) spending() Spending {
	if d.Spending.spend == nil {
		return DefaultSpending
	}
	return d.Spending
}

// firstTail returns the one-sided level the first look needs an interval
// at, at least: FamilyAlpha split evenly over the rows and looks, which
// every spending function used spends at least at the first look.
func (d Design) firstTail() float64 {
	return FamilyAlpha / float64(max(1, d.Rows)*d.looks())
}

// Levels returns the nominal one-sided levels of a row's look (1-based)
// at rounds rounds: slower and faster, the tails of the interval's two
// ends that decide them, from the row's share of each family's
// FamilyAlpha (Holm, open) spent over the looks; eq, the tail of each of
// the equivalence's two one-sided tests, EquivalenceBeta spent over the
// looks (gated only). The looks are the design's (LookRounds) up to
// look-1, then rounds: a row the budget stopped between looks is judged
// once more at the rounds it ran. Ungated, the single look spends all.
func (d Design) Levels(look, rounds int, open Open) (slower, faster, eq float64) {
	share := func(n int) float64 {
		if n <= 0 {
			n = d.Rows
		}
		return FamilyAlpha / float64(max(1, n))
	}
	if !d.Gated {
		return share(open.Slower), share(open.Faster), 0
	}
	planned := d.LookRounds()
	last := float64(planned[len(planned)-1])
	ts := make([]float64, 0, look)
	for _, n := range planned[:look-1] {
		ts = append(ts, float64(n)/last)
	}
	ts = append(ts, math.Min(1, float64(rounds)/last))
	sp := d.spending()
	k := look - 1
	return sp.Nominal(share(open.Slower), ts)[k], sp.Nominal(share(open.Faster), ts)[k], sp.Nominal(EquivalenceBeta, ts)[k]
}

// LookRounds returns the round counts at which a row is judged. Ungated:
// MinRounds, once. Gated: the first look comes at MinRounds or at the
// fewest rounds whose interval can exclude no change at FamilyAlpha split
// evenly over the rows and looks, whichever is more, rounded up to an
// even count (whole ABBA pairs); then up to Looks looks in all, each a
// constant factor after the one before (lookGrowth, or the factor that
// reaches MaxRounds at the last look), at least a pair apart, again even.
func (d Design) LookRounds() []int {
	if !d.Gated {
		return []int{max(1, d.MinRounds)}
	}
	n := even(max(d.MinRounds, minSignedRankRounds(d.firstTail())))
	out := []int{n}
	growth, last := lookGrowth, math.MaxInt
	if d.MaxRounds > 0 {
		last = max(n, even(d.MaxRounds))
		growth = math.Pow(float64(last)/float64(n), 1/float64(Looks-1))
	}
	for len(out) < Looks && n < last {
		n = min(last, even(max(n+2, int(math.Ceil(float64(n)*growth)))))
		out = append(out, n)
	}
	return out
}

// even rounds n up to an even number.
func even(n int) int { return n + n%2 }

// JudgeRounds judges one row of a comparison in rounds from the paired
// per-round values of the gate metric (newVals[i] and oldVals[i] ran in
// round i) at look (1-based; 0 for rounds that reached no look, which get
// no interval), with open the rows still open in each family (Holm). The
// differences are the log ratios new/old of each round (the relative
// differences against the old median when a value is not positive); the
// statistics are the Wilcoxon signed-rank test and its Hodges–Lehmann
// estimate and interval. The interval reported (LoPct, HiPct) is the one
// whose ends decide faster and slower, at the levels d.Levels gives.
//
// With u and l the thresholds +T% and -T% (T = ThresholdPct gated, 0
// ungated), the rule reads, for differences oriented so that up is higher:
// the row is higher when the interval's lower end lies above 0 and the
// estimate above u, lower when its upper end lies below 0 and the estimate
// below l, and, gated, the same when the equivalence interval (the two
// one-sided tests at d.Levels' eq) lies within (l, u). Higher is slower
// for a latency and faster for IOPS. Otherwise it is undecided:
// VerdictInconclusive gated (the caller gives it more rounds while it
// can), VerdictNoEvidence ungated, VerdictTooFew when no interval exists
// at this many rounds. An undecided gated row carries its Projection: the
// rounds that would decide it at the spread it showed (project).
func JudgeRounds(newVals, oldVals []float64, d Design, look int, open Open) report.RowStats {
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
	var lv levels
	if look > 0 {
		lv = d.lookLevels(look, n, open)
	}
	a := w.averages()
	s.DeltaPct = toPct(median(a))
	if lv.klo > 0 && lv.khi > 0 {
		s.LoPct, s.HiPct = toPct(a[lv.klo-1]), toPct(a[len(a)-lv.khi])
	}
	if d.Gated && lv.keq > 0 {
		s.EqLoPct, s.EqHiPct = toPct(a[lv.keq-1]), toPct(a[len(a)-lv.keq])
	}
	s.P = w.pValue()
	s.PAdj = 1
	if look > 0 {
		s.PAdj = math.Min(1, math.Min(w.oneSidedP(true)*FamilyAlpha/lv.lo, w.oneSidedP(false)*FamilyAlpha/lv.hi))
	}
	if lv.klo > 0 || lv.khi > 0 {
		s.Confidence = 1 - signedRankLowerTail(n, float64(lv.klo-1)) - signedRankLowerTail(n, float64(lv.khi-1))
		s.Verdict = w.verdict(lv, fromPct, d)
	}
	if d.Gated && look > 0 && s.Verdict == report.VerdictInconclusive {
		s.Projection = d.project(w, a, open, fromPct)
	}
	return s
}

// levels are the nominal one-sided levels of one look at a row, by the
// end of the interval they cut (lo: the lower end, which decides higher;
// hi: the upper end, which decides lower; eq: both ends of the
// equivalence interval), with the signed-rank critical counts they give
// (0: no interval at that level from so few rounds).
type levels struct {
	lo, hi, eq    float64
	klo, khi, keq int
}

// lookLevels returns the levels of a row's look (1-based) at n rounds
// (Levels), by the end of the interval they cut.
func (d Design) lookLevels(look, n int, open Open) levels {
	slower, faster, eq := d.Levels(look, n, open)
	lv := levels{lo: slower, hi: faster, eq: eq} // a latency: up is slower
	if report.HigherIsBetter(d.GateMetric) {
		lv.lo, lv.hi = faster, slower
	}
	lv.klo, lv.khi, lv.keq = signedRankCritical(n, lv.lo), signedRankCritical(n, lv.hi), signedRankCritical(n, eq)
	return lv
}

// verdict decides a row from its sorted differences w at the levels lv,
// as JudgeRounds describes, with fromPct mapping a percent change to the
// differences' scale.
func (w walsh) verdict(lv levels, fromPct func(float64) float64, d Design) string {
	t := 0.0
	if d.Gated {
		t = d.ThresholdPct
	}
	u, l := fromPct(t), fromPct(-t)
	higher := w.lowerAbove(0, lv.klo) && w.centreAbove(u)
	lower := w.upperBelow(0, lv.khi) && w.centreBelow(l)
	switch {
	case higher != lower:
		if higher != report.HigherIsBetter(d.GateMetric) {
			return report.VerdictSlower
		}
		return report.VerdictFaster
	case d.Gated && w.lowerAbove(l, lv.keq) && w.upperBelow(u, lv.keq):
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
