package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// benchFixture is a two-depth sweep of tw_priority=1 against 0 with three
// repeats a side, and a third depth whose old side never ran.
func benchFixture() *Comparison {
	c := &Comparison{RW: "randread", BS: "4k", Engine: "io_uring", Key: "iodepth", Keys: []string{"iodepth"}, Metric: "lat",
		GateMetric: GateAvg, Repeat: 3, Compared: true,
		New: SideSpec{Name: PolicyPriority, Key: "tw_priority", Value: "1"},
		Old: SideSpec{Name: PolicyFIFO, Key: "tw_priority", Value: "0"}}
	side := func(name string, avg, p99, iops float64, n int) ComparisonSide {
		s := ComparisonSide{Name: name}
		for k := 0; k < n; k++ {
			f := 1 + float64(k-1)/100
			s.Repeats = append(s.Repeats, RepeatStats{Repeat: k, AvgLatUs: avg * f, P99Us: p99 * f, IOPS: iops / f, IOs: uint64(iops / f)})
		}
		s.Summarize()
		return s
	}
	for _, d := range []struct {
		v        string
		avg, p99 float64
		old      int
	}{{"1", 7.05, 11.2, 3}, {"64", 95.3, 180.4, 3}, {"1024", 1510.2, 2900.8, 0}} {
		iops := 1e6 / d.avg
		c.Rows = append(c.Rows, ComparisonRow{Value: d.v, Values: []string{d.v},
			New: side(PolicyPriority, d.avg, d.p99, iops, 3), Old: side(PolicyFIFO, d.avg*1.1, d.p99*1.1, iops/1.1, d.old)})
	}
	return c
}

func TestBenchName(t *testing.T) {
	c := benchFixture()
	if got := BenchName(c, &c.Rows[1], &c.New); got != "gofio/rw=randread/bs=4k/iodepth=64/tw_priority=1" {
		t.Errorf("BenchName = %q", got)
	}
	// A swept bs is named by its key once; a diff names the run.
	c.BS, c.Keys, c.Key = "swept", []string{"iodepth", "bs"}, "iodepth,bs"
	c.Rows[0].Values = []string{"1", "8k"}
	c.New = SideSpec{Name: "new", Key: DiffSideKey, Value: "b.json"}
	if got := BenchName(c, &c.Rows[0], &c.New); got != "gofio/rw=randread/iodepth=1/bs=8k/run=new" {
		t.Errorf("BenchName of a diff = %q", got)
	}
}

