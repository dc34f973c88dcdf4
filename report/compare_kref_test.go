package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/kstage"
)

// krefFixture is kstagesFixture with the kernel's own SQPOLL reference at
// every point but the last (its run was interrupted), each repeat with its
// stages, and the deltas a judge gives the rows: at 256 the kernel's tw
// moved beyond noise, at 16 gofio's reap did, at 1 no stage did.
func krefFixture() *Comparison {
	c := kstagesFixture()
	nan := math.NaN()
	for i := range c.Rows[:len(c.Rows)-1] {
		r := &c.Rows[i]
		d := r.X
		r.Kernel = cmpRowFixture(r.Value, r.X, cmpReps(0.8*sideMedian(&r.New, GateAvg), 0.7*sideMedian(&r.New, GateAvg),
			0.9*sideMedian(&r.New, GateP99), 1.2*sideMedian(&r.New, GateIOPS)), nil, nil).New
		r.Kernel.Name = KernelRefName
		r.Kernel.KStages = &KStagesSide{Available: true, Traced: 20000, Joined: 20000,
			MeanUs: [kstage.NumStages]float64{1, 2.5, 0.75 + d/400, 40 + d/20, 4 + d/60, 1},
			P99Us:  [kstage.NumStages]float64{3, 6, 3 + d/100, 120 + d/10, 30 + d/8, 3}}
	}
	delta := func(m, lo, hi float64) KStageDelta { return KStageDelta{MeanUs: m, LoUs: lo, HiUs: hi} }
	set := func(value string, d *KStageDeltas) {
		for i := range c.Rows {
			if c.Rows[i].Value == value {
				c.Rows[i].KStageDeltas = d
			}
		}
	}
	set("1", &KStageDeltas{Confidence: 0.95, Paired: true, N: 5, Sum: delta(-0.4, -2.1, 1.3),
		Stages: [kstage.NumStages]KStageDelta{delta(0.1, -0.3, 0.5), delta(0, -0.1, 0.1), delta(0, -0.1, 0.1),
			delta(-0.3, -1.9, 1.3), delta(-0.1, -0.4, 0.2), delta(-0.1, -0.6, 0.4)}})
	set("16", &KStageDeltas{Confidence: 0.95, Paired: true, N: 5, Sum: delta(3.1, 2.0, 4.2),
		Stages: [kstage.NumStages]KStageDelta{delta(0.2, -0.1, 0.5), delta(0, -0.1, 0.1), delta(0, -0.1, 0.1),
			delta(0.4, -0.6, 1.4), delta(-2.1, -2.9, -1.3), delta(4.6, 3.1, 6.1)}})
	set("256", &KStageDeltas{Confidence: 0.95, Paired: true, N: 5, Sum: delta(-41.9, -55.2, -28.6),
		Stages: [kstage.NumStages]KStageDelta{delta(0.5, -1.2, 2.2), delta(0.1, -0.2, 0.4), delta(0, -0.3, 0.3),
			delta(-1.2, -9.8, 7.4), delta(-3.9, -5.1, -2.7), delta(-37.4, -50.3, -24.5)}})
	set("16384", &KStageDeltas{Confidence: 0.95, N: 1, Sum: delta(-2959.1, nan, nan),
		Stages: [kstage.NumStages]KStageDelta{delta(1, nan, nan), delta(0, nan, nan), delta(0, nan, nan),
			delta(-10, nan, nan), delta(-300, nan, nan), delta(-2650.1, nan, nan)}})
	return c
}

