package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gofio/gofio/report"
)

// Judge sets c.GateMetric and gives every row where both sides ran its
// statistics (Analyze) over the per-repeat values of gateMetric ("" is
// report.GateAvg), for comparisons whose sides are not paired (a diff of
// two runs): the rows are judged together, a verdict of faster or slower
// needing its Holm-adjusted p-value (HolmAdjust over the rows) below
// Alpha. A row where a side did not run gets no statistics; every row gets
// its Verdict (RowVerdict), a row that is no result VerdictNoResult.
func Judge(c *report.Comparison, gateMetric string) {
	if gateMetric == "" {
		gateMetric = report.GateAvg
	}
	c.GateMetric = gateMetric
	c.FamilyAlpha = Alpha
	var judged []*report.RowStats
	for i := range c.Rows {
		r := &c.Rows[i]
		r.Stats, r.Verdict = nil, ""
		if !r.New.Ran() || !r.Old.Ran() {
			continue
		}
		if c.RowNoResultReason(r) == report.NoResultNoStages {
			continue // a stage gate judges only rows traced on both sides
		}
		s := Analyze(r.New.Values(gateMetric), r.Old.Values(gateMetric), gateMetric)
		r.Stats = &s
		judged = append(judged, r.Stats)
	}
	adjustTogether(judged)
	for i := range c.Rows {
		r := &c.Rows[i]
		r.Verdict = c.RowVerdict(r)
		if r.Stats != nil && r.Verdict == report.VerdictNoResult {
			r.Stats.Verdict = r.Verdict
		}
	}
	JudgeKLock(c)
	ExplainStages(c)
}

// Gate returns the rows that fail --fail-if-slower=PCT: verdict slower
// and report.RowStats.SlowerBeyond(pct). A row that is no result never
// fails.
func Gate(c *report.Comparison, pct float64) (slower []report.ComparisonRow) {
	for i := range c.Rows {
		r := &c.Rows[i]
		if c.RowVerdict(r) == report.VerdictSlower && r.Stats.SlowerBeyond(pct) {
			slower = append(slower, *r)
		}
	}
	return slower
}

// SetGate marks c as gated by --fail-if-slower=PCT (pct < 0: not gated)
// and concludes it (Conclude).
func SetGate(c *report.Comparison, pct float64) {
	c.Gated, c.ThresholdPct = pct >= 0, max(pct, 0)
	Conclude(c)
}

// Conclude sets c's overall verdict from its rows: report.GateNotGated
// unless c.Gated; report.GateFail when a row fails the gate at
// c.ThresholdPct (Gate); else report.GateInconclusive when a row is
// inconclusive; else report.GatePass.
func Conclude(c *report.Comparison) {
	switch {
	case !c.Gated:
		c.Verdict = report.GateNotGated
	case len(Gate(c, c.ThresholdPct)) > 0:
		c.Verdict = report.GateFail
	case slices.ContainsFunc(c.Rows, func(r report.ComparisonRow) bool { return c.RowVerdict(&r) == report.VerdictInconclusive }):
		c.Verdict = report.GateInconclusive
	default:
		c.Verdict = report.GatePass
	}
}

// SlowerError is the error of a failed --fail-if-slower gate; the front end
// maps it to its own exit code.
type SlowerError struct {
	Key      string // the swept key, as in Comparison.Key
	New, Old string // the sides' labels
	Pct      float64
	Rows     []report.ComparisonRow
}

// Error lists every row that failed, e.g. "priority (tw_priority=1) slower
// than fifo (tw_priority=0) by more than 5% beyond noise (avg: the 99%
// family-wise bound beyond no change and the estimate beyond 5%) at
// iodepth=8 (+7.10% [+6.02%, +8.31%] after 16 rounds)".
func (e *SlowerError) Error() string {
	var b strings.Builder
	metric := report.GateAvg
	var first *report.RowStats
	if len(e.Rows) > 0 && e.Rows[0].Stats != nil {
		first = e.Rows[0].Stats
		metric = first.Metric
	}
	switch {
	case first != nil && first.Paired:
		fmt.Fprintf(&b, "%s slower than %s by more than %g%% beyond noise (%s: the %g%% family-wise bound beyond no change and the estimate beyond %g%%) at ",
			e.New, e.Old, e.Pct, metric, (1-FamilyAlpha)*100, e.Pct)
	default:
		bound, drift := e.Pct, ""
		if first != nil && first.DriftPct > 0 {
			bound += first.DriftPct
			drift = fmt.Sprintf(", %g%% of it the drift allowance between runs", first.DriftPct)
		}
		fmt.Fprintf(&b, "%s slower than %s by more than %g%% beyond noise (%s: Holm-adjusted p < %g and the whole confidence interval beyond %g%%%s) at ",
			e.New, e.Old, e.Pct, metric, Alpha, bound, drift)
	}
	for i, r := range e.Rows {
		if i > 0 {
			b.WriteString(", ")
		}
		s := r.Stats
		if s.Paired {
			fmt.Fprintf(&b, "%s=%s (%+.2f%% [%+.2f%%, %+.2f%%] after %d rounds)", e.Key, r.Value, s.DeltaPct, s.LoPct, s.HiPct, s.NewN)
		} else {
			fmt.Fprintf(&b, "%s=%s (%+.2f%% [%+.2f%%, %+.2f%%] p=%.3g)", e.Key, r.Value, s.DeltaPct, s.LoPct, s.HiPct, s.P)
		}
	}
	return b.String()
}

// CheckSlower runs Gate and returns a *SlowerError when any row fails, nil
// otherwise.
func CheckSlower(c *report.Comparison, pct float64) error {
	rows := Gate(c, pct)
	if len(rows) == 0 {
		return nil
	}
	return &SlowerError{Key: c.Key, New: c.New.Label(), Old: c.Old.Label(), Pct: pct, Rows: rows}
}
