package report

import "encoding/json"

// BaselineJSONKey is the top-level key under which a run's JSON output
// carries its comparison with the --baseline run, next to CompareJSONKey.
const BaselineJSONKey = "gofio_baseline"

// Baseline is a run's comparison with the saved run it was diffed against
// (--baseline), and the gate's outcome, for the JSON output.
type Baseline struct {
	Path string // the baseline file
	// FailIfSlower is the --fail-if-slower allowance in percent, < 0 when
	// the run was not gated.
	FailIfSlower float64
	// Verdict is "pass", "fail", VerdictRunnerChanged or "not gated".
	Verdict    string
	Comparison *Comparison
	// Runner is the canary's check of the runner between the baseline
	// and this run.
	Runner *RunnerCheck
}

// baselineJSON is Baseline's JSON shape.
type baselineJSON struct {
	Path         string          `json:"baseline"`
	FailIfSlower *float64        `json:"fail_if_slower"`
	DriftPct     float64         `json:"drift_pct"`
	Verdict      string          `json:"verdict"`
	Runner       *RunnerCheck    `json:"runner,omitempty"`
	Comparison   *ComparisonJSON `json:"comparison"`
}

// MarshalJSON writes b as BaselineJSONKey's value.
func (b *Baseline) MarshalJSON() ([]byte, error) {
	j := baselineJSON{Path: b.Path, DriftPct: b.Comparison.DriftPct, Verdict: b.Verdict, Runner: b.Runner, Comparison: CompareJSON(b.Comparison)}
	if b.FailIfSlower >= 0 {
		g := b.FailIfSlower
		j.FailIfSlower = &g
	}
	return json.Marshal(j)
}
