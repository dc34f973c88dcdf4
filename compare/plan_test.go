package compare

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gofio/gofio/report"
)

// planString renders a plan as "sets|policy|repeat" lines.
func planString(points []Point) string {
	var b strings.Builder
	for _, p := range points {
		fmt.Fprintf(&b, "%d %d %s|%s|%d\n", p.Index, p.Row, strings.Join(p.Sets, " "), p.Policy, p.Repeat)
	}
	return b.String()
}

func TestPlan(t *testing.T) {
	depth := Sweep{Key: "iodepth", Values: []string{"1", "8"}}
	bs := Sweep{Key: "bs", Values: []string{"4k", "64k"}}
	tests := []struct {
		name    string
		sweeps  []Sweep
		compare bool
		repeat  int
		want    string
	}{
		// Compare, three repeats: priority first on repeats 0 and 2,
		// baseline first on repeat 1; a point's runs are adjacent.
		{"compare alternates", []Sweep{depth}, true, 3, `0 0 iodepth=1 tw_priority=1|priority|0
1 0 iodepth=1 tw_priority=0|fifo|0
2 0 iodepth=1 tw_priority=0|fifo|1
3 0 iodepth=1 tw_priority=1|priority|1
4 0 iodepth=1 tw_priority=1|priority|2
5 0 iodepth=1 tw_priority=0|fifo|2
6 1 iodepth=8 tw_priority=1|priority|0
7 1 iodepth=8 tw_priority=0|fifo|0
8 1 iodepth=8 tw_priority=0|fifo|1
9 1 iodepth=8 tw_priority=1|priority|1
10 1 iodepth=8 tw_priority=1|priority|2
11 1 iodepth=8 tw_priority=0|fifo|2
`},
		// Without compare the job's own policy runs, no tw_priority set.
		{"sweep only", []Sweep{depth}, false, 2, `0 0 iodepth=1||0
1 0 iodepth=1||1
2 1 iodepth=8||0
3 1 iodepth=8||1
`},
		// Two sweeps: the product, the last sweep varying fastest.
		{"product", []Sweep{depth, bs}, false, 1, `0 0 iodepth=1 bs=4k||0
1 1 iodepth=1 bs=64k||0
2 2 iodepth=8 bs=4k||0
3 3 iodepth=8 bs=64k||0
`},
		// Compare without a sweep: one row, one pair.
		{"compare only", nil, true, 1, `0 0 tw_priority=1|priority|0
1 0 tw_priority=0|fifo|0
`},
		// A repeat below 1 means once.
		{"repeat zero", nil, false, 0, "0 0 ||0\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := planString(Plan(tt.sweeps, tt.compare, tt.repeat))
			if got != tt.want {
				t.Errorf("plan:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestPlanPairing checks, for a larger plan, that every sweep point has
// exactly one run per policy and repeat, that each repeat's pair is
// adjacent, and that each side goes first in half of the pairs.
func TestPlanPairing(t *testing.T) {
	sw := Sweep{Key: "iodepth", Values: []string{"1", "2", "4", "8", "16"}}
	const repeat = 4
	points := Plan([]Sweep{sw}, true, repeat)
	if len(points) != len(sw.Values)*repeat*2 {
		t.Fatalf("%d points, want %d", len(points), len(sw.Values)*repeat*2)
	}
	first := map[string]int{}
	for i := 0; i < len(points); i += 2 {
		a, b := points[i], points[i+1]
		if a.Row != b.Row || a.Repeat != b.Repeat || a.Policy == b.Policy {
			t.Fatalf("points %d and %d are not a pair: %+v %+v", i, i+1, a, b)
		}
		if !slices.Equal(a.Values, b.Values) {
			t.Errorf("pair %d has values %v and %v", i/2, a.Values, b.Values)
		}
		wantSet := map[string]string{report.PolicyPriority: SetPriority, report.PolicyFIFO: SetFIFO}
		for k, p := range []Point{a, b} {
			if last := p.Sets[len(p.Sets)-1]; last != wantSet[p.Policy] {
				t.Errorf("point %d (%s) ends with %q, want %q", p.Index, p.Policy, last, wantSet[p.Policy])
			}
			if p.Repeats != repeat || p.Index != i+k {
				t.Errorf("point %d: Repeats=%d Index=%d", i, p.Repeats, p.Index)
			}
		}
		first[a.Policy]++
	}
	if first[report.PolicyPriority] != first[report.PolicyFIFO] {
		t.Errorf("priority went first %d times, fifo %d: want equal", first[report.PolicyPriority], first[report.PolicyFIFO])
	}
	// Appending the policy must not alias the sets of the other run.
	if points[0].Sets[1] == points[1].Sets[1] {
		t.Errorf("the pair shares its sets: %v %v", points[0].Sets, points[1].Sets)
	}
}

func TestPointString(t *testing.T) {
	tests := []struct {
		p    Point
		want string
	}{
		{Point{Keys: []string{"iodepth"}, Values: []string{"64"}, Policy: "priority", Repeat: 1, Repeats: 3}, "iodepth=64 priority repeat 2/3"},
		{Point{Keys: []string{"iodepth", "bs"}, Values: []string{"8", "4k"}, Repeats: 1}, "iodepth=8 bs=4k"},
		{Point{Policy: "fifo", Repeats: 1}, "fifo"},
		{Point{Repeats: 1}, "run"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
