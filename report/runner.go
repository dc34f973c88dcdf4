package report

import (
	"encoding/json"
	"fmt"
	"strings"
)

// VerdictRunnerChanged is the verdict of a comparison across runs (a
// baseline diff, gofio diff, gofio history) whose runner canary moved
// beyond its tolerance in the direction that could explain the outcome: a
// slower runner under a failed gate, or a faster one under a passed gate,
// which it could have hidden a slowdown from.
const VerdictRunnerChanged = "runner changed"

// RunnerCheck is the canary's account of whether the runner changed
// between an older run and a newer one: each canary item's figures
// compared as the rows are (medians, Hodges–Lehmann interval, Mann–Whitney
// p). An item moved when p < Alpha and its whole interval lies beyond
// ±TolerancePct.
type RunnerCheck struct {
	TolerancePct float64        `json:"tolerance_pct"`
	Alpha        float64        `json:"alpha"`
	Items        []CanaryChange `json:"items"`
	// Unchecked says why the runner was not checked (a run without a
	// canary); "" when it was.
	Unchecked string `json:"unchecked,omitempty"`
}

// The directions of CanaryChange.Moved.
const (
	CanarySlower = "slower"
	CanaryFaster = "faster"
)

// CanaryChange is one canary item compared between two runs.
type CanaryChange struct {
	Item         string
	OldNs, NewNs float64 // medians of the old and new run's figures, ns per unit
	DeltaPct     float64
	LoPct, HiPct float64 // the interval of DeltaPct
	P            float64
	// Moved is CanarySlower or CanaryFaster when the item moved beyond
	// the tolerance, "" when it did not.
	Moved string
}

// MarshalJSON writes the change with its figures rounded.
func (c CanaryChange) MarshalJSON() ([]byte, error) {
	type plain struct {
		Item     string  `json:"item"`
		OldNs    float64 `json:"old_ns"`
		NewNs    float64 `json:"new_ns"`
		DeltaPct float64 `json:"delta_pct"`
		LoPct    float64 `json:"ci_lo_pct"`
		HiPct    float64 `json:"ci_hi_pct"`
		P        float64 `json:"p"`
		Moved    string  `json:"moved"`
	}
	return json.Marshal(plain{c.Item, cmpRound(c.OldNs, 3), cmpRound(c.NewNs, 3), cmpRound(c.DeltaPct, 2),
		cmpRound(c.LoPct, 2), cmpRound(c.HiPct, 2), cmpRound(c.P, 4), c.Moved})
}

// moved reports whether some item moved in direction dir.
func (rc *RunnerCheck) moved(dir string) bool {
	if rc == nil {
		return false
	}
	for _, c := range rc.Items {
		if c.Moved == dir {
			return true
		}
	}
	return false
}

// Moved reports whether some canary item moved, either way.
func (rc *RunnerCheck) Moved() bool { return rc.moved(CanarySlower) || rc.moved(CanaryFaster) }

// Explains reports whether the runner's change could explain a gate's
// outcome: a slower runner under a failed gate, a faster one under a
// passed gate (it could have hidden a slowdown).
func (rc *RunnerCheck) Explains(failed bool) bool {
	if failed {
		return rc.moved(CanarySlower)
	}
	return rc.moved(CanaryFaster)
}

// Words says in one phrase which items moved, e.g. "the canary's cpu item
// ran +105.8% [+80.1%, +130.2%] slower and its null item +40.2% [...]
// slower than in the old run, beyond its ±10% tolerance"; "" when none
// did.
func (rc *RunnerCheck) Words() string {
	if rc == nil {
		return ""
	}
	var parts []string
	for _, c := range rc.Items {
		if c.Moved != "" {
			parts = append(parts, fmt.Sprintf("its %s item %+.1f%% [%+.1f%%, %+.1f%%] %s", c.Item, c.DeltaPct, c.LoPct, c.HiPct, c.Moved))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("the runner canary moved: %s than in the old run, beyond its ±%g%% tolerance", strings.Join(parts, ", "), rc.TolerancePct)
}
