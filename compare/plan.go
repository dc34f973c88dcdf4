package compare

import (
	"fmt"
	"strings"
)

// Point is one run of a plan: a sweep point, a side and a repeat.
type Point struct {
	Index   int      // position in the plan, 0-based
	Row     int      // sweep point, 0-based: the row of the comparison
	Keys    []string // the swept options, in --sweep order (shared by all points)
	Values  []string // this point's value of each key
	Side    Side     // which side of the --compare this run is; SideNone without it
	Name    string   // the side's name (report.SideSpec.Name); "" without --compare
	Repeat  int      // 0-based repeat index (a round of a comparison in rounds)
	Repeats int      // repeats per point and side in the plan
	// UpTo says Repeats is the most rounds the row may run, not a fixed
	// count: a gated comparison stops a row once it is decided.
	UpTo bool

	// Sets are the --set overrides for this run, applied after the user's
	// own: KEY=VALUE for each swept key, then the compared key's value.
	Sets []string
	// Set is the compared KEY=VALUE of this side ("" without --compare).
	Set string
}

// Side is one side of an A/B comparison.
type Side int

// The sides of a comparison.
const (
	SideNone Side = iota // no --compare: the single side, filed as new
	SideNew              // KEY=A
	SideOld              // KEY=B
)

// Label returns the sweep point as printed in the table: the values joined
// by ",", or "" when nothing is swept.
func (p Point) Label() string { return strings.Join(p.Values, ",") }

// String describes the run for progress lines and errors, e.g.
// "iodepth=64 tw_priority=1 repeat 2/3".
func (p Point) String() string {
	var b strings.Builder
	for i, k := range p.Keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k + "=" + p.Values[i])
	}
	if p.Side != SideNone {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.Set)
	}
	if p.Repeats > 1 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if p.UpTo {
			fmt.Fprintf(&b, "round %d (of up to %d)", p.Repeat+1, p.Repeats)
		} else {
			fmt.Fprintf(&b, "repeat %d/%d", p.Repeat+1, p.Repeats)
		}
	}
	if b.Len() == 0 {
		return "run"
	}
	return b.String()
}

// Plan expands the sweeps (their product, the first sweep outermost) into
// runs. Each sweep point runs repeat times (at least once). With ab (nil
// without --compare) every repeat is a pair of runs, one per side, and the
// pair's order alternates: new first on even repeats, old first on odd
// ones, so a drift over time (page cache, thermal, a neighbour) does not
// favour one side. All runs of one sweep point are adjacent in the plan.
func Plan(sweeps []Sweep, ab *AB, repeat int) []Point {
	if repeat < 1 {
		repeat = 1
	}
	keys := make([]string, len(sweeps))
	rows := 1
	for i, s := range sweeps {
		keys[i] = s.Key
		rows *= len(s.Values)
	}
	type side struct {
		side      Side
		set, name string
	}
	sides := []side{{SideNone, "", ""}}
	if ab != nil {
		n, o := ab.Sides()
		sides = []side{{SideNew, ab.Key + "=" + ab.New, n.Name}, {SideOld, ab.Key + "=" + ab.Old, o.Name}}
	}
	points := make([]Point, 0, rows*repeat*len(sides))
	for row := 0; row < rows; row++ {
		values := make([]string, len(sweeps))
		sets := make([]string, 0, len(sweeps)+1)
		// Mixed radix, the last sweep varying fastest.
		rest := row
		for i := len(sweeps) - 1; i >= 0; i-- {
			n := len(sweeps[i].Values)
			values[i] = sweeps[i].Values[rest%n]
			rest /= n
		}
		for i, k := range keys {
			sets = append(sets, k+"="+values[i])
		}
		for r := 0; r < repeat; r++ {
			for j := range sides {
				sd := sides[j]
				if r%2 == 1 {
					sd = sides[len(sides)-1-j]
				}
				s := sets
				if sd.set != "" {
					s = append(sets[:len(sets):len(sets)], sd.set)
				}
				points = append(points, Point{
					Index:   len(points),
					Row:     row,
					Keys:    keys,
					Values:  values,
					Side:    sd.side,
					Name:    sd.name,
					Set:     sd.set,
					Repeat:  r,
					Repeats: repeat,
					Sets:    s,
				})
			}
		}
	}
	return points
}
