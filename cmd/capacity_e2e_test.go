package cmd

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/run"
)

// fakeDevice is a run core whose target has a known latency curve: each
// job's IOPS grow with its iodepth up to sat I/Os in flight at svcUs per
// I/O, and its latency is Little's law's, depth / IOPS (every I/O the
// same, so every percentile is the mean); rate_iops= caps the IOPS, and
// a rated job's latency is then the service time's. Under --compare the
// priority side saturates at prioSat.
func fakeDevice(sat, prioSat int, svcUs float64) func(context.Context, []*jobfile.Job, run.Options) (*report.Result, error) {
	return func(_ context.Context, jobs []*jobfile.Job, opts run.Options) (*report.Result, error) {
		res := &report.Result{Version: opts.Version, Start: time.Unix(1700000000, 0)}
		for _, j := range jobs {
			s, policy := sat, report.PolicyFIFO
			if j.TWPriority {
				s, policy = prioSat, report.PolicyPriority
			}
			inFlight := float64(min(j.IODepth, s))
			iops := inFlight / svcUs * 1e6
			lat := float64(j.IODepth) / iops * 1e9
			if r := float64(j.RateIOPS[jobfile.DirRead]); r > 0 && r < iops {
				iops, lat = r, svcUs*1e3
			}
			jr := fakeJobResult(j, uint64(lat), policy)
			jr.Dirs[jobfile.DirRead].TotalIOs = uint64(iops)
			res.Jobs = append(res.Jobs, jr)
		}
		return res, nil
	}
}

var capacityJob = []string{"--name=cap", "--ioengine=null", "--size=1m", "--rw=randread"}

// capacityOf returns the gofio_capacity object of a JSON run.
func capacityOf(t *testing.T, out string) map[string]any {
	t.Helper()
	c, ok := decodeJSON(t, "stdout", []byte(out))[report.CapacityJSONKey].(map[string]any)
	if !ok {
		t.Fatalf("no %q in the JSON", report.CapacityJSONKey)
	}
	return c
}

