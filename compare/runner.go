package compare

import (
	"github.com/gofio/gofio/internal/canary"
	"github.com/gofio/gofio/report"
)

// CanaryTolerancePct is how far, in percent, a canary item's median may
// move between two runs before the runner counts as changed: twice the
// 5% a gate commonly allows, so that a runner move small enough to pass
// unnoticed cannot by itself account for a failed 5% gate plus its
// interval (bench/results.md has the moves measured between runs).
const CanaryTolerancePct = 10

// CanaryAlpha is the level of each canary item's Mann–Whitney test: 0.01,
// so that the three items together falsely reject less than 3% of the time
// before the tolerance is applied.
const CanaryAlpha = 0.01

// CheckRunner compares the newer run's canary with the older run's, item
// by item, over each run's readings before and after its jobs pooled
// (Analyze on ns per unit, a smaller figure being faster): an item moved
// when p < CanaryAlpha and its whole interval lies beyond ±tolPct. A run
// without a canary leaves the runner unchecked, and the check says why.
func CheckRunner(old, cur *report.RunInfo, tolPct float64) *report.RunnerCheck {
	rc := &report.RunnerCheck{TolerancePct: tolPct, Alpha: CanaryAlpha}
	var oc, nc *canary.Record
	if old != nil {
		oc = old.Canary
	}
	if cur != nil {
		nc = cur.Canary
	}
	switch {
	case oc == nil && nc == nil:
		rc.Unchecked = "neither run has a runner canary"
		return rc
	case oc == nil:
		rc.Unchecked = "the old run has no runner canary"
		return rc
	case nc == nil:
		rc.Unchecked = "the new run has no runner canary"
		return rc
	}
	for _, item := range []string{canary.ItemCPU, canary.ItemMem, canary.ItemNull} {
		ov, nv := oc.Pooled(item), nc.Pooled(item)
		if len(ov) == 0 || len(nv) == 0 {
			continue
		}
		s := Analyze(nv, ov, report.GateAvg)
		c := report.CanaryChange{Item: item, OldNs: s.Old, NewNs: s.New, DeltaPct: s.DeltaPct, LoPct: s.LoPct, HiPct: s.HiPct, P: s.P}
		if s.Verdict != report.VerdictTooFew && s.HasInterval() {
			markMoved(&c, tolPct)
		}
		rc.Items = append(rc.Items, c)
	}
	if len(rc.Items) == 0 {
		rc.Unchecked = "the runs' canaries share no item"
	}
	return rc
}

// markMoved sets c.Moved when the item moved: p < CanaryAlpha and its
// whole interval beyond ±tolPct.
func markMoved(c *report.CanaryChange, tolPct float64) {
	if !(c.P < CanaryAlpha) {
		return
	}
	switch {
	case c.LoPct > tolPct:
		c.Moved = report.CanarySlower
	case c.HiPct < -tolPct:
		c.Moved = report.CanaryFaster
	}
}
