package capacity

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gofio/gofio/report"
)

// saved returns a capacity as a run saves it and gofio diff reads it
// back: through its JSON.
func saved(t *testing.T, c *report.Capacity) *report.Capacity {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back report.Capacity
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

func mustSLO(t *testing.T, s string) SLO {
	t.Helper()
	o, err := ParseSLO(s)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// gradual is a synthetic target whose IOPS grow with the depth, ever
// more slowly, and whose p99 grows with it from the first I/O: slow ms at
// depth 64.
func gradual(depths []int, slow float64) []Point {
	var pts []Point
	for _, d := range depths {
		lat := slow * 1000 * float64(d) / 64
		p := Point{Label: strconv.Itoa(d), IODepth: d, IOPS: 1e5 * float64(d) / (float64(d) + 16), AvgUs: lat / 2}
		p.Pcts = [5]float64{lat / 2, 0.8 * lat, lat, 1.5 * lat, 2 * lat}
		pts = append(pts, p)
	}
	return pts
}

// TestCurvePointsRoundTrip: a side judged again from its saved curve
// under the objective it was saved under is the side that was saved.
func TestCurvePointsRoundTrip(t *testing.T) {
	o := mustSLO(t, "p99<=2ms")
	pts := device(pow2(1, 4096), 64, 100)
	for i := range pts {
		pts[i].Response = true
	}
	c := saved(t, Report(o, "iodepth", "list", "priority", pts, "", nil))
	again := Side(c.Side, CurvePoints(&c.CapacitySide), o)
	if !reflect.DeepEqual(again, c.CapacitySide) {
		t.Errorf("judged again: %+v\nsaved: %+v", again, c.CapacitySide)
	}
}

// TestDiff: the newer run's capacity against the older's, each judged
// from its saved curve: a device that saturates at depth 32 instead of 64
// loses half its capacity under an objective both meet at saturation; a
// tighter objective given to the diff judges both curves under it alone;
// the sides of two --compare runs are matched by name.
func TestDiff(t *testing.T) {
	o := mustSLO(t, "p99<=10ms")
	depths := pow2(1, 1024)
	old := saved(t, Report(o, "iodepth", "list", "priority", device(depths, 64, 100), "", nil))
	cur := saved(t, Report(o, "iodepth", "list", "priority", device(depths, 32, 100), "", nil))
	diffs, skipped, err := Diff(old, cur, nil)
	if err != nil || len(diffs) != 1 || len(skipped) != 0 {
		t.Fatalf("Diff: %v, %v, %v", diffs, skipped, err)
	}
	d := diffs[0]
	if d.Side != "new" || d.Old == nil || d.Old.Side != "old" || d.SLO != "p99<=10ms" {
		t.Fatalf("sides %q and %+v under %s", d.Side, d.Old, d.SLO)
	}
	if d.IOPS != cur.IOPS || d.Old.IOPS != old.IOPS || d.IODepth != cur.IODepth || d.Old.IODepth != old.IODepth {
		t.Errorf("diff's capacities %.0f at %d and %.0f at %d, the runs' %.0f at %d and %.0f at %d",
			d.IOPS, d.IODepth, d.Old.IOPS, d.Old.IODepth, cur.IOPS, cur.IODepth, old.IOPS, old.IODepth)
	}
	if d.ChangePct == nil || math.Abs(*d.ChangePct+50) > 1e-9 {
		t.Errorf("change %v, want -50%%: 320,000 IOPS against 640,000", d.ChangePct)
	}
	// Curves whose p99 grows with the depth from the start (1 ms at 64,
	// 2 ms at 128 on the old device, twice that on the new) under
	// p99<=1ms instead of the saved 10 ms: each capacity is the one Report
	// finds under it, at a shallower depth than the saved one.
	oldG := saved(t, Report(o, "iodepth", "list", "priority", gradual(depths, 1), "", nil))
	curG := saved(t, Report(o, "iodepth", "list", "priority", gradual(depths, 2), "", nil))
	tight := mustSLO(t, "p99<=1ms")
	diffs, _, err = Diff(oldG, curG, &tight)
	if err != nil {
		t.Fatal(err)
	}
	want := Report(tight, "iodepth", "list", "new", gradual(depths, 2), "old", gradual(depths, 1))
	if got := diffs[0]; got.SLO != "p99<=1ms" || got.IODepth != 32 || got.Old.IODepth != 64 || !reflect.DeepEqual(got, want) {
		t.Errorf("under p99<=1ms: iodepth %d and %d, %+v\nwant %+v", got.IODepth, got.Old.IODepth, got, want)
	}
	// Two --compare runs: each side against its namesake; a side only
	// one run has is skipped, saying so.
	oldAB := saved(t, Report(o, "iodepth", "list", "priority", device(depths, 64, 100), "fifo", device(depths, 64, 200)))
	curAB := saved(t, Report(o, "iodepth", "list", "priority", device(depths, 32, 100), "fifo", device(depths, 64, 200)))
	diffs, skipped, err = Diff(oldAB, curAB, nil)
	if err != nil || len(diffs) != 2 || len(skipped) != 0 {
		t.Fatalf("two --compare runs: %d diffs, %v, %v", len(diffs), skipped, err)
	}
	if diffs[0].Side != "priority new" || diffs[1].Old.Side != "fifo old" || *diffs[0].ChangePct != -50 || *diffs[1].ChangePct != 0 {
		t.Errorf("sides %q/%q %v%%, %q/%q %v%%", diffs[0].Side, diffs[0].Old.Side, *diffs[0].ChangePct, diffs[1].Side, diffs[1].Old.Side, *diffs[1].ChangePct)
	}
	curAB.Old.Side = "tw_priority=0"
	if diffs, skipped, _ = Diff(oldAB, curAB, nil); len(diffs) != 1 || strings.Join(skipped, "; ") != "side tw_priority=0: only in the new run; side fifo: only in the old run" {
		t.Errorf("unmatched sides: %d diffs, skipped %q", len(diffs), skipped)
	}
}

// TestDiffRefusals: curves over different keys never compare; runs
// saved under different objectives compare only under one given to the
// diff; the same objective written in other units is the same.
func TestDiffRefusals(t *testing.T) {
	depths := pow2(1, 64)
	a := saved(t, Report(mustSLO(t, "p99<=2ms"), "iodepth", "list", "priority", device(depths, 8, 100), "", nil))
	b := saved(t, Report(mustSLO(t, "p99<=2000us"), "iodepth", "list", "priority", device(depths, 8, 100), "", nil))
	if _, _, err := Diff(a, b, nil); err != nil {
		t.Errorf("2ms against 2000us: %v", err)
	}
	c := saved(t, Report(mustSLO(t, "p99.9<=2ms"), "iodepth", "list", "priority", device(depths, 8, 100), "", nil))
	if _, _, err := Diff(a, c, nil); err == nil || !strings.Contains(err.Error(), "give --slo") {
		t.Errorf("p99 against p99.9: %v, want a refusal asking for --slo", err)
	}
	o := mustSLO(t, "p99.9<=3ms")
	if _, _, err := Diff(a, c, &o); err != nil {
		t.Errorf("p99 against p99.9 under --slo: %v", err)
	}
	r := saved(t, Report(mustSLO(t, "p99<=2ms"), "rate_iops", "fractions", "priority", device(depths, 8, 100), "", nil))
	if _, _, err := Diff(a, r, &o); err == nil || !strings.Contains(err.Error(), "over iodepth, the new run's over rate_iops") {
		t.Errorf("iodepth against rate_iops: %v", err)
	}
}
