package compare

import (
	"fmt"
	"strings"

	"github.com/gofio/gofio/report"
)

// Gate returns the rows where priority's average latency is worse than the
// baseline's by more than pct percent and the difference is not within
// noise (report.ComparisonRow.Classify): what --fail-if-slower=PCT fails
// on. Rows where a side did not run are never returned.
func Gate(c *report.Comparison, pct float64) (slower []report.ComparisonRow) {
	for _, r := range c.Rows {
		if r.HasDelta && !r.Noise && r.DeltaPct > pct {
			slower = append(slower, r)
		}
	}
	return slower
}

// SlowerError is the error of a failed --fail-if-slower gate; the front end
// maps it to its own exit code.
type SlowerError struct {
	Key  string // the swept key, as in Comparison.Key
	Pct  float64
	Rows []report.ComparisonRow
}

// Error lists every row that failed, e.g. "priority slower than fifo by
// more than 5% beyond noise at iodepth=8 (+7.10%), iodepth=16 (+12.66%)".
func (e *SlowerError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "priority slower than fifo by more than %g%% beyond noise at ", e.Pct)
	for i, r := range e.Rows {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%s (%+.2f%%)", e.Key, r.Value, r.DeltaPct)
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
	return &SlowerError{Key: c.Key, Pct: pct, Rows: rows}
}
