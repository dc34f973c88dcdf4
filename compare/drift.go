package compare

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/aclements/go-moremath/stats"

	"github.com/gofio/gofio/report"
)

// DriftFalseAlarm is the chance, per row and baseline diff of an unchanged
// job, that the drift between two runs exceeds the allowance DriftPct
// derives: the one-sided level of its prediction bound.
const DriftFalseAlarm = 0.01

// MinDriftRuns is the fewest runs DriftPct accepts: with n runs the
// bound's t quantile has n-1 degrees of freedom, 31.8 for one and 3.7 for
// four, so fewer than five runs give an allowance too wide to gate on.
const MinDriftRuns = 5

// DriftRow is the between-run drift of one row over same-setting runs.
type DriftRow struct {
	Value   string    // the row, as in the comparisons
	Medians []float64 // each run's median of the gate metric, in run order
	SDLog   float64   // sample standard deviation of the log medians
	Pct     float64   // the row's drift allowance, percent
}

// DriftPct estimates the between-run drift of runs of one unchanged job
// made apart in time (minutes, as a CI baseline and the run diffed against
// it are), and the allowance a baseline diff must grant it.
//
// The model is the two-level one of repeated sessions: the log of a run's
// median is μ + b + e, where b is the run's own shift (machine state,
// other load, placement) with variance σ², shared by all its repeats, and
// e the noise of the median within the run. The within-run test of a
// baseline diff sees e but not b, so two runs of the same job differ by
// b₁ - b₂ ~ N(0, 2σ²) beyond what its interval allows. With s the sample
// standard deviation of the n runs' log medians (which estimates σ² + Var
// e, so errs on the wide side), the allowance is the one-sided prediction
// bound exp(t·√2·s) - 1 with t the 1 - DriftFalseAlarm quantile of
// Student's t with n - 1 degrees of freedom: a fresh pair of runs of the
// unchanged job drifts further in a given direction with probability
// DriftFalseAlarm. The allowance of the whole comparison is the largest
// over its rows.
func DriftPct(runs []*Saved, gateMetric string) ([]DriftRow, float64, error) {
	if len(runs) < MinDriftRuns {
		return nil, 0, fmt.Errorf("gofio drift needs %d or more runs of the same job made minutes apart (got %d): with fewer the t quantile of the bound makes the allowance too wide to gate on",
			MinDriftRuns, len(runs))
	}
	if gateMetric == "" {
		gateMetric = report.GateAvg
	}
	var order []string
	meds := map[string][]float64{}
	for i, r := range runs {
		if i > 0 {
			if _, _, err := Diff(runs[0], r, Allow{}); err != nil {
				return nil, 0, fmt.Errorf("%s and %s: %w", runs[0].Path, r.Path, err)
			}
		}
		keys, m := runRows(r, gateMetric)
		if i == 0 {
			order = keys
		}
		for _, k := range keys {
			meds[k] = append(meds[k], m[k])
		}
	}
	t := stats.InvCDF(stats.TDist{V: float64(len(runs) - 1)})(1 - DriftFalseAlarm)
	var out []DriftRow
	worst := 0.0
	for _, key := range order {
		ms := meds[key]
		if len(ms) != len(runs) {
			return nil, 0, fmt.Errorf("row %s is not in every run", key)
		}
		logs := make([]float64, len(ms))
		for i, m := range ms {
			if !(m > 0) {
				return nil, 0, errors.New("a median is not positive: no drift in percent")
			}
			logs[i] = math.Log(m)
		}
		sd := stats.StdDev(logs)
		row := DriftRow{Value: key, Medians: ms, SDLog: sd, Pct: math.Expm1(t*math.Sqrt2*sd) * 100}
		worst = math.Max(worst, row.Pct)
		out = append(out, row)
	}
	return out, worst, nil
}

// sorted returns xs sorted in place.
func sorted(xs []float64) []float64 {
	sort.Float64s(xs)
	return xs
}

// ApplyDrift grants every judged row of a baseline diff the between-run
// drift allowance pct (DriftPct, or --drift): a verdict of faster or
// slower then needs the whole confidence interval beyond ±pct, not only
// beyond 0, and --fail-if-slower=G fails a row only when it lies beyond
// G + pct (report.RowStats.SlowerBeyond). It is a test of a minimum
// effect: drift up to pct is no evidence of a change.
func ApplyDrift(c *report.Comparison, pct float64) {
	c.DriftPct = pct
	if pct <= 0 {
		return
	}
	for i := range c.Rows {
		s := c.Rows[i].Stats
		if s == nil {
			continue
		}
		s.DriftPct = pct
		if s.Verdict != report.VerdictFaster && s.Verdict != report.VerdictSlower {
			continue
		}
		if !s.HasInterval() || s.LoPct <= pct && s.HiPct >= -pct {
			s.Verdict = report.VerdictNoEvidence
			c.Rows[i].Verdict = s.Verdict
		}
	}
}