// TestCapacitySweepE2E is the done-when check: --sweep
// iodepth=1,4,16,64,256 --slo 'p99<=2ms' writes gofio_capacity with the
// iodepth and IOPS of the highest IOPS within the objective, its knee and
// its curve, prints the capacity line, and draws the chart.
func TestCapacitySweepE2E(t *testing.T) {
	dir := t.TempDir()
	plot := filepath.Join(dir, "cap.svg")
	// Saturation at 20 in flight, 100 us each: 200,000 IOPS from depth
	// 20 on; p99 = depth / 200,000 s: 320 us at 64, 1.28 ms at 256.
	code, out, errs := runCmdWith(t, fakeDevice(20, 20, 100), append([]string{"--sweep", "iodepth=1,4,16,64,256", "--slo", "p99<=1ms",
		"--capacity-plot", plot, "--output-format=json"}, capacityJob...)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	c := capacityOf(t, out)
	// Percentiles are fio's bucket midpoints: 320 us reads 321.536.
	if c["slo"] != "p99<=1ms" || c["met"] != true || num(t, c, "iodepth") != 64 || num(t, c, "iops") != 200000 || num(t, c, "value_us") != 321.536 || c["search"] != "list" {
		t.Errorf("capacity %v, want 200000 IOPS at iodepth 64 (p99 320 us; 256 misses at 1.28 ms)", c)
	}
	if k, _ := c["knee"].(map[string]any); k == nil || num(t, k, "iodepth") != 64 {
		t.Errorf("knee %v, want iodepth 64", c["knee"])
	}
	if curve, _ := c["curve"].([]any); len(curve) != 5 || curve[4].(map[string]any)["met"] != false {
		t.Errorf("curve %v", c["curve"])
	}
	want := "capacity: 200000 IOPS at iodepth 64 (p99 322 us <= 1 ms)\n"
	if !strings.Contains(errs, want) {
		t.Errorf("stderr lacks %q (the line goes to stderr when stdout is JSON):\n%s", want, errs)
	}
	svg, err := os.ReadFile(plot)
	if err != nil || !strings.Contains(string(svg), "objective p99&lt;=1ms") || !strings.Contains(string(svg), "capacity 200k IOPS") {
		t.Fatalf("chart: %v\n%.300s", err, svg)
	}
	if xl, err := exec.LookPath("xmllint"); err == nil {
		if b, err := exec.Command(xl, "--noout", plot).CombinedOutput(); err != nil {
			t.Errorf("xmllint: %v: %s", err, b)
		}
	}
}

// TestCapacityAutoE2E: --sweep iodepth=auto bisects to the deepest depth
// within the objective (200 on this device: p99 = depth / 200,000 s) in
// 9 runs of 1..16384's 15, and reports every depth it ran as a row and a
// point of the curve, in order.
func TestCapacityAutoE2E(t *testing.T) {
	code, out, errs := runCmdWith(t, fakeDevice(20, 20, 100), append([]string{"--sweep", "iodepth=auto", "--slo", "p99<=1ms",
		"--output-format=json"}, capacityJob...)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	c := capacityOf(t, out)
	var depths []string
	for _, p := range c["curve"].([]any) {
		depths = append(depths, p.(map[string]any)["point"].(string))
	}
	if got := strings.Join(depths, ","); got != "1,4,16,64,128,192,208,224,256" || c["search"] != "bisection" {
		t.Errorf("depths run %s (%v), want 1,4,16,64,128,192,208,224,256", got, c["search"])
	}
	rows := decodeJSON(t, "stdout", []byte(out))[report.CompareJSONKey].(map[string]any)["rows"].([]any)
	if len(rows) != len(depths) {
		t.Errorf("%d comparison rows for %d depths", len(rows), len(depths))
	}
	// Under --compare each side's capacity and the change: priority
	// saturates at 40 in flight, fifo at 20.
	code, out, errs = runCmdWith(t, fakeDevice(20, 40, 100), append([]string{"--compare", "--sweep", "iodepth=auto", "--slo", "p99<=1ms"}, capacityJob...)...)
	if code != ExitOK {
		t.Fatalf("--compare: exit %d: %s", code, errs)
	}
	for _, want := range []string{"capacity priority: 400000 IOPS at iodepth 64", "capacity fifo: 200000 IOPS at iodepth 64", "capacity change: +100.0% (priority against fifo)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// An objective depth 1 misses ends the search there; one every depth
	// meets ends it at 16384.
	for slo, runs := range map[string]int{"p99<=50us": 1, "p99<=1s": 8} {
		code, out, errs = runCmdWith(t, fakeDevice(20, 20, 100), append([]string{"--sweep", "iodepth=auto", "--slo", slo, "--output-format=json"}, capacityJob...)...)
		if n := len(capacityOf(t, out)["curve"].([]any)); code != ExitOK || n != runs {
			t.Errorf("%s: exit %d, %d runs, want %d: %s", slo, code, n, runs, errs)
		}
	}
}

// TestCapacityFractionsE2E: --sweep rate_iops=25%..100% first measures
// the maximum rate, unthrottled, then runs each fraction of it.
func TestCapacityFractionsE2E(t *testing.T) {
	code, out, errs := runCmdWith(t, fakeDevice(20, 20, 100), append([]string{"--sweep", "rate_iops=25%..100%", "--set", "iodepth=64",
		"--slo", "p99<=1ms", "--output-format=json"}, capacityJob...)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	c := capacityOf(t, out)
	if num(t, c, "max_rate") != 200000 || c["search"] != "fractions" {
		t.Errorf("max rate %v (%v), want 200000", c["max_rate"], c["search"])
	}
	var iops, rates []float64
	for _, p := range c["curve"].([]any) {
		iops = append(iops, num(t, p.(map[string]any), "iops"))
		rates = append(rates, num(t, p.(map[string]any), "rate_iops"))
	}
	if len(iops) != 4 || iops[0] != 50000 || iops[3] != 200000 || rates[1] != 100000 {
		t.Errorf("curve IOPS %v at rates %v, want 50000..200000", iops, rates)
	}
	if c["point"] != "100%" || num(t, c, "iops") != 200000 {
		t.Errorf("capacity at %v, %v IOPS; want 100%%", c["point"], c["iops"])
	}
}

// TestCapacityGateE2E: --fail-if-capacity-below fails (exit 101) below a
// floor in IOPS, or below a share of the --baseline's capacity, and
// passes above it.
func TestCapacityGateE2E(t *testing.T) {
	args := func(extra ...string) []string {
		return append(append([]string{"--sweep", "iodepth=1,4,16,64", "--slo", "p99<=1ms"}, extra...), capacityJob...)
	}
	for floor, want := range map[string]int{"150k": ExitOK, "250000": ExitSlower} {
		code, out, errs := runCmdWith(t, fakeDevice(20, 20, 100), args("--fail-if-capacity-below", floor)...)
		if code != want {
			t.Errorf("below %s: exit %d, want %d\n%s%s", floor, code, want, out, errs)
		}
		if want == ExitSlower && !strings.Contains(errs, "--fail-if-capacity-below: FAIL: capacity 200000 IOPS, below 250000 IOPS") {
			t.Errorf("stderr: %s", errs)
		}
	}
	base := filepath.Join(t.TempDir(), "base.json")
	if code, _, errs := runCmdWith(t, fakeDevice(40, 40, 100), args("--output-format=json", "--output="+base)...); code != ExitOK {
		t.Fatalf("baseline: exit %d: %s", code, errs)
	}
	// The baseline ran 400,000 IOPS: half that fails 90%, passes 50%.
	for pct, want := range map[string]int{"90%": ExitSlower, "50%": ExitOK} {
		code, out, errs := runCmdWith(t, fakeDevice(20, 20, 100), args("--baseline", base, "--fail-if-capacity-below", pct)...)
		if code != want {
			t.Errorf("%s of the baseline: exit %d, want %d\n%s%s", pct, code, want, out, errs)
		}
		if !strings.Contains(out, "capacity gate: ") || !strings.Contains(out, "of the baseline "+base+"'s 400000 IOPS") {
			t.Errorf("%s: output lacks the gate line:\n%s", pct, out)
		}
	}
}

// TestCapacityRefusals: what --slo and its flags refuse, before any I/O.
func TestCapacityRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--slo", "p99<=2ms"}, "--slo needs a --sweep over iodepth or rate_iops"},
		{[]string{"--sweep", "iodepth=auto"}, "--sweep iodepth=auto searches for the deepest iodepth that meets a latency objective: give it with --slo"},
		{[]string{"--sweep", "bs=4k,8k", "--slo", "p99<=2ms"}, "--slo needs one --sweep over iodepth"},
		{[]string{"--sweep", "iodepth=1,2", "--slo", "p98<=2ms"}, `bad --slo "p98<=2ms"`},
		{[]string{"--sweep", "iodepth=1,2", "--slo", "p99<=2"}, "has no unit"},
		{[]string{"--sweep", "iodepth=1,2", "--slo", "p99<=2ms", "--fail-if-capacity-below", "90%"}, "--fail-if-capacity-below N% judges against a saved capacity"},
		{[]string{"--sweep", "iodepth=1,2", "--capacity-plot", "x.svg"}, "--capacity-plot needs --slo"},
		{[]string{"--sweep", "iodepth=1,2", "--slo", "p99<=2ms", "--fail-if-capacity-below", "lots"}, "want IOPS"},
		{[]string{"--compare", "--sweep", "iodepth=auto", "--slo", "p99<=2ms", "--fail-if-slower", "5"}, "cannot be judged together"},
	} {
		ran := false
		core := func(context.Context, []*jobfile.Job, run.Options) (*report.Result, error) {
			ran = true
			return nil, nil
		}
		code, _, errs := runCmdWith(t, core, append(c.args, capacityJob...)...)
		if code != ExitBadInput || !strings.Contains(errs, c.want) || ran {
			t.Errorf("%v: exit %d, ran %v, stderr %q; want exit 1 with %q before any run", c.args, code, ran, errs, c.want)
		}
	}
}
