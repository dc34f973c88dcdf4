package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/report"
)

// saveCapacityRun saves a sweep of capacityJob over iodepth=1,4,16,64,256
// on a device saturating at sat I/Os in flight of 100 us each, as JSON,
// with extra flags (--slo), and returns the file.
func saveCapacityRun(t *testing.T, dir, name string, sat int, extra ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	args := append(append([]string{"--sweep", "iodepth=1,4,16,64,256", "--output-format=json", "--output=" + path}, extra...), capacityJob...)
	if code, _, errs := runCmdWith(t, fakeDevice(sat, sat, 100), args...); code != ExitOK {
		t.Fatalf("%s: exit %d: %s", name, code, errs)
	}
	return path
}

// TestCapacityDiffE2E: gofio diff compares the capacities two saved runs
// hold: the old device carries 200,000 IOPS within p99<=1ms (at iodepth
// 64: 320 us; 256 misses at 1.28 ms), the new one 100,000 (from iodepth
// 16: 160 us). The diff prints both and the change, gates on a share of
// the old capacity or a floor, judges both saved curves again under
// another --slo, writes them in its JSON as gofio_capacity (one per
// side) and draws them with --capacity-plot.
func TestCapacityDiffE2E(t *testing.T) {
	dir := t.TempDir()
	old := saveCapacityRun(t, dir, "old.json", 20, "--slo", "p99<=1ms")
	cur := saveCapacityRun(t, dir, "new.json", 10, "--slo", "p99<=1ms")
	code, out, errs := runCmd(t, "diff", "--output-format=compare", old, cur)
	if code != ExitOK {
		t.Fatalf("diff: exit %d: %s", code, errs)
	}
	for _, want := range []string{"capacity new: 100000 IOPS at iodepth 16 (p99 161 us <= 1 ms)", "capacity old: 200000 IOPS at iodepth 64 (p99 322 us <= 1 ms)", "capacity change: -50.0% (new against old)"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff's output lacks %q:\n%s", want, out)
		}
	}
	for below, want := range map[string]int{"90%": ExitSlower, "40%": ExitOK, "150k": ExitSlower, "50000": ExitOK} {
		code, out, errs := runCmd(t, "diff", "--fail-if-capacity-below", below, old, cur)
		if code != want {
			t.Errorf("--fail-if-capacity-below %s: exit %d, want %d\n%s%s", below, code, want, out, errs)
		}
		if below == "90%" && !strings.Contains(errs, "FAIL: capacity 100000 IOPS, below 90% of the old run "+old+"'s 200000 IOPS (180000)") {
			t.Errorf("--fail-if-capacity-below 90%%: stderr %s", errs)
		}
	}
	// Under p99<=300us the old device's capacity is 160,000 IOPS at 16
	// (100 us; 64 reads 320 us), the new one's still at 16.
	plot := filepath.Join(dir, "diff.svg")
	code, out, errs = runCmd(t, "diff", "--output-format=json", "--slo", "p99<=300us", "--capacity-plot", plot, old, cur)
	if code != ExitOK {
		t.Fatalf("diff --slo: exit %d: %s", code, errs)
	}
	caps, ok := decodeJSON(t, "stdout", []byte(out))[report.CapacityJSONKey].([]any)
	if !ok || len(caps) != 1 {
		t.Fatalf("diff's JSON: %q is not a list of one: %s", report.CapacityJSONKey, out)
	}
	c := caps[0].(map[string]any)
	if c["slo"] != "p99<=300us" || c["side"] != "new" || num(t, c, "iodepth") != 16 || num(t, c, "iops") != 100000 ||
		num(t, c, "old", "iodepth") != 16 || num(t, c, "old", "iops") != 160000 || num(t, c, "change_pct") != -37.5 {
		t.Errorf("diff's capacity under p99<=300us: %v", c)
	}
	if !strings.Contains(errs, "capacity new: 100000 IOPS at iodepth 16") {
		t.Errorf("with JSON on stdout the capacity lines go to stderr: %s", errs)
	}
	if svg, err := os.ReadFile(plot); err != nil || !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), "p99") {
		t.Errorf("--capacity-plot: %v\n%.200s", err, svg)
	}
}

