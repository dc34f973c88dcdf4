package compare

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseAB(t *testing.T) {
	check := func(k string) (string, error) {
		switch k {
		case "sqpoll", "sqthread_poll":
			return "sqthread_poll", nil
		case "ioengine", "tw_priority", "iodepth":
			return k, nil
		}
		return "", fmt.Errorf("unknown option %q", k)
	}
	tests := []struct {
		in, want, err string
	}{
		{"", "tw_priority=1,0", ""},
		{"ioengine=io_uring,libaio", "ioengine=io_uring,libaio", ""},
		{" sqpoll = 1 , 0 ", "sqthread_poll=1,0", ""},
		{"tw_priority=1,1", "tw_priority=1,1", ""},
		{"ioengine=io_uring", "", "exactly two values"},
		{"ioengine=a,b,c", "", "exactly two values"},
		{"ioengine=,libaio", "", "empty value"},
		{"=1,0", "", "want KEY=A,B"},
		{"nosuch=1,0", "", "unknown option"},
		{"bad key=1,0", "", "not an option name"},
	}
	for _, tt := range tests {
		ab, err := ParseAB(tt.in, check)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrBadCompare) {
				t.Errorf("ParseAB(%q) = %v, %v; want an error with %q", tt.in, ab, err, tt.err)
			}
			continue
		}
		if err != nil || ab.String() != tt.want {
			t.Errorf("ParseAB(%q) = %v, %v; want %s", tt.in, ab, err, tt.want)
		}
	}
}

func TestABSides(t *testing.T) {
	tests := []struct {
		ab       AB
		new, old string
	}{
		{DefaultAB, "priority (tw_priority=1)", "fifo (tw_priority=0)"},
		{AB{"ioengine", "io_uring", "libaio"}, "ioengine=io_uring", "ioengine=libaio"},
		{AB{"tw_priority", "1", "1"}, "new-priority (tw_priority=1)", "old-priority (tw_priority=1)"},
		{AB{"filename", "/dev/shm/a", "/dev/shm/b"}, "_dev_shm_a (filename=/dev/shm/a)", "_dev_shm_b (filename=/dev/shm/b)"},
	}
	for _, tt := range tests {
		n, o := tt.ab.Sides()
		if n.Label() != tt.new || o.Label() != tt.old {
			t.Errorf("%v: sides %q, %q; want %q, %q", tt.ab, n.Label(), o.Label(), tt.new, tt.old)
		}
	}
}

// planString renders a plan as "sets|side name|repeat" lines.
func planString(points []Point) string {
	var b strings.Builder
	for _, p := range points {
		fmt.Fprintf(&b, "%d %d %s|%s|%d\n", p.Index, p.Row, strings.Join(p.Sets, " "), p.Name, p.Repeat)
	}
	return b.String()
}

func TestPlan(t *testing.T) {
	depth := Sweep{Key: "iodepth", Values: []string{"1", "8"}}
	bs := Sweep{Key: "bs", Values: []string{"4k", "64k"}}
	tests := []struct {
		name    string
		sweeps  []Sweep
		compare *AB
		repeat  int
		want    string
	}{
		// Compare, three repeats: priority first on repeats 0 and 2,
		// baseline first on repeat 1; a point's runs are adjacent.
		{"compare alternates", []Sweep{depth}, &DefaultAB, 3, `0 0 iodepth=1 tw_priority=1|priority|0
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
		{"sweep only", []Sweep{depth}, nil, 2, `0 0 iodepth=1||0
1 0 iodepth=1||1
2 1 iodepth=8||0
3 1 iodepth=8||1
`},
		// Two sweeps: the product, the last sweep varying fastest.
		{"product", []Sweep{depth, bs}, nil, 1, `0 0 iodepth=1 bs=4k||0
1 1 iodepth=1 bs=64k||0
2 2 iodepth=8 bs=4k||0
3 3 iodepth=8 bs=64k||0
`},
		// Compare without a sweep: one row, one pair.
		{"compare only", nil, &DefaultAB, 1, `0 0 tw_priority=1|priority|0
1 0 tw_priority=0|fifo|0
`},
		// Any option: sides named by value, new first.
		{"compare ioengine", nil, &AB{Key: "ioengine", New: "io_uring", Old: "libaio"}, 2, `0 0 ioengine=io_uring|io_uring|0
1 0 ioengine=libaio|libaio|0
2 0 ioengine=libaio|libaio|1
3 0 ioengine=io_uring|io_uring|1
`},
		// An A/A test: equal values, distinct names.
		{"compare A/A", nil, &AB{Key: "tw_priority", New: "1", Old: "1"}, 1, `0 0 tw_priority=1|new-priority|0
1 0 tw_priority=1|old-priority|0
`},
		// A repeat below 1 means once.
		{"repeat zero", nil, nil, 0, "0 0 ||0\n"},
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
// exactly one run per side and repeat, that each repeat's pair is
// adjacent, and that each side goes first in half of the pairs.
func TestPlanPairing(t *testing.T) {
	sw := Sweep{Key: "iodepth", Values: []string{"1", "2", "4", "8", "16"}}
	const repeat = 4
	points := Plan([]Sweep{sw}, &DefaultAB, repeat)
	if len(points) != len(sw.Values)*repeat*2 {
		t.Fatalf("%d points, want %d", len(points), len(sw.Values)*repeat*2)
	}
	first := map[Side]int{}
	for i := 0; i < len(points); i += 2 {
		a, b := points[i], points[i+1]
		if a.Row != b.Row || a.Repeat != b.Repeat || a.Side == b.Side {
			t.Fatalf("points %d and %d are not a pair: %+v %+v", i, i+1, a, b)
		}
		if !slices.Equal(a.Values, b.Values) {
			t.Errorf("pair %d has values %v and %v", i/2, a.Values, b.Values)
		}
		wantSet := map[Side]string{SideNew: "tw_priority=1", SideOld: "tw_priority=0"}
		for k, p := range []Point{a, b} {
			if last := p.Sets[len(p.Sets)-1]; last != wantSet[p.Side] || p.Set != last {
				t.Errorf("point %d (%s) ends with %q, want %q", p.Index, p.Name, last, wantSet[p.Side])
			}
			if p.Repeats != repeat || p.Index != i+k {
				t.Errorf("point %d: Repeats=%d Index=%d", i, p.Repeats, p.Index)
			}
		}
		first[a.Side]++
	}
	if first[SideNew] != first[SideOld] {
		t.Errorf("new went first %d times, old %d: want equal", first[SideNew], first[SideOld])
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
		{Point{Keys: []string{"iodepth"}, Values: []string{"64"}, Side: SideNew, Set: "tw_priority=1", Repeat: 1, Repeats: 3}, "iodepth=64 tw_priority=1 repeat 2/3"},
		{Point{Keys: []string{"iodepth", "bs"}, Values: []string{"8", "4k"}, Repeats: 1}, "iodepth=8 bs=4k"},
		{Point{Side: SideOld, Set: "ioengine=libaio", Repeats: 1}, "ioengine=libaio"},
		{Point{Repeats: 1}, "run"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
