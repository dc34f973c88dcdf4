package compare

import (
	"fmt"
	"strings"
)

// DriftDetectPct is the slowdown a baseline gate must still be able to
// catch, by default: 25%, the effect the CI goal names.
const DriftDetectPct = 25

// DriftLimit is the largest drift allowance that leaves a gate: with
// --fail-if-slower gatePct a row fails only beyond gatePct plus the
// allowance, so an allowance of detectPct - gatePct or more lets a
// slowdown of detectPct pass whatever the runs measure.
func DriftLimit(gatePct, detectPct float64) float64 {
	return detectPct - gatePct
}

// TooNoisyError is gofio drift's answer when the runner's drift between
// runs needs an allowance of DriftLimit or more: no allowance is
// proposed, since it would empty the gate.
type TooNoisyError struct {
	Worst              DriftRow   // the row that drifts most
	Rows               []DriftRow // every row over the limit, worst first
	Limit              float64    // DriftLimit
	GatePct, DetectPct float64
}

// Error says how noisy, e.g. "the runner is too noisy to gate a baseline
// diff on: row 1 drifts ±84.0% between runs (sd of log 0.2100), 4.2 times
// the 20% that still lets a 25% slowdown fail a 5% gate; 3 of 4 rows are
// over it".
func (e *TooNoisyError) Error() string {
	var names []string
	for _, r := range e.Rows {
		names = append(names, fmt.Sprintf("%s ±%.1f%%", r.Value, r.Pct))
	}
	return fmt.Sprintf("the runner is too noisy to gate a baseline diff on: row %s drifts ±%.1f%% between runs (sd of log %.4f), %.1f times the %g%% that still lets a %g%% slowdown fail a %g%% gate; rows over it: %s",
		e.Worst.Value, e.Worst.Pct, e.Worst.SDLog, e.Worst.Pct/e.Limit, e.Limit, e.DetectPct, e.GatePct, strings.Join(names, ", "))
}

// CheckDrift returns a *TooNoisyError when any row's drift allowance
// reaches DriftLimit(gatePct, detectPct), nil otherwise.
func CheckDrift(rows []DriftRow, gatePct, detectPct float64) error {
	limit := DriftLimit(gatePct, detectPct)
	e := &TooNoisyError{Limit: limit, GatePct: gatePct, DetectPct: detectPct}
	for _, r := range rows {
		if r.Pct >= limit {
			e.Rows = append(e.Rows, r)
			if r.Pct > e.Worst.Pct {
				e.Worst = r
			}
		}
	}
	if len(e.Rows) == 0 {
		return nil
	}
	return e
}
