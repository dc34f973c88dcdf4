package capacity

import (
	"errors"
	"math"
	"strconv"
	"testing"
)

func TestParseSLO(t *testing.T) {
	for _, c := range []struct {
		in      string
		stat    string
		limitUs float64
		strict  bool
		str     string
	}{
		{"p99<=2ms", "p99", 2000, false, "p99<=2ms"},
		{" P99.9 <= 1.5 msec ", "p99.9", 1500, false, "p99.9<=1.5msec"},
		{"avg<500us", "avg", 500, true, "avg<500us"},
		{"p50<=800ns", "p50", 0.8, false, "p50<=800ns"},
		{"p99.99<=1s", "p99.99", 1e6, false, "p99.99<=1s"},
		{"p90<=250µs", "p90", 250, false, "p90<=250µs"},
	} {
		o, err := ParseSLO(c.in)
		if err != nil || o.Stat != c.stat || o.LimitUs != c.limitUs || o.Strict != c.strict || o.String() != c.str {
			t.Errorf("ParseSLO(%q) = %+v, %v", c.in, o, err)
		}
	}
	for _, in := range []string{"", "p99", "p98<=2ms", "p99<=2", "p99<=ms", "p99<=0ms", "p99<=2 weeks", "p99>=2ms", "p99<=-1ms"} {
		if _, err := ParseSLO(in); !errors.Is(err, ErrBadSLO) {
			t.Errorf("ParseSLO(%q): %v, want ErrBadSLO", in, err)
		}
	}
	o, _ := ParseSLO("p99<=2ms")
	if !o.Met(2000) || o.Met(2000.1) {
		t.Error("<= does not include the limit")
	}
	if o, _ = ParseSLO("p99<2ms"); o.Met(2000) {
		t.Error("< includes the limit")
	}
}

// device is a synthetic target: IOPS grow with the depth up to sat I/Os
// in flight at a fixed service time of svcUs, then stay flat while the
// latency grows with the queue (Little's law: latency = depth / IOPS);
// its p99 is twice its mean.
func device(depths []int, sat int, svcUs float64) []Point {
	var pts []Point
	for _, d := range depths {
		iops := float64(min(d, sat)) / svcUs * 1e6
		lat := float64(d) / iops * 1e6
		p := Point{Label: strconv.Itoa(d), IODepth: d, IOPS: iops, AvgUs: lat}
		p.Pcts = [5]float64{lat, 1.5 * lat, 2 * lat, 3 * lat, 4 * lat}
		pts = append(pts, p)
	}
	return pts
}

func pow2(lo, hi int) []int {
	var ds []int
	for d := lo; d <= hi; d *= 2 {
		ds = append(ds, d)
	}
	return ds
}

// TestKneeKnown checks Kneedle's knee on curves whose knee is known.
func TestKneeKnown(t *testing.T) {
	// The M/M/1 latency 1/(1-rho) against utilisation rho from 0.01 to
	// 0.99: on the scaled axes the slope is 1, Kneedle's knee, where
	// (1-rho)^2 = 0.98/98, rho = 0.9.
	var mm1 []Point
	for i := 1; i <= 99; i++ {
		rho := float64(i) / 100
		mm1 = append(mm1, Point{Label: strconv.Itoa(i), IOPS: rho, AvgUs: 1 / (1 - rho)})
	}
	if k := Knee(mm1, "avg"); k < 0 || math.Abs(mm1[k].IOPS-0.9) > 0.011 {
		t.Errorf("M/M/1 knee at rho %v, want 0.90", kneeAt(mm1, k))
	}
	// A hockey stick: IOPS grow with the depth to 32 at a flat latency,
	// then stay flat as the latency doubles: the knee is 32, wherever the
	// list starts and ends.
	for _, ds := range [][]int{pow2(1, 16384), pow2(4, 1024), pow2(8, 128)} {
		pts := device(ds, 32, 100)
		if k := Knee(pts, "p99"); k < 0 || pts[k].IODepth != 32 {
			t.Errorf("depths %v: knee at %v, want iodepth 32", ds, kneeAt(pts, k))
		}
	}
	// Saturation between two listed depths (20): the knee is the first
	// listed depth past it, where the IOPS are already the most.
	pts := device(pow2(1, 16384), 20, 100)
	if k := Knee(pts, "avg"); k < 0 || pts[k].IODepth != 32 {
		t.Errorf("saturation at 20: knee at %v, want iodepth 32", kneeAt(pts, k))
	}
	// A straight line, a curve rising faster than its IOPS, a flat one
	// and two points have none.
	line := []Point{{IOPS: 1, AvgUs: 1}, {IOPS: 2, AvgUs: 2}, {IOPS: 3, AvgUs: 3}, {IOPS: 4, AvgUs: 4}}
	concave := []Point{{IOPS: 1, AvgUs: 1}, {IOPS: 2, AvgUs: 5}, {IOPS: 3, AvgUs: 7}, {IOPS: 4, AvgUs: 8}}
	flat := []Point{{IOPS: 1, AvgUs: 5}, {IOPS: 2, AvgUs: 5}, {IOPS: 3, AvgUs: 5}}
	for name, c := range map[string][]Point{"line": line, "concave": concave, "flat": flat, "two": line[:2]} {
		if k := Knee(c, "avg"); k >= 0 {
			t.Errorf("%s: knee at %d, want none", name, k)
		}
	}
}