// TestKernelRefWriters checks the kernel reference and the stage
// explanation in every writer: the table's and Markdown's kernel columns
// and model cost, the explanation lines and their words, the CSV's
// kernel_ columns, the JSON's kernel_sqpoll, model_cost_pct and
// kernel_stage_delta_us (read back unchanged) and the chart's kernel line.
func TestKernelRefWriters(t *testing.T) {
	c := krefFixture()
	var txt, md, csvb, js, svg bytes.Buffer
	for _, w := range []struct {
		name string
		err  error
	}{
		{"table", WriteCompareTable(&txt, c)}, {"markdown", WriteCompareMarkdown(&md, c, -1)},
		{"csv", WriteCompareCSV(&csvb, c)}, {"json", WriteCompareJSON(&js, c)}, {"svg", WriteSVG(&svg, c)},
	} {
		if w.err != nil {
			t.Fatalf("%s: %v", w.name, w.err)
		}
	}
	cmpGolden(t, "compare_kref.txt", txt.Bytes())
	cmpGolden(t, "compare_kref.md", md.Bytes())
	cmpGolden(t, "compare_kref.csv", csvb.Bytes())
	cmpGolden(t, "compare_kref.json", js.Bytes())
	cmpGolden(t, "compare_kref.svg", svg.Bytes())

	words := strings.Join(strings.Fields(txt.String()), " ")
	for _, want := range []string{"kernel kernel p99 kernel IOPS kernel ktw kernel ktw p99 model cost",
		"+25.0%", // new / (0.8 new) - 1 at every point
		"256: -41.9 ±13.3 µs, in gofio (enter, reap): reap -37.4 ±12.9*, tw -3.9 ±1.2*",
		"16: +3.1 ±1.1 µs, in gofio (enter, reap): reap +4.6 ±1.5*",
		"1: -0.4 ±1.7 µs, no stage beyond noise: device -0.3 ±1.6",
		"16384: -2959.1 µs, in gofio (enter, reap): reap -2650.1",
		KernelRefRule, KStageDeltaRule} {
		if !strings.Contains(words, want) {
			t.Errorf("table lacks %q:\n%s", want, txt.String())
		}
	}
	if !strings.Contains(md.String(), "model cost") || !strings.Contains(md.String(), "- 256: -41.9") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if !strings.Contains(csvb.String(), "kernel_avg_lat_us_median,kernel_p99_us_median,kernel_iops_median,kernel_ktw_us_mean,kernel_ktw_p99_us_all_ios,model_cost_pct") {
		t.Errorf("csv header:\n%s", csvb.String())
	}
	if !strings.Contains(svg.String(), `id="kernel-avg"`) || !strings.Contains(svg.String(), "kernel SQPOLL avg") {
		t.Error("the chart has no kernel line")
	}

	var doc struct {
		C *ComparisonJSON `json:"gofio_compare"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		C struct {
			Rows []map[string]json.RawMessage `json:"rows"`
		} `json:"gofio_compare"`
	}
	if err := json.Unmarshal(js.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	for i, r := range raw.C.Rows {
		_, hasK := r["kernel_sqpoll"]
		_, hasD := r["kernel_stage_delta_us"]
		if want := i < len(raw.C.Rows)-1; hasK != want {
			t.Errorf("row %d: kernel_sqpoll %v, want %v", i, hasK, want)
		}
		if want := c.Rows[i].KStageDeltas != nil; hasD != want {
			t.Errorf("row %d: kernel_stage_delta_us %v, want %v", i, hasD, want)
		}
		if hasD {
			var d map[string]json.RawMessage
			if err := json.Unmarshal(r["kernel_stage_delta_us"], &d); err != nil {
				t.Fatal(err)
			}
			for s := range kstage.NumStages {
				if _, ok := d[s.String()]; !ok {
					t.Errorf("row %d: kernel_stage_delta_us lacks %s", i, s)
				}
			}
		}
	}
	back := doc.C.Comparison()
	for i := range c.Rows {
		a, b := &c.Rows[i], &back.Rows[i]
		if a.Kernel.Ran() != b.Kernel.Ran() || a.Kernel.Ran() && math.Abs(sideMedian(&a.Kernel, GateAvg)-sideMedian(&b.Kernel, GateAvg)) > 1e-3 {
			t.Errorf("row %s: kernel side not read back", a.Value)
		}
		if (a.KStageDeltas == nil) != (b.KStageDeltas == nil) ||
			a.KStageDeltas != nil && a.KStageDeltas.Words() != b.KStageDeltas.Words() {
			t.Errorf("row %s: deltas read back as %+v", a.Value, b.KStageDeltas)
		}
	}
}

// TestStageGateMetric: the stage metrics name their stage, and a
// repeat's value of one is its stage mean, NaN without stages.
func TestStageGateMetric(t *testing.T) {
	r := RepeatStats{AvgLatUs: 10, KStages: &RepeatKStages{Joined: 5, MeanUs: KStageUsJSON{1, 2, 3, 4, 5, 6}}}
	for name, want := range map[string]float64{"enter": 1, "submit": 2, "queue": 3, "device": 4, "ktw": 5, "reap": 6, "avg": 10} {
		if !ValidGateMetric(name) || r.Value(name) != want {
			t.Errorf("%s: valid %v, value %v, want %v", name, ValidGateMetric(name), r.Value(name), want)
		}
	}
	if ValidGateMetric("tw") || ValidGateMetric("kstage") {
		t.Error("tw (gofio's own wait) or an unknown name taken as a stage metric")
	}
	if v := (RepeatStats{AvgLatUs: 10}).Value("ktw"); !math.IsNaN(v) {
		t.Errorf("ktw without stages = %v, want NaN", v)
	}
}

// TestKStagesFromRepeats summarizes a side split by job from its
// repeats: means weighted by the joined I/Os, p99 the repeats' median.
func TestKStagesFromRepeats(t *testing.T) {
	reps := []RepeatStats{
		{KStages: &RepeatKStages{Traced: 10, Joined: 10, MeanUs: KStageUsJSON{1, 1, 1, 1, 10, 1}, P99Us: KStageUsJSON{0, 0, 0, 0, 50, 0}}},
		{KStages: &RepeatKStages{Traced: 31, Joined: 30, MeanUs: KStageUsJSON{1, 1, 1, 1, 20, 1}, P99Us: KStageUsJSON{0, 0, 0, 0, 70, 0}}},
		{KStages: &RepeatKStages{Traced: 20, Joined: 20, MeanUs: KStageUsJSON{1, 1, 1, 1, 30, 1}, P99Us: KStageUsJSON{0, 0, 0, 0, 60, 0}}},
		{},
	}
	s := KStagesFromRepeats(reps)
	if s == nil || s.Joined != 60 || s.Traced != 61 || math.Abs(s.MeanUs[kstage.TW]-(100+600+600)/60.0) > 1e-9 || s.P99Us[kstage.TW] != 60 {
		t.Fatalf("%+v", s)
	}
	if KStagesFromRepeats(reps[3:]) != nil {
		t.Error("stages from repeats without any")
	}
}
