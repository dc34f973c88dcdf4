package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/kstage"
)

// kstagesFixture is cmpFixture with kernel stages on both sides: stage
// means that grow with the depth, the kernel's tw wait smaller on the new
// side, and the last row's old side (one interrupted repeat) unavailable,
// as when tracing could not run.
func kstagesFixture() *Comparison {
	c := cmpFixture()
	for i := range c.Rows {
		r := &c.Rows[i]
		d := r.X
		for k, s := range []*ComparisonSide{&r.New, &r.Old} {
			if !s.Ran() {
				continue
			}
			tw := 5 + d/50
			if k == 0 {
				tw = 3 + d/80
			}
			s.KStages = &KStagesSide{Available: true, Traced: 20000, Joined: 19990 - uint64(k)*10,
				MeanUs: [kstage.NumStages]float64{1.25 + d/1000, 2.5, 0.75 + d/400, 40 + d/20, tw, 1 + sideMedian(s, GateAvg)/2},
				P99Us:  [kstage.NumStages]float64{4, 6, 3 + d/100, 120 + d/10, 8 * tw, 3 + sideMedian(s, GateAvg)}}
		}
	}
	last := &c.Rows[len(c.Rows)-1]
	last.Old.KStages = &KStagesSide{Reason: "not root: tracing needs CAP_BPF and CAP_PERFMON"}
	return c
}

func TestKStagesTableGolden(t *testing.T) {
	c := kstagesFixture()
	var b bytes.Buffer
	if err := WriteCompareTable(&b, c); err != nil {
		t.Fatal(err)
	}
	cmpGolden(t, "compare_kstages.txt", b.Bytes())
	out := b.String()
	for _, want := range []string{"new ktw", "old ktw p99", KTWRule, KStagesRule,
		"unavailable: not root", "enter  submit  queue  device"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	// Depth 256: ktw 6.20 on the new side, 10.12 on the old, and a Δ%
	// line per stage: tw -38.7%.
	lines := strings.Split(out, "\n")
	var main, delta string
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) > 1 && f[0] == "256" && strings.Contains(l, "faster") {
			main = l
		}
		if len(f) > 1 && f[0] == "256" && f[1] == "Δ%" {
			delta = l
		}
	}
	if !strings.Contains(main, " 6.20 ") || !strings.Contains(main, " 10.12 ") {
		t.Errorf("row 256 lacks the kernel tw means 6.20 and 10.12: %q", main)
	}
	if f := strings.Fields(delta); len(f) != 9 || f[6] != "-38.7%" {
		t.Errorf("row 256's Δ%% line = %q, want tw -38.7%%", delta)
	}
	// Without kernel stages nothing changes: the plain fixture's table
	// has no kernel column.
	b.Reset()
	if err := WriteCompareTable(&b, cmpFixture()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "ktw") || strings.Contains(b.String(), "kernel stages") {
		t.Errorf("a table without kernel stages shows them:\n%s", b.String())
	}
}

func TestKStagesSumAndShares(t *testing.T) {
	s := &KStagesSide{Available: true, Traced: 10, Joined: 9, MeanUs: [kstage.NumStages]float64{1, 2, 3, 4, 5, 5}}
	if s.SumUs() != 20 || math.Abs(s.JoinRate()-0.9) > 1e-12 || kstageShare(s, int(kstage.TW)) != 0.25 {
		t.Errorf("sum %v join %v tw share %v, want 20, 0.9, 0.25", s.SumUs(), s.JoinRate(), kstageShare(s, int(kstage.TW)))
	}
	var k kstage.KernelStages
	k.Available = true
	k.Traced = 3
	k.Add(&[kstage.NumStages]uint64{1000, 2000, 3000, 4000, 5000, 6000})
	k.Add(&[kstage.NumStages]uint64{3000, 2000, 3000, 4000, 7000, 6000})
	got := NewKStagesSide(&k)
	if got.MeanUs[kstage.Enter] != 2 || got.MeanUs[kstage.TW] != 6 || got.Joined != 2 || got.P99Us[kstage.TW] < 6.9 || got.P99Us[kstage.TW] > 7.1 {
		t.Errorf("NewKStagesSide = %+v", got)
	}
	if NewKStagesSide(&kstage.KernelStages{Reason: "no tracefs"}).Measured() {
		t.Error("an unavailable side counts as measured")
	}
}

func TestKStagesMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCompareMarkdown(&b, kstagesFixture(), 10); err != nil {
		t.Fatal(err)
	}
	cmpGolden(t, "compare_kstages.md", b.Bytes())
	out := b.String()
	for _, want := range []string{"| new ktw | old ktw |", "| 256 | Δ% |", "unavailable: not root", "**slower**"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

func TestKStagesCSVGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCompareCSV(&b, kstagesFixture()); err != nil {
		t.Fatal(err)
	}
	cmpGolden(t, "compare_kstages.csv", b.Bytes())
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	row256, last := recs[4], recs[len(recs)-1]
	for name, want := range map[string]string{"new_ktw_us_mean": "6.20", "old_ktw_us_mean": "10.12",
		"new_kstage_tw_us_mean": "6.200", "new_kstage_device_us_mean": "52.800", "new_kstage_join_rate": "0.9995"} {
		if i, ok := col[name]; !ok || row256[i] != want {
			t.Errorf("depth 256: %s = %q, want %q", name, row256[min(i, len(row256)-1)], want)
		}
	}
	if last[col["old_kstage_unavailable"]] != "not root: tracing needs CAP_BPF and CAP_PERFMON" || last[col["old_ktw_us_mean"]] != "" {
		t.Errorf("last row: unavailable %q, ktw %q", last[col["old_kstage_unavailable"]], last[col["old_ktw_us_mean"]])
	}
}

func TestKStagesJSONGoldenRoundTrip(t *testing.T) {
	c := kstagesFixture()
	var b bytes.Buffer
	if err := WriteCompareJSON(&b, c); err != nil {
		t.Fatal(err)
	}
	cmpGolden(t, "compare_kstages.json", b.Bytes())
	var doc map[string]*ComparisonJSON
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	back := doc[CompareJSONKey].Comparison()
	for i := range c.Rows {
		for k, pair := range [][2]*ComparisonSide{{&c.Rows[i].New, &back.Rows[i].New}, {&c.Rows[i].Old, &back.Rows[i].Old}} {
			w, g := pair[0].KStages, pair[1].KStages
			if (w == nil) != (g == nil) {
				t.Fatalf("row %d side %d: stages %v came back as %v", i, k, w, g)
			}
			if w == nil {
				continue
			}
			if w.Available != g.Available || w.Reason != g.Reason || w.Joined != g.Joined || w.Traced != g.Traced {
				t.Errorf("row %d side %d: %+v came back as %+v", i, k, w, g)
			}
			for s := range w.MeanUs {
				if math.Abs(w.MeanUs[s]-g.MeanUs[s]) > 0.001 || math.Abs(w.P99Us[s]-g.P99Us[s]) > 0.001 {
					t.Errorf("row %d side %d stage %s: %v/%v came back as %v/%v", i, k, kstage.Stage(s), w.MeanUs[s], w.P99Us[s], g.MeanUs[s], g.P99Us[s])
				}
			}
		}
	}
}

func TestKStagesSVGGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSVG(&b, kstagesFixture()); err != nil {
		t.Fatal(err)
	}
	cmpGolden(t, "compare_kstages.svg", b.Bytes())
	svgXMLLint(t, b.Bytes())
	out := b.String()
	// One stacked bar per depth and side: six segments each, but the
	// unavailable old side of the last row, which reads n/a.
	if n := strings.Count(out, "<title>256 priority "); n != int(kstage.NumStages) {
		t.Errorf("depth 256's new bar has %d segments, want %d", n, kstage.NumStages)
	}
	if n := strings.Count(out, "<rect x=") - strings.Count(plainSVG(t), "<rect x="); n != 1+11*int(kstage.NumStages)+int(kstage.NumStages) {
		t.Errorf("%d rects added, want a frame, 11 bars of %d stages and %d legend keys", n, kstage.NumStages, kstage.NumStages)
	}
	height := fmt.Sprintf(`height="%d"`, svgH+svgKPanelH+12*max(0, len(svgRuleLines(kstagesFixture()))-4))
	for _, want := range []string{`id="kstages"`, ">n/a<", "where the latency goes", height} {
		if !strings.Contains(out, want) {
			t.Errorf("svg lacks %q", want)
		}
	}
}

// plainSVG is the chart of the fixture without kernel stages.
func plainSVG(t *testing.T) string {
	var b bytes.Buffer
	if err := WriteSVG(&b, cmpFixture()); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestKStagesJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, []*Comparison{kstagesFixture()}, []float64{10}); err != nil {
		t.Fatal(err)
	}
	cmpGolden(t, "compare_kstages_junit.xml", b.Bytes())
	out := b.String()
	for _, want := range []string{"kernel stages new (mean usec): enter=1.51 submit=2.50", "kernel stages old: unavailable: not root",
		"new ktw: 6.20", "old ktw p99: 80.96"} {
		if !strings.Contains(out, want) {
			t.Errorf("junit lacks %q", want)
		}
	}
	if doc := readJUnit(t, b.Bytes()); doc.Tests != 6 || doc.Failures != 2 {
		t.Errorf("tests %d failures %d, want 6 and 2", doc.Tests, doc.Failures)
	}
}