func kneeAt(pts []Point, k int) string {
	if k < 0 {
		return "none"
	}
	return pts[k].Label
}

// TestFind: the capacity is the highest IOPS whose statistic meets the
// objective, at the shallowest depth on a tie; none when no point meets.
func TestFind(t *testing.T) {
	o, _ := ParseSLO("p99<=2ms")
	pts := device(pow2(1, 16384), 20, 100) // p99 = 2 * depth / 200000 s past 20
	i := Find(pts, o)
	if i < 0 || pts[i].IODepth != 32 {
		t.Fatalf("capacity at %v, want iodepth 32: the shallowest of 32, 64 and 128, which run the same IOPS within the objective (256 misses it)", kneeAt(pts, i))
	}
	if i = Find(pts, SLO{Stat: "p99", LimitUs: 100}); i != -1 {
		t.Errorf("capacity at %d under an objective nothing meets", i)
	}
	s := Side("priority", pts, o)
	if !s.Met || s.IODepth != 32 || s.IOPS != 200000 || s.ValueUs != 320 || s.Knee == nil || s.Knee.IODepth != 32 || len(s.Curve) != 15 || !s.Curve[7].Met || s.Curve[8].Met {
		t.Errorf("side %+v", s)
	}
	s = Side("fifo", pts, SLO{Stat: "p99", LimitUs: 100})
	if s.Met || s.BestPoint != "1" || s.ValueUs != 200 || s.IOPS != 0 {
		t.Errorf("unmet side %+v", s)
	}
	c := Report(o, "iodepth", "list", "priority", pts, "fifo", device(pow2(1, 16384), 10, 100))
	if c.ChangePct == nil || math.Abs(*c.ChangePct-100) > 1e-9 {
		t.Errorf("change %v, want +100%% (saturation at 20 against 10)", c.ChangePct)
	}
}

// TestSearchFindsCapacity runs the bisection against synthetic devices
// saturating at depths from 1 to 4096, under objectives that put the
// deepest depth that meets them anywhere from 1 to past 16384: it must
// end with the deepest depth that meets within an eighth of the true
// one, on the meeting side, in at most 12 runs, fewer than the 15 of
// 1..16384.
func TestSearchFindsCapacity(t *testing.T) {
	most := 0
	defer func() { t.Logf("at most %d runs", most) }()
	for _, sat := range []int{1, 3, 20, 64, 100, 1000, 4096} {
		for _, limitUs := range []float64{150, 201, 500, 2000, 20000, 1e6} {
			o := SLO{Stat: "p99", LimitUs: limitUs}
			meets := func(d int) bool { return o.Met(device([]int{d}, sat, 100)[0].Value("p99")) }
			truth := 0
			for d := 1; d <= AutoMaxDepth && meets(d); d++ {
				truth = d
			}
			s := NewSearch(AutoMaxDepth, 1)
			runs := 0
			for d := s.Next(); d > 0; d = s.Next() {
				runs++
				if runs > 12 {
					t.Fatalf("sat %d, limit %g us: more than 12 runs", sat, limitUs)
				}
				s.Measured(0, d, meets(d))
			}
			most = max(most, runs)
			lo, hi := s.Bracket(0)
			switch {
			case truth == 0 && lo != 0:
				t.Errorf("sat %d, limit %g us: found %d, but depth 1 misses", sat, limitUs, lo)
			case truth > 0 && (lo > truth || !meets(lo) || float64(truth-lo) > max(1, float64(lo)/8)):
				t.Errorf("sat %d, limit %g us: found %d (misses at %d), truth %d", sat, limitUs, lo, hi, truth)
			}
		}
	}
}

// TestSearchTwoSides: under --compare each side's bracket closes, the
// probes shared.
func TestSearchTwoSides(t *testing.T) {
	s := NewSearch(1024, 2)
	limits := [2]int{40, 300} // the deepest depth each side meets
	runs := 0
	for d := s.Next(); d > 0; d = s.Next() {
		runs++
		for side, l := range limits {
			s.Measured(side, d, d <= l)
		}
	}
	for side, l := range limits {
		if lo, _ := s.Bracket(side); lo > l || float64(l-lo) > max(1, float64(lo)/8) {
			t.Errorf("side %d: found %d, want about %d", side, lo, l)
		}
	}
	if runs > 16 {
		t.Errorf("%d runs", runs)
	}
}

// TestSearchFollowsDeepestMet: noise that makes a shallower depth miss
// while a deeper one met does not stop the search: it follows the
// deepest depth that met.
func TestSearchFollowsDeepestMet(t *testing.T) {
	s := NewSearch(1024, 1)
	for _, m := range []struct {
		d   int
		met bool
	}{{1, false}, {4, true}, {16, false}} {
		s.Measured(0, m.d, m.met)
	}
	if lo, hi := s.Bracket(0); lo != 4 || hi != 16 {
		t.Errorf("bracket %d..%d, want 4..16", lo, hi)
	}
	if d := s.Next(); d != 8 {
		t.Errorf("next %d, want 8 (geometric middle of 4 and 16)", d)
	}
	s = NewSearch(1024, 1)
	s.Measured(0, 1, false)
	if d := s.Next(); d != 0 {
		t.Errorf("next %d after depth 1 missed, want the end", d)
	}
}
