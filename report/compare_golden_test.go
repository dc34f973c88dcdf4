package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The report package's golden tests share one -update flag; it is
// registered here only if another test file has not done so already.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata")
	}
}

func cmpUpdate() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// cmpGolden compares got with testdata/name, or rewrites it with -update.
func cmpGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if cmpUpdate() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run 'Compare|SVG' ./report/ -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; got:\n%s", path, got)
	}
}

// cmpRowFixture builds a row from per-repeat (avg, p50, p99, iops) of
// each side; a nil side did not run. st, when both sides ran, is the row's
// statistics as compare.Analyze would give them (the medians and Δ% are
// filled in here); the writers only print them.
func cmpRowFixture(value string, x float64, new, old [][4]float64, st *RowStats) ComparisonRow {
	r := ComparisonRow{Value: value, Values: []string{value}, X: x}
	fill := func(s *ComparisonSide, name string, reps [][4]float64) {
		s.Name = name
		for i, v := range reps {
			s.Repeats = append(s.Repeats, RepeatStats{Repeat: i, AvgLatUs: v[0], P50Us: v[1], P99Us: v[2], IOPS: v[3], IOs: uint64(v[3])})
			// The merged histogram's percentiles are close to the
			// largest repeat's; the fixture takes that.
			s.P50Us = max(s.P50Us, v[1])
			s.P99Us = max(s.P99Us, v[2])
		}
		s.Summarize()
	}
	fill(&r.New, PolicyPriority, new)
	fill(&r.Old, PolicyFIFO, old)
	if st != nil && r.New.Ran() && r.Old.Ran() {
		s := *st
		s.Metric, s.NewN, s.OldN, s.Alpha = GateAvg, len(new), len(old), 0.05
		s.New, s.Old = sideMedian(&r.New, GateAvg), sideMedian(&r.Old, GateAvg)
		s.DeltaPct = (s.New - s.Old) / s.Old * 100
		if s.PAdj == 0 {
			s.PAdj = s.P
		}
		s.EqLoPct, s.EqHiPct = math.NaN(), math.NaN()
		r.Stats = &s
	}
	return r
}

// cmpReps spreads base over five repeats by fixed offsets, scaling all
// four figures; the IOPS move the other way.
func cmpReps(avg, p50, p99, iops float64) [][4]float64 {
	var out [][4]float64
	for _, f := range []float64{0, 0.01, -0.01, 0.005, -0.004} {
		out = append(out, [4]float64{avg * (1 + f), p50 * (1 + f), p99 * (1 + f), iops * (1 - f)})
	}
	return out
}

// cmpFixture is an iodepth sweep shaped like the patch's table, with five
// repeats: rows with no evidence of a difference, rows slower (8 and 16, as
// in the patch's data) and faster, one row too noisy for a verdict, and a
// last row whose old side was interrupted after one repeat.
func cmpFixture() *Comparison {
	c := cmpFixtureLat()
	// tw waits (mean, p99 in µs) of new and old: depth 1 ran the same
	// schedule (equal within 1%), the others did not.
	tw := map[string][4]float64{
		"1": {0.050, 0.0502, 0.5, 0.5}, "8": {0.31, 2.4, 1.9, 9.7}, "16": {0.42, 6.5, 2.6, 21.3},
		"256": {0.06, 20.8, 1.1, 88.1}, "4096": {0.9, 160.3, 8.2, 610.0}, "16384": {1.2, 530.9, 12.4, 2100.5},
	}
	for i := range c.Rows {
		r := &c.Rows[i]
		v := tw[r.Value]
		r.New.TWWaitUs, r.Old.TWWaitUs, r.New.TWWaitP99Us, r.Old.TWWaitP99Us = v[0], v[1], v[2], v[3]
		if r.New.Ran() {
			r.New.TaskRun = TaskRunModel
		}
		if r.Old.Ran() {
			r.Old.TaskRun = TaskRunModel
		}
	}
	return c
}