// TestCapacityDiffRefusals: a run that saved no capacity is compared
// without one (a warning) unless a capacity flag asks for it; runs saved
// under different objectives compare only under --slo.
func TestCapacityDiffRefusals(t *testing.T) {
	dir := t.TempDir()
	old := saveCapacityRun(t, dir, "old.json", 20, "--slo", "p99<=1ms")
	plain := saveCapacityRun(t, dir, "plain.json", 20)
	other := saveCapacityRun(t, dir, "other.json", 20, "--slo", "p99.9<=1ms")
	if code, out, errs := runCmd(t, "diff", old, plain); code != ExitOK || !strings.Contains(errs, "warning: capacity not compared") || strings.Contains(out, "capacity change") {
		t.Errorf("against a run without a capacity: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := runCmd(t, "diff", "--fail-if-capacity-below", "90%", old, plain); code != ExitBadInput || !strings.Contains(errs, "compare the capacities both runs saved") {
		t.Errorf("--fail-if-capacity-below against a run without a capacity: exit %d: %s", code, errs)
	}
	if code, _, errs := runCmd(t, "diff", old, other); code != ExitBadInput || !strings.Contains(errs, "under p99<=1ms, the new run's under p99.9<=1ms: give --slo") {
		t.Errorf("different objectives: exit %d: %s", code, errs)
	}
	if code, out, errs := runCmd(t, "diff", "--slo", "p99.9<=2ms", old, other); code != ExitOK || !strings.Contains(out, "capacity change: +0.0%") {
		t.Errorf("different objectives under --slo: exit %d\n%s%s", code, out, errs)
	}
}

// TestCapacityJobFileSLO: slo= in a job file's [global] is --slo: the
// sweep reports the same capacity, --slo overrides it, the flags that
// need an objective take it, and a bad or misplaced objective fails at
// its file and line.
func TestCapacityJobFileSLO(t *testing.T) {
	dir := t.TempDir()
	job := writeJob(t, dir, "cap.fio", "[global]\nioengine=null\nsize=1m\nrw=randread\nsweep=iodepth=1,4,16,64,256\nslo=p99<=1ms\n[cap]\n")
	code, out, errs := runCmdWith(t, fakeDevice(20, 20, 100), "--output-format=json", "--fail-if-capacity-below", "150k", job)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if c := capacityOf(t, out); c["slo"] != "p99<=1ms" || num(t, c, "iodepth") != 64 || num(t, c, "iops") != 200000 {
		t.Errorf("slo=p99<=1ms: capacity %v, want 200000 IOPS at iodepth 64", c)
	}
	code, out, errs = runCmdWith(t, fakeDevice(20, 20, 100), "--output-format=json", "--slo", "p99<=200us", job)
	if c := capacityOf(t, out); code != ExitOK || c["slo"] != "p99<=200us" || num(t, c, "iodepth") != 16 || num(t, c, "iops") != 160000 {
		t.Errorf("--slo over slo=: exit %d, capacity %v: %s", code, c, errs)
	}
	_, out, _ = runCmd(t, "--showcmd", job)
	if _, gofioLine, _ := strings.Cut(out, "\n"); !strings.Contains(gofioLine, "--slo=p99<=1ms") {
		t.Errorf("--showcmd: no --slo on gofio's line: %s", out)
	}
	for _, c := range []struct{ text, want string }{
		{"[global]\nioengine=null\nsize=1m\nsweep=iodepth=1,4\nslo=p98<=1ms\n[cap]\n", ":5: slo=p98<=1ms: \"p98\" is not one of avg, p50"},
		{"[global]\nioengine=null\nsize=1m\nslo=p99<=1ms\n[cap]\n", ":4: slo=p99<=1ms: --slo needs a --sweep"},
		{"[global]\nioengine=null\nsize=1m\nsweep=bs=4k,8k\nslo=p99<=1ms\n[cap]\n", ":5: slo=p99<=1ms: --slo needs one --sweep over iodepth"},
	} {
		code, _, errs := runCmdWith(t, fakeDevice(20, 20, 100), writeJob(t, dir, "bad.fio", c.text))
		if code != ExitBadInput || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want %q", c.text, code, errs, c.want)
		}
	}
}