// TestBenchfmtGolden writes the Go benchmark format and reads it back with
// golang.org/x/perf/benchfmt's reader, as benchstat does: every line
// parses, the units carry their metadata, and benchmath summarises each
// benchmark's repeats.
func TestBenchfmtGolden(t *testing.T) {
	var b bytes.Buffer
	cfg := BenchConfig{{"goos", "linux"}, {"goarch", "amd64"}, {"cpu", "AMD EPYC 7R13 Processor"}, {"kernel", "6.18.0-test"}, {"gofio", "gofio-0.1 abc"}}
	if err := WriteBenchfmt(&b, benchFixture(), cfg); err != nil {
		t.Fatal(err)
	}
	cmpGolden(t, "bench.txt", b.Bytes())
	r := benchfmt.NewReader(bytes.NewReader(b.Bytes()), "bench.txt")
	values := map[string][]float64{}
	n := 0
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", rec)
		case *benchfmt.Result:
			n++
			if cpu, _ := rec.GetConfig("cpu"), 0; cpu != "AMD EPYC 7R13 Processor" {
				t.Errorf("cpu config %q", cpu)
			}
			if len(rec.Values) != 3 || rec.Iters < 1 {
				t.Errorf("%s: %d values, %d iterations", rec.Name.Full(), len(rec.Values), rec.Iters)
			}
			if !strings.HasPrefix(string(rec.Name.Full()), "Gofio/rw=randread/bs=4k/iodepth=") {
				t.Errorf("benchmark name %q", rec.Name.Full())
			}
			for _, v := range rec.Values {
				values[string(rec.Name.Full())+" "+v.Unit] = append(values[string(rec.Name.Full())+" "+v.Unit], v.Value)
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 15 { // 3 repeats x (2 sides at depths 1 and 64, 1 at 1024)
		t.Errorf("%d results, want 15", n)
	}
	units := r.Units()
	if units.GetBetter(BenchUnitIOPS) != 1 || units.GetBetter(BenchUnitAvg) != -1 || units.GetBetter(BenchUnitP99) != -1 {
		t.Errorf("unit metadata: iops %d avg %d p99 %d", units.GetBetter(BenchUnitIOPS), units.GetBetter(BenchUnitAvg), units.GetBetter(BenchUnitP99))
	}
	// benchstat tidies ns to seconds: the depth-64 priority side's
	// median average latency is 95.3 µs.
	vs := values["Gofio/rw=randread/bs=4k/iodepth=64/tw_priority=1 avg-sec/io"]
	sum := benchmath.AssumeNothing.Summary(benchmath.NewSample(vs, &benchmath.DefaultThresholds), 0.95)
	if len(vs) != 3 || sum.Center < 95.2e-6 || sum.Center > 95.4e-6 {
		t.Errorf("depth 64 priority avg: %v (median %g), want 3 values around 95.3e-6 s", vs, sum.Center)
	}
	if err := WriteBenchfmt(io.Discard, benchFixture(), BenchConfig{{"Bad Key", "x"}}); err == nil {
		t.Error("a configuration key with upper case and a space was written")
	}
}

// TestGitHubBenchmarkGolden checks github-action-benchmark's
// customSmallerIsBetter shape: an array of objects with name, unit and a
// numeric value, range and extra strings.
func TestGitHubBenchmarkGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteGitHubBenchmark(&b, benchFixture()); err != nil {
		t.Fatal(err)
	}
	cmpGolden(t, "github-benchmark.json", b.Bytes())
	var got []map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 10 {
		t.Errorf("%d entries, want 10 (5 sides x avg and p99)", len(got))
	}
	for _, e := range got {
		_, isNum := e["value"].(float64)
		name, _ := e["name"].(string)
		if !isNum || name == "" || e["unit"] != "us" || !strings.HasPrefix(e["range"].(string), "± ") {
			t.Errorf("entry %v", e)
		}
	}
	if got[0]["name"] != "gofio/rw=randread/bs=4k/iodepth=1/tw_priority=1 avg latency" || got[0]["value"] != 7.05 {
		t.Errorf("first entry %v", got[0])
	}
}

// TestBencherBMFGolden checks the shape of Bencher's BMF JSON schema:
// benchmark -> measure -> {value (required), lower_value, upper_value},
// every one a number, with lower <= value <= upper.
func TestBencherBMFGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteBencherBMF(&b, benchFixture()); err != nil {
		t.Fatal(err)
	}
	cmpGolden(t, "bencher-bmf.json", b.Bytes())
	var got map[string]map[string]map[string]float64
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Errorf("%d benchmarks, want 5", len(got))
	}
	for name, ms := range got {
		for _, m := range []string{"latency", "throughput", "p99-latency"} {
			v, ok := ms[m]
			if _, has := v["value"]; !ok || !has || v["lower_value"] > v["value"] || v["value"] > v["upper_value"] {
				t.Errorf("%s %s: %v", name, m, v)
			}
		}
	}
	lat := got["gofio/rw=randread/bs=4k/iodepth=64/tw_priority=1"]["latency"]
	if lat["value"] != 95300 {
		t.Errorf("depth 64 priority latency %v ns, want 95300", lat)
	}
	if err := WriteBencherBMF(errWriter{}, benchFixture()); err == nil {
		t.Error("a failed write was not reported")
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
