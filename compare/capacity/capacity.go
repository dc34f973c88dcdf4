package capacity

import (
	"github.com/gofio/gofio/report"
)

// Find returns the capacity point of a curve under objective o: the
// index of the point of highest IOPS whose statistic meets o (the lowest
// such point on a tie), or -1 when none does.
func Find(points []Point, o SLO) int {
	best := -1
	for i, p := range points {
		if o.Met(p.Value(o.Stat)) && (best < 0 || p.IOPS > points[best].IOPS) {
			best = i
		}
	}
	return best
}

// Side returns one side's capacity under o, named name: its capacity
// point, its knee and its curve.
func Side(name string, points []Point, o SLO) report.CapacitySide {
	s := report.CapacitySide{Side: name, Curve: make([]report.CurvePoint, len(points))}
	for i, p := range points {
		s.Curve[i] = report.CurvePoint{Point: p.Label, IODepth: p.IODepth, RateIOPS: p.RateIOPS, IOPS: p.IOPS, AvgUs: p.AvgUs,
			P50Us: p.Pcts[0], P90Us: p.Pcts[1], P99Us: p.Pcts[2], P999Us: p.Pcts[3], P9999Us: p.Pcts[4], Met: o.Met(p.Value(o.Stat))}
		s.Response = s.Response || p.Response
	}
	if i := Find(points, o); i >= 0 {
		p := points[i]
		s.Met, s.Point, s.IODepth, s.IOPS, s.ValueUs = true, p.Label, p.IODepth, p.IOPS, p.Value(o.Stat)
	} else if len(points) > 0 {
		b := 0
		for i, p := range points {
			if p.Value(o.Stat) < points[b].Value(o.Stat) {
				b = i
			}
		}
		s.BestPoint, s.ValueUs = points[b].Label, points[b].Value(o.Stat)
	}
	if k := Knee(points, o.Stat); k >= 0 {
		p := points[k]
		s.Knee = &report.CapacityKnee{Point: p.Label, IODepth: p.IODepth, IOPS: p.IOPS, LatUs: p.Value(o.Stat)}
	}
	return s
}

// Report returns the capacity of a sweep over key under o: newSide's
// curve, and oldSide's under --compare (nil points without one).
// search says how the points were chosen ("list", "bisection",
// "fractions").
func Report(o SLO, key, search string, newName string, newPoints []Point, oldName string, oldPoints []Point) *report.Capacity {
	c := &report.Capacity{SLO: o.String(), Stat: o.Stat, LimitUs: o.LimitUs, Key: key, Search: search,
		CapacitySide: Side(newName, newPoints, o), KneeMethod: report.KneeMethod}
	if oldPoints != nil {
		old := Side(oldName, oldPoints, o)
		c.Old = &old
		c.SetChange()
	}
	return c
}
