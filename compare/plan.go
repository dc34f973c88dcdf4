package compare

import (
	"fmt"
	"strings"

	"github.com/gofio/gofio/report"
)

// The --set overrides that select each policy.
const (
	SetPriority = "tw_priority=1"
	SetFIFO     = "tw_priority=0"
)

// Point is one run of a plan: a sweep point, a policy and a repeat.
type Point struct {
	Index   int      // position in the plan, 0-based
	Row     int      // sweep point, 0-based: the row of the comparison
	Keys    []string // the swept options, in --sweep order (shared by all points)
	Values  []string // this point's value of each key
	Policy  string   // report.PolicyPriority, report.PolicyFIFO, or "" without --compare
	Repeat  int      // 0-based repeat index
	Repeats int      // repeats per point and policy in the plan

	// Sets are the --set overrides for this run, applied after the user's
	// own: KEY=VALUE for each swept key, then tw_priority with --compare.
	Sets []string
}

// Label returns the sweep point as printed in the table: the values joined
// by ",", or "" when nothing is swept.
func (p Point) Label() string { return strings.Join(p.Values, ",") }

// String describes the run for progress lines and errors, e.g.
// "iodepth=64 priority repeat 2/3".
func (p Point) String() string {
	var b strings.Builder
	for i, k := range p.Keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k + "=" + p.Values[i])
	}
	if p.Policy != "" {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.Policy)
	}
	if p.Repeats > 1 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "repeat %d/%d", p.Repeat+1, p.Repeats)
	}
	if b.Len() == 0 {
		return "run"
	}
	return b.String()
}

// Plan expands the sweeps (their product, the first sweep outermost) into
// runs. Each sweep point runs repeat times (at least once). With compare
// every repeat is a pair of runs, one per policy, and the pair's order
// alternates: priority first on even repeats, baseline first on odd ones,
// so a drift over time (page cache, thermal, a neighbour) does not favour
// one side. All runs of one sweep point are adjacent in the plan.
func Plan(sweeps []Sweep, compare bool, repeat int) []Point {
	if repeat < 1 {
		repeat = 1
	}
	keys := make([]string, len(sweeps))
	rows := 1
	for i, s := range sweeps {
		keys[i] = s.Key
		rows *= len(s.Values)
	}
	policies := [][2]string{{""}}
	if compare {
		policies = [][2]string{
			{report.PolicyPriority, SetPriority},
			{report.PolicyFIFO, SetFIFO},
		}
	}
	points := make([]Point, 0, rows*repeat*len(policies))
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
			for j := range policies {
				pol := policies[j]
				if compare && r%2 == 1 {
					pol = policies[len(policies)-1-j]
				}
				s := sets
				if pol[1] != "" {
					s = append(sets[:len(sets):len(sets)], pol[1])
				}
				points = append(points, Point{
					Index:   len(points),
					Row:     row,
					Keys:    keys,
					Values:  values,
					Policy:  pol[0],
					Repeat:  r,
					Repeats: repeat,
					Sets:    s,
				})
			}
		}
	}
	return points
}
