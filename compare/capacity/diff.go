package capacity

import (
	"fmt"

	"github.com/gofio/gofio/report"
)

// This file is gofio diff's side of the capacity: two saved runs'
// capacities (each run's gofio_capacity) compared side by side, judged
// again from their saved curves under one objective.

// CurvePoints returns the points of a saved side's curve, as Side made
// it: the figures every objective can be judged on.
func CurvePoints(s *report.CapacitySide) []Point {
	pts := make([]Point, len(s.Curve))
	for i, c := range s.Curve {
		pts[i] = Point{Label: c.Point, IODepth: c.IODepth, RateIOPS: c.RateIOPS, IOPS: c.IOPS, AvgUs: c.AvgUs,
			Pcts: [len(PctList)]float64{c.P50Us, c.P90Us, c.P99Us, c.P999Us, c.P9999Us}, Response: s.Response}
	}
	return pts
}

// SavedSLO returns the objective a saved capacity was measured under.
func SavedSLO(c *report.Capacity) (SLO, error) {
	o, err := ParseSLO(c.SLO)
	if err != nil {
		return SLO{}, fmt.Errorf("the saved capacity's objective: %w", err)
	}
	return o, nil
}

// sameSLO reports whether a and b judge alike: the same statistic, limit
// and comparison, however the limit was written (2ms, 2000us).
func sameSLO(a, b SLO) bool {
	return a.Stat == b.Stat && a.LimitUs == b.LimitUs && a.Strict == b.Strict
}

// Diff compares the capacity of a newer saved run (cur) with an older
// one's (old), each side the runs share: the one side of a run without
// --compare, or each side of two --compare runs, matched by name. Each
// result holds cur's side as its side under test, named "new" (or "NAME
// new"), old's as its Old, named "old", and the change between them,
// both judged again from their saved curves under o, or, when o is nil,
// under the objective both were saved under. It refuses curves over
// different keys (iodepth against rate_iops), and, without o, runs saved
// under different objectives; skipped lists the sides only one run has.
func Diff(old, cur *report.Capacity, o *SLO) (diffs []*report.Capacity, skipped []string, err error) {
	if old.Key != cur.Key {
		return nil, nil, fmt.Errorf("the old run's capacity is over %s, the new run's over %s: their curves do not compare", old.Key, cur.Key)
	}
	if o == nil {
		a, err := SavedSLO(old)
		if err != nil {
			return nil, nil, err
		}
		b, err := SavedSLO(cur)
		if err != nil {
			return nil, nil, err
		}
		if !sameSLO(a, b) {
			return nil, nil, fmt.Errorf("the old run's capacity is under %s, the new run's under %s: give --slo to judge both curves under one objective", a, b)
		}
		o = &b
	}
	olds, curs := old.Sides(), cur.Sides()
	for _, cs := range curs {
		os := matchSide(olds, curs, cs)
		if os == nil {
			skipped = append(skipped, fmt.Sprintf("side %s: only in the new run", cs.Side))
			continue
		}
		newName, oldName := "new", "old"
		if len(curs) > 1 {
			newName, oldName = cs.Side+" new", cs.Side+" old"
		}
		c := Report(*o, cur.Key, cur.Search, newName, CurvePoints(cs), oldName, CurvePoints(os))
		c.MaxRate = cur.MaxRate
		diffs = append(diffs, c)
	}
	for _, os := range olds {
		if matchSide(curs, olds, os) == nil {
			skipped = append(skipped, fmt.Sprintf("side %s: only in the old run", os.Side))
		}
	}
	return diffs, skipped, nil
}

// matchSide returns the side of others that compares with s, one of
// mine: the one of the same name, or, where both runs have one side
// each, that side whatever its name (two runs of one policy each, as
// compare.Diff matches their rows).
func matchSide(others, mine []*report.CapacitySide, s *report.CapacitySide) *report.CapacitySide {
	if len(others) == 1 && len(mine) == 1 {
		return others[0]
	}
	for _, o := range others {
		if o.Side == s.Side {
			return o
		}
	}
	return nil
}
