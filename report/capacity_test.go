package report

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
)

// synthCapacity is a --compare capacity: priority saturating at 200,000
// IOPS, fifo at 150,000, under p99<=2ms, fifo's knee unknown, and a gate
// against a baseline.
func synthCapacity() *Capacity {
	curve := func(scale float64) []CurvePoint {
		var pts []CurvePoint
		for i, d := range []int{1, 4, 16, 64, 256} {
			iops := []float64{20000, 80000, 190000, 200000, 201000}[i] * scale
			p99 := []float64{60, 90, 400, 1500, 6000}[i] / scale
			pts = append(pts, CurvePoint{Point: strconv.Itoa(d), IODepth: d, IOPS: iops, AvgUs: p99 / 3, P50Us: p99 / 4, P90Us: p99 / 2,
				P99Us: p99, P999Us: p99 * 2, P9999Us: p99 * 3, Met: p99 <= 2000})
		}
		return pts
	}
	c := &Capacity{SLO: "p99<=2ms", Stat: "p99", LimitUs: 2000, Key: "iodepth", Search: "list", KneeMethod: KneeMethod,
		CapacitySide: CapacitySide{Side: "priority", Met: true, Point: "64", IODepth: 64, IOPS: 200000, ValueUs: 1500,
			Knee: &CapacityKnee{Point: "16", IODepth: 16, IOPS: 190000, LatUs: 400}, Curve: curve(1)},
		Old:  &CapacitySide{Side: "fifo", Met: true, Point: "64", IODepth: 64, IOPS: 150000, ValueUs: 2000, Curve: curve(0.75)},
		Gate: &CapacityGate{Below: "90%", Reference: "the baseline b.json", ReferenceIOPS: 210000, FloorIOPS: 189000, Verdict: GatePass}}
	c.SetChange()
	return c
}

// TestCapacityWriters: the lines, the JSON keys and the chart, against
// golden files.
func TestCapacityWriters(t *testing.T) {
	c := synthCapacity()
	var b bytes.Buffer
	if err := WriteCapacity(&b, c); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "capacity.txt", b.Bytes())
	b.Reset()
	if err := WriteCapacitySVG(&b, c, &Comparison{RW: "randread", BS: "4k", Engine: "io_uring", SQPoll: "1", Version: "gofio-0.1.0", Kernel: "6.18.0"}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "capacity.svg", b.Bytes())
	raw, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"slo", "met", "iodepth", "iops", "value_us", "knee", "curve", "old", "change_pct", "gate", "knee_method"} {
		if _, ok := m[k]; !ok {
			t.Errorf("gofio_capacity lacks %q", k)
		}
	}
	if k := m["knee"].(map[string]any); k["iodepth"] != 16.0 || k["lat_us"] != 400.0 {
		t.Errorf("knee %v", k)
	}
	if m["old"].(map[string]any)["knee"] != nil {
		t.Errorf("fifo's knee %v, want null", m["old"].(map[string]any)["knee"])
	}
}

// TestCapacityNone: a side that met the objective nowhere says so, and
// where it came closest.
func TestCapacityNone(t *testing.T) {
	c := &Capacity{SLO: "p99<=50us", Stat: "p99", LimitUs: 50, Key: "rate_iops",
		CapacitySide: CapacitySide{Side: "priority", ValueUs: 61.2, BestPoint: "10%", Curve: []CurvePoint{{Point: "10%"}}, Response: true}}
	if got, want := c.Line(&c.CapacitySide), "none: p99 response above 50 us at every point (61.2 us at best, at rate_iops 10%)"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	g := &CapacityGate{Below: "100k", FloorIOPS: 100000, Verdict: GateFail}
	if got := g.Words(c); got != "FAIL: capacity none met the objective, below 100000 IOPS" {
		t.Errorf("gate %q", got)
	}
}
