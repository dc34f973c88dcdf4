package report

import (
	"bytes"
	"encoding/json"
	"flag"
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
// each side; a nil side did not run.
func cmpRowFixture(value string, x float64, new, old [][4]float64) ComparisonRow {
	r := ComparisonRow{Value: value, Values: []string{value}, X: x}
	fill := func(s *ComparisonSide, policy string, reps [][4]float64) {
		s.Policy = policy
		for i, v := range reps {
			s.Repeats = append(s.Repeats, RepeatStats{Repeat: i, AvgLatUs: v[0], P50Us: v[1], P99Us: v[2], IOPS: v[3], IOs: uint64(v[3])})
			// The merged histogram's percentiles are close to the
			// largest repeat's; the fixture takes that.
			s.P50Us = max(s.P50Us, v[1])
			s.P99Us = max(s.P99Us, v[2])
		}
		s.Summarize()
	}
	fill(&r.Priority, PolicyPriority, new)
	fill(&r.Baseline, PolicyFIFO, old)
	r.Classify()
	return r
}

// cmpFixture is an iodepth sweep shaped like the patch's table, with three
// repeats: rows within noise, rows beyond it both ways (priority slower at
// 8 and 16, as in the patch's data), and a last row whose baseline was
// interrupted.
func cmpFixture() *Comparison {
	return &Comparison{
		RW: "randread", BS: "4k", Engine: "io_uring", SQPoll: "0",
		Version: "gofio-0.1", Kernel: "6.18.0-test",
		Key: "iodepth", Keys: []string{"iodepth"}, Metric: "lat", Repeat: 3, Compared: true,
		Rows: []ComparisonRow{
			cmpRowFixture("1", 1,
				[][4]float64{{7.05, 6.94, 11.2, 139000}, {7.01, 6.9, 11.0, 140100}, {7.12, 7.0, 11.5, 138200}},
				[][4]float64{{7.10, 7.0, 11.3, 138500}, {7.08, 6.98, 11.2, 138900}, {7.15, 7.04, 11.6, 137600}}),
			cmpRowFixture("8", 8,
				[][4]float64{{15.9, 15.1, 24.8, 502000}, {16.1, 15.3, 25.0, 497000}, {16.0, 15.2, 24.9, 499500}},
				[][4]float64{{14.2, 13.6, 22.0, 563000}, {14.4, 13.8, 22.3, 556000}, {14.3, 13.7, 22.1, 559000}}),
			cmpRowFixture("16", 16,
				[][4]float64{{27.41, 26.2, 41.5, 583000}, {27.6, 26.4, 41.9, 579000}, {27.3, 26.1, 41.2, 585500}},
				[][4]float64{{24.33, 23.5, 37.0, 657000}, {24.5, 23.7, 37.4, 653000}, {24.2, 23.4, 36.8, 660500}},
			),
			cmpRowFixture("256", 256,
				[][4]float64{{372.99, 360.4, 520.2, 686000}, {375.1, 362.0, 522.9, 682000}, {371.2, 359.9, 518.4, 689500}},
				[][4]float64{{414.88, 401.1, 610.7, 617000}, {417.0, 403.3, 613.2, 613500}, {412.9, 399.8, 608.4, 620000}}),
			cmpRowFixture("4096", 4096,
				[][4]float64{{5880.2, 5790.0, 7410.0, 696500}, {6010.7, 5902.0, 7588.0, 681500}, {5950.1, 5850.0, 7502.0, 688400}},
				[][4]float64{{5990.4, 5880.0, 7620.0, 683700}, {5920.3, 5840.0, 7540.0, 691800}, {6080.9, 5990.0, 7710.0, 673600}}),
			cmpRowFixture("16384", 16384,
				[][4]float64{{23085.58, 22610.0, 30540.0, 709600}, {23190.2, 22705.0, 30702.0, 706400}, {23001.7, 22580.0, 30410.0, 712200}},
				[][4]float64{{26044.71, 25610.0, 35020.0, 629000}}),
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
	for _, want := range []string{"depth", "new", "old", "within noise", "gofio-0.1, kernel 6.18.0-test"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	// Never a bare winner.
	for _, bad := range []string{"winner", "faster", "better"} {
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
	// starting with the row's value and marked as the row's Noise says.
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
		if got := strings.HasSuffix(l, "within noise"); got != (r.HasDelta && r.Noise) {
			t.Errorf("row %s: marked within noise = %v, Noise = %v", r.Value, got, r.Noise)
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
			Value       string          `json:"value"`
			DeltaPct    *float64        `json:"delta_pct"`
			WithinNoise *bool           `json:"within_noise"`
			Priority    json.RawMessage `json:"priority"`
			FIFO        json.RawMessage `json:"fifo"`
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
		if r.DeltaPct == nil || r.WithinNoise == nil || string(r.Priority) == "null" || string(r.FIFO) == "null" {
			t.Errorf("row %s lacks a field: %+v", r.Value, r)
		}
	}
}

func TestCompareJSONMissingSide(t *testing.T) {
	c := cmpFixture()
	c.Rows[0].Baseline = ComparisonSide{Policy: PolicyFIFO}
	c.Rows[0].Classify()
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
	for _, k := range []string{"fifo", "delta_pct", "within_noise"} {
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
		"rw=randread bs=4k ioengine=io_uring sqthread_poll=0", // title
		"gofio-0.1, kernel 6.18.0-test",                       // footer
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
		single.Rows[i].Baseline = ComparisonSide{Policy: PolicyFIFO}
		single.Rows[i].Classify()
	}
	tests := []struct {
		name string
		c    *Comparison
		want string
	}{
		{"empty", &Comparison{Key: "iodepth"}, "no data"},    // nothing ran
		{"one row", one, "depth (log2)"},                     // degenerate x range
		{"categorical", cats, "rw (evenly spaced)"},          // x values are not numbers
		{"priority only", single, `id="new-avg"`},            // no baseline, no bars
		{"all fields empty", &Comparison{}, "gofio compare"}, // zero value
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