// cmpFixtureLat is cmpFixture's latency figures alone.
func cmpFixtureLat() *Comparison {
	nan := math.NaN()
	return &Comparison{
		RW: "randread", BS: "4k", Engine: "io_uring", SQPoll: "1",
		Version: "gofio-0.1", Kernel: "6.18.0-test",
		Key: "iodepth", Keys: []string{"iodepth"}, Metric: "lat", GateMetric: GateAvg, Repeat: 5, Compared: true,
		New: SideSpec{Name: PolicyPriority, Key: "tw_priority", Value: "1", SQThread: SQGoroutine},
		Old: SideSpec{Name: PolicyFIFO, Key: "tw_priority", Value: "0", SQThread: SQGoroutine},
		Rows: []ComparisonRow{
			cmpRowFixture("1", 1, cmpReps(7.05, 6.94, 11.2, 139000), cmpReps(7.08, 6.98, 11.3, 138500),
				&RowStats{LoPct: -1.9, HiPct: 1.1, Confidence: 0.968, P: 0.69, Verdict: VerdictNoEvidence}),
			cmpRowFixture("8", 8, cmpReps(16.0, 15.2, 24.9, 499500), cmpReps(14.3, 13.7, 22.1, 559000),
				&RowStats{LoPct: 10.1, HiPct: 13.6, Confidence: 0.968, P: 0.0079, Verdict: VerdictSlower}),
			cmpRowFixture("16", 16, cmpReps(27.41, 26.2, 41.5, 583000), cmpReps(24.33, 23.5, 37.0, 657000),
				&RowStats{LoPct: 11.2, HiPct: 14.4, Confidence: 0.968, P: 0.0079, Verdict: VerdictSlower}),
			cmpRowFixture("256", 256, cmpReps(372.99, 360.4, 520.2, 686000), cmpReps(414.88, 401.1, 610.7, 617000),
				&RowStats{LoPct: -11.5, HiPct: -8.6, Confidence: 0.968, P: 0.0079, Verdict: VerdictFaster}),
			cmpRowFixture("4096", 4096, cmpReps(5880.2, 5790.0, 7410.0, 696500), cmpReps(5990.4, 5880.0, 7620.0, 683700),
				&RowStats{LoPct: -3.2, HiPct: 0.4, Confidence: 0.968, P: 0.095, Verdict: VerdictNoEvidence}),
			cmpRowFixture("16384", 16384, cmpReps(23085.58, 22610.0, 30540.0, 709600),
				[][4]float64{{26044.71, 25610.0, 35020.0, 629000}},
				&RowStats{LoPct: nan, HiPct: nan, P: 0.33, Verdict: VerdictTooFew}),
		},
	}
}

func TestWriteCompareTableGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCompareTable(&b, cmpFixture()); err != nil {
		t.Fatal(err)
	}
	cmpGolden(t, "compare_table.txt", b.Bytes())
	out := b.String()
	for _, want := range []string{"depth", "new", "old", "96.8% CI", "too few repeats",
		"new = priority (tw_priority=1), old = fifo (tw_priority=0)", "gofio-0.1, kernel 6.18.0-test"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	// Never a bare winner.
	for _, bad := range []string{"winner", "better"} {
		if strings.Contains(out, bad) {
			t.Errorf("table says %q", bad)
		}
	}
}

func TestWriteCompareTableRows(t *testing.T) {
	c := cmpFixture()
	var b bytes.Buffer
	if err := WriteCompareTable(&b, c); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	// Find the header, then expect one line per row in order, each
	// starting with the row's value and ending with its verdict.
	h := -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "depth") {
			h = i
			break
		}
	}
	if h < 0 {
		t.Fatalf("no header line in:\n%s", b.String())
	}
	for i, r := range c.Rows {
		l := lines[h+1+i]
		f := strings.Fields(l)
		if len(f) == 0 || f[0] != r.Value {
			t.Errorf("line %d = %q, want the row of %s", i, l, r.Value)
			continue
		}
		verdict := c.RowVerdict(&c.Rows[i])
		if c.SameSchedule(&c.Rows[i]) && verdict != VerdictNoResult {
			t.Errorf("row %s ran the same schedule but reads %q", r.Value, verdict) // never shown as a result
		}
		if !strings.Contains(l, "  "+verdict+"  ") {
			t.Errorf("row %s: line %q lacks its verdict %q", r.Value, l, verdict)
		}
	}
}

func TestWriteCompareCSVGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCompareCSV(&b, cmpFixture()); err != nil {
		t.Fatal(err)
	}
	cmpGolden(t, "compare_table.csv", b.Bytes())
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 1+len(cmpFixture().Rows) {
		t.Fatalf("%d lines, want a header and %d rows", len(lines), len(cmpFixture().Rows))
	}
	cols := len(strings.Split(lines[0], ","))
	for i, l := range lines {
		if n := len(strings.Split(l, ",")); n != cols {
			t.Errorf("line %d has %d columns, header %d", i, n, cols)
		}
	}
}

func TestCompareJSONGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCompareJSON(&b, cmpFixture()); err != nil {
		t.Fatal(err)
	}
	cmpGolden(t, "compare_table.json", b.Bytes())
	var doc map[string]struct {
		Rows []struct {
			Value string          `json:"value"`
			Stats json.RawMessage `json:"stats"`
			New   json.RawMessage `json:"new"`
			Old   json.RawMessage `json:"old"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	rows := doc[CompareJSONKey].Rows
	if len(rows) != len(cmpFixture().Rows) {
		t.Fatalf("%d rows under %s, want %d", len(rows), CompareJSONKey, len(cmpFixture().Rows))
	}
	for _, r := range rows {
		if len(r.Stats) == 0 || string(r.Stats) == "null" || string(r.New) == "null" || string(r.Old) == "null" {
			t.Errorf("row %s lacks a field: %+v", r.Value, r)
		}
	}
}

func TestCompareJSONMissingSide(t *testing.T) {
	c := cmpFixture()
	c.Rows[0].Old = ComparisonSide{Name: PolicyFIFO}
	c.Rows[0].Stats = nil
	b, err := json.Marshal(CompareJSON(c))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	r := doc.Rows[0]
	for _, k := range []string{"old", "stats"} {
		if v, ok := r[k]; !ok || v != nil {
			t.Errorf("row without baseline: %s = %v, want null", k, v)
		}
	}
}

func TestWriteSVGGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSVG(&b, cmpFixture()); err != nil {
		t.Fatal(err)
	}
	cmpGolden(t, "compare_chart.svg", b.Bytes())
	svgXMLLint(t, b.Bytes())
	out := b.String()
	for _, want := range []string{
		"rw=randread bs=4k ioengine=io_uring sqthread_poll=1, SQ thread: gofio", // title
		"gofio-0.1, kernel 6.18.0-test",                                         // footer
		`id="new-avg"`, `id="old-avg"`, `id="new-p99"`, `id="old-p99"`,
		`stroke-dasharray`, svgBarNoise, svgBarBeyond,
		"depth (log2)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("svg lacks %q", want)
		}
	}
}

// TestWriteSVGShapes draws edge cases: no rows, one row, non-numeric
// sweep values, a single policy; each must be valid and deterministic.
func TestWriteSVGShapes(t *testing.T) {
	one := cmpFixture()
	one.Rows = one.Rows[:1]
	cats := cmpFixture()
	cats.Key, cats.Keys = "rw", []string{"rw"}
	for i := range cats.Rows {
		cats.Rows[i].X = 0
	}
	single := cmpFixture()
	single.Compared = false
	for i := range single.Rows {
		single.Rows[i].Old = ComparisonSide{}
		single.Rows[i].Stats = nil
	}
	tests := []struct {
		name string
		c    *Comparison
		want string
	}{
		{"empty", &Comparison{Key: "iodepth"}, "no data"},     // nothing ran
		{"one row", one, "depth (log2)"},                      // degenerate x range
		{"categorical", cats, "rw (evenly spaced)"},           // x values are not numbers
		{"priority only", single, `id="new-avg"`},             // no baseline, no bars
		{"priority only, legend", single, ">avg (priority)<"}, // one side's legend, no old lines
		{"all fields empty", &Comparison{}, "gofio compare"},  // zero value
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a, b bytes.Buffer
			if err := WriteSVG(&a, tt.c); err != nil {
				t.Fatal(err)
			}
			if err := WriteSVG(&b, tt.c); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Error("two writes of the same comparison differ")
			}
			if !strings.Contains(a.String(), tt.want) {
				t.Errorf("svg lacks %q", tt.want)
			}
			if strings.Contains(a.String(), "NaN") || strings.Contains(a.String(), "Inf") {
				t.Errorf("svg has NaN or Inf coordinates")
			}
			svgXMLLint(t, a.Bytes())
		})
	}
}

// svgXMLLint checks b with xmllint --noout.
func svgXMLLint(t *testing.T, b []byte) {
	t.Helper()
	path, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not installed (apt-get install libxml2-utils); SVG validity not checked")
	}
	f := filepath.Join(t.TempDir(), "chart.svg")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(path, "--noout", f).CombinedOutput(); err != nil {
		t.Errorf("xmllint --noout: %v\n%s", err, out)
	}
}

// TestSameSchedule pins the 1% rule and that only a comparison of the two
// policies can be the same schedule.
func TestSameSchedule(t *testing.T) {
	c := cmpFixture()
	var same []string
	for i := range c.Rows {
		if c.SameSchedule(&c.Rows[i]) {
			same = append(same, c.Rows[i].Value)
		}
	}
	if strings.Join(same, ",") != "1" {
		t.Errorf("same schedule at %v, want only depth 1 (0.050 vs 0.0502 us)", same)
	}
	r := &c.Rows[1]
	r.New.TWWaitUs, r.Old.TWWaitUs = 100, 101.1 // 1.09% of the larger: not within
	if c.SameSchedule(r) {
		t.Errorf("100 vs 101.1 us counted as the same schedule")
	}
	r.Old.TWWaitUs = 100.99
	if !c.SameSchedule(r) {
		t.Errorf("100 vs 100.99 us not counted as the same schedule")
	}
	c.New.Key, c.Old.Key = "ioengine", "ioengine"
	if c.SameSchedule(r) {
		t.Errorf("an A/B of ioengine judged by tw wait")
	}
	var b bytes.Buffer
	if err := WriteCompareTable(&b, cmpFixture()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), SameScheduleNote) {
		t.Errorf("table does not explain the same-schedule rows")
	}
}