// TestKStagesOneSide checks a sweep without --compare (the task-run mode
// table) with kernel stages: the one side's ktw columns, a stage table
// without a side column, a CSV whose old cells stay empty, one bar a row.
func TestKStagesOneSide(t *testing.T) {
	c := modeFixture()
	for i := range c.Rows {
		c.Rows[i].New.KStages = &KStagesSide{Available: true, Traced: 100, Joined: 100,
			MeanUs: [kstage.NumStages]float64{1, 2, 3, 40, float64(i + 1), 5}, P99Us: [kstage.NumStages]float64{2, 4, 6, 80, float64(10 * (i + 1)), 10}}
	}
	var b bytes.Buffer
	if err := WriteCompareTable(&b, c); err != nil {
		t.Fatal(err)
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	for _, want := range []string{"taskrun avg lat p99 tw tw p99 IOPS ktw ktw p99",
		"iodepth,taskrun_mode enter submit queue device tw reap sum joined",
		"64,sqpoll sqpoll 22.00 44.00 2.20 11.00 45455 8.00 80.00",
		"64,sqpoll 1.00 2.00 3.00 40.00 8.00 5.00 59.00 100.00%"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := WriteCompareCSV(&b, c); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range recs[0] {
		if h == "new_ktw_us_mean" && recs[8][i] != "8.00" || h == "old_ktw_us_mean" && recs[8][i] != "" {
			t.Errorf("csv %s = %q", h, recs[8][i])
		}
	}
	b.Reset()
	if err := WriteSVG(&b, c); err != nil {
		t.Fatal(err)
	}
	svgXMLLint(t, b.Bytes())
	if n := strings.Count(b.String(), "<title>64,sqpoll "); n != int(kstage.NumStages) {
		t.Errorf("row 64,sqpoll has %d segments, want %d", n, kstage.NumStages)
	}
}

// TestKStagesAllUnavailable checks that a comparison no side of which could
// trace (a tmpfs target) says why in one line, not a table of dashes, and
// its ktw cells read "-".
func TestKStagesAllUnavailable(t *testing.T) {
	c := cmpFixture()
	for i := range c.Rows {
		for _, s := range []*ComparisonSide{&c.Rows[i].New, &c.Rows[i].Old} {
			if s.Ran() {
				s.KStages = &KStagesSide{Reason: "target /dev/shm/x is not a block device"}
			}
		}
	}
	var b bytes.Buffer
	if err := WriteCompareTable(&b, c); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "not a block device"); n != 1 || !strings.Contains(out, "\nkernel stages unavailable: target /dev/shm/x is not a block device\n") {
		t.Errorf("the reason appears %d times, want once on its own line:\n%s", n, out)
	}
	if strings.Contains(out, "enter  submit") {
		t.Errorf("a stage table of nothing:\n%s", out)
	}
	b.Reset()
	if err := WriteCompareMarkdown(&b, c, -1); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "not a block device"); n != 1 {
		t.Errorf("markdown gives the reason %d times, want once", n)
	}
}

// TestSVGLabelStep checks the x axis labels of a long sweep of two keys:
// far enough apart not to overlap, the last row always labelled.
func TestSVGLabelStep(t *testing.T) {
	c := &Comparison{}
	for i := 0; i < 52; i++ {
		c.Rows = append(c.Rows, ComparisonRow{Value: "4096,sqpoll"})
	}
	slot := (svgRight - svgLeft) / 52
	step := svgLabelStep(c, slot)
	if float64(step)*slot < 11*svgCharW {
		t.Errorf("step %d: labels %.1f units apart, narrower than a label (%.1f)", step, float64(step)*slot, 11*svgCharW)
	}
	last := -1
	for i := range 52 {
		if !svgLabelled(i, 52, step) {
			continue
		}
		if last >= 0 && i-last < step {
			t.Errorf("rows %d and %d labelled, %d apart, step %d", last, i, i-last, step)
		}
		last = i
	}
	if last != 51 {
		t.Errorf("the last labelled row is %d, want 51", last)
	}
	if s := svgLabelStep(&Comparison{Rows: c.Rows[:6]}, (svgRight-svgLeft)/6); s != 1 {
		t.Errorf("six rows: step %d, want 1", s)
	}
}

// TestWriteSVGOneSideLegend checks that a chart without --compare names
// only the lines it draws and says why its Δ strip is empty.
func TestWriteSVGOneSideLegend(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSVG(&b, modeFixture()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"old avg", "old p99", "old tw wait", "new avg"} {
		if strings.Contains(out, ">"+bad) {
			t.Errorf("one-side chart's legend has %q", bad)
		}
	}
	if !strings.Contains(out, "one side (no --compare): nothing to compare") {
		t.Error("the empty Δ strip does not say why")
	}
}

// TestSVGStageColors checks that every stage has a color of its own: a
// stage added between two others without one fails here.
func TestSVGStageColors(t *testing.T) {
	seen := map[string]kstage.Stage{}
	for s := range kstage.NumStages {
		c := svgStageColors[s]
		if o, ok := seen[c]; c == "" || ok {
			t.Errorf("stage %s: color %q empty or %s's", s, c, o)
		}
		seen[c] = s
	}
}
