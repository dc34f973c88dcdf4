package compare

import (
	"fmt"
	"strings"

	"github.com/gofio/gofio/report"
)

// Judge sets c.GateMetric and gives every row where both sides ran its
// statistics (Analyze) over the per-repeat values of gateMetric ("" is
// report.GateAvg). A row where a side did not run gets none.
func Judge(c *report.Comparison, gateMetric string) {
	if gateMetric == "" {
		gateMetric = report.GateAvg
	}
	c.GateMetric = gateMetric
	for i := range c.Rows {
		r := &c.Rows[i]
		r.Stats = nil
		if !r.New.Ran() || !r.Old.Ran() {
			continue
		}
		s := Analyze(r.New.Values(gateMetric), r.Old.Values(gateMetric), gateMetric)
		r.Stats = &s
	}
	JudgeKLock(c)
}

// Gate returns the rows where the new side is slower than the old one by
// more than pct percent beyond noise (report.RowStats.SlowerBeyond: the U
// test rejects at Alpha and the whole confidence interval of the change
// lies beyond pct): what --fail-if-slower=PCT fails on. Rows without
// statistics are never returned.
func Gate(c *report.Comparison, pct float64) (slower []report.ComparisonRow) {
	for _, r := range c.Rows {
		if r.Stats.SlowerBeyond(pct) {
			slower = append(slower, r)
		}
	}
	return slower
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
// than fifo (tw_priority=0) by more than 5% beyond noise (avg, p < 0.05 and
// the 95% interval above +5%) at iodepth=8 (+7.10% [+6.02%, +8.31%] p=0.008)".
func (e *SlowerError) Error() string {
	var b strings.Builder
	metric := report.GateAvg
	if len(e.Rows) > 0 && e.Rows[0].Stats != nil {
		metric = e.Rows[0].Stats.Metric
	}
	bound, drift := e.Pct, ""
	if len(e.Rows) > 0 && e.Rows[0].Stats != nil && e.Rows[0].Stats.DriftPct > 0 {
		bound += e.Rows[0].Stats.DriftPct
		drift = fmt.Sprintf(", %g%% of it the drift allowance between runs", e.Rows[0].Stats.DriftPct)
	}
	fmt.Fprintf(&b, "%s slower than %s by more than %g%% beyond noise (%s: p < %g and the whole confidence interval beyond %g%%%s) at ",
		e.New, e.Old, e.Pct, metric, Alpha, bound, drift)
	for i, r := range e.Rows {
		if i > 0 {
			b.WriteString(", ")
		}
		s := r.Stats
		fmt.Fprintf(&b, "%s=%s (%+.2f%% [%+.2f%%, %+.2f%%] p=%.3g)", e.Key, r.Value, s.DeltaPct, s.LoPct, s.HiPct, s.P)
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
