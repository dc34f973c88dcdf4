package cmd

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/run"
)

// runCmdEnv is runCmdWith with environment variables.
func runCmdEnv(t *testing.T, env map[string]string, core func(context.Context, []*jobfile.Job, run.Options) (*report.Result, error), args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	st := &State{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, RunCore: core, Canary: steadyCanary(1),
		Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	code := st.command(context.Background(), append([]string{"gofio"}, args...))
	return code, out.String(), errb.String()
}

// TestBaselineAndDiff saves a run as a baseline, then checks a run that is
// as fast (passes) and one 20% slower (fails a 5% gate, exit 101) against
// it, with --baseline and with gofio diff, and the reports CI reads: the
// Markdown table appended to $GITHUB_STEP_SUMMARY and the JUnit file.
func TestBaselineAndDiff(t *testing.T) {
	dir := t.TempDir()
	job := []string{"--name=ci", "--ioengine=null", "--size=1m", "--rw=randread"}
	save := func(name string, us uint64) string {
		t.Helper()
		path := filepath.Join(dir, name)
		code, _, errs := runCmdWith(t, fakeEngine(us, us), append([]string{"--repeat", "5", "--sweep", "iodepth=1,8",
			"--output-format=json", "--output=" + path}, job...)...)
		if code != ExitOK {
			t.Fatalf("saving %s: exit %d: %s", name, code, errs)
		}
		return path
	}
	old := save("old.json", 100)
	same := save("same.json", 100)
	slow := save("slow.json", 120)

	// The saved run describes itself.
	data, _ := os.ReadFile(old)
	doc := decodeJSON(t, old, data)
	info, _ := doc[report.RunJSONKey].(map[string]any)
	for _, k := range []string{"host", "kernel", "cpu_model", "cpus", "gofio_version", "gofio_commit", "jobs_hash", "jobs"} {
		if _, ok := info[k]; !ok {
			t.Errorf("%s lacks %s.%s", old, report.RunJSONKey, k)
		}
	}

	// A gated diff needs the drift between runs: none is known here.
	if code, _, errs := runCmd(t, "diff", "--fail-if-slower=5", old, same); code != ExitBadInput || !strings.Contains(errs, "needs the drift between runs") {
		t.Errorf("gated diff without a drift allowance: exit %d: %s", code, errs)
	}
	// gofio diff of a runner that does not drift (--drift 0): the same
	// speed passes, 20% slower fails at 5%.
	code, out, errs := runCmd(t, "diff", "--fail-if-slower=5", "--drift=0", old, same)
	if code != ExitOK || !strings.Contains(out, "new = new (run="+same+"), old = old (run="+old+")") {
		t.Errorf("diff same: exit %d\n%s\n%s", code, out, errs)
	}
	summary := filepath.Join(dir, "summary.md")
	junit := filepath.Join(dir, "junit.xml")
	code, out, errs = runCmdEnv(t, map[string]string{"GITHUB_STEP_SUMMARY": summary}, nil,
		"diff", "--fail-if-slower=5", "--drift=0", "--junit="+junit, "--output-format=markdown", old, slow)
	if code != ExitSlower || !strings.Contains(errs, "slower than old (run="+old+") by more than 5% beyond noise") ||
		!strings.Contains(errs, "iodepth=1 (+20.00%") {
		t.Errorf("diff slow: exit %d, stderr %q; want 101 naming the rows", code, errs)
	}
	if !strings.Contains(out, "| **1** ❌ |") {
		t.Errorf("diff markdown lacks the failed row:\n%s", out)
	}
	md, err := os.ReadFile(summary)
	if err != nil || !strings.Contains(string(md), "| **8** ❌ |") {
		t.Errorf("step summary (%v):\n%s", err, md)
	}
	x, err := os.ReadFile(junit)
	var suites struct {
		Failures int `xml:"failures,attr"`
		Tests    int `xml:"tests,attr"`
	}
	if err != nil || xml.Unmarshal(x, &suites) != nil || suites.Failures != 2 || suites.Tests != 2 {
		t.Errorf("junit (%v): %+v\n%s", err, suites, x)
	}

	// --baseline at the end of a run: the same check in one command.
	code, out, errs = runCmdWith(t, fakeEngine(120, 120), append([]string{"--repeat", "5", "--sweep", "iodepth=1,8",
		"--output-format=compare", "--baseline", old, "--fail-if-slower", "5", "--drift", "0"}, job...)...)
	if code != ExitSlower || !strings.Contains(out, "gofio diff against the baseline "+old) ||
		!strings.Contains(errs, "against the baseline") {
		t.Errorf("--baseline slow: exit %d\n%s\n%s", code, out, errs)
	}
	// A passing --baseline says so on stdout and in its JSON, and its
	// JUnit file holds the baseline's suite alone (the run itself has one
	// side: nothing to pass or fail).
	result := filepath.Join(dir, "result.json")
	code, out, errs = runCmdWith(t, fakeEngine(100, 100), append([]string{"--repeat", "5", "--sweep", "iodepth=1,8",
		"--output-format=json", "--output", result, "--junit", junit, "--baseline", old, "--fail-if-slower", "5", "--drift", "0"}, job...)...)
	if code != ExitOK || !strings.Contains(out, "gofio verdict against the baseline "+old+": pass: no row slower by more than 5% beyond noise; 2 rows: 2 ~") {
		t.Errorf("--baseline same: exit %d\nstdout %q\n%s", code, out, errs)
	}
	data, _ = os.ReadFile(result)
	b, _ := decodeJSON(t, result, data)[report.BaselineJSONKey].(map[string]any)
	if b["verdict"] != "pass" || b["baseline"] != old || b["fail_if_slower"] != 5.0 || b["comparison"] == nil {
		t.Errorf("%s: %s = %v", result, report.BaselineJSONKey, b)
	}
	x, _ = os.ReadFile(junit)
	if n := strings.Count(string(x), "<testsuite "); n != 1 || strings.Contains(string(x), "one side") {
		t.Errorf("junit of a --baseline run: %d suites, want the baseline's alone:\n%s", n, x)
	}

	// A drift allowance between runs: 20% slower passes a 5% gate that
	// grants 25% of drift, says so, and the run carries the allowance to
	// the diffs against it.
	code, out, errs = runCmdWith(t, fakeEngine(120, 120), append([]string{"--repeat", "5", "--sweep", "iodepth=1,8",
		"--output-format=json", "--output", result, "--baseline", old, "--fail-if-slower", "5", "--drift", "25"}, job...)...)
	if code != ExitOK || !strings.Contains(out, "pass: no row slower by more than 5% (+ 25% drift)") {
		t.Errorf("--drift 25: exit %d\n%s\n%s", code, out, errs)
	}
	data, _ = os.ReadFile(result)
	doc = decodeJSON(t, result, data)
	if info, _ := doc[report.RunJSONKey].(map[string]any); info["drift_pct"] != 25.0 {
		t.Errorf("%s: %s.drift_pct = %v, want 25", result, report.RunJSONKey, info["drift_pct"])
	}
	if b, _ := doc[report.BaselineJSONKey].(map[string]any); b["drift_pct"] != 25.0 {
		t.Errorf("%s: %s.drift_pct = %v, want 25", result, report.BaselineJSONKey, b["drift_pct"])
	}
	if code, out, _ := runCmd(t, "diff", "--drift=25", old, slow); code != ExitOK || !strings.Contains(out, "drift allowance 25%: ") {
		t.Errorf("diff --drift 25: exit %d\n%s", code, out)
	}
	if code, _, errs := runCmd(t, "diff", "--fail-if-slower=5", "--drift=10", old, slow); code != ExitSlower || !strings.Contains(errs, "beyond 15%, 10% of it the drift allowance") {
		t.Errorf("diff --drift 10 of 20%% slower: exit %d: %s", code, errs)
	}
}

// TestDiffPlainRuns: gofio diff takes two plain --output-format=json runs
// (one repeat each), prints the two sides' numbers and can only say "too
// few repeats"; a gate on them is refused as on any run of too few
// repeats.
func TestDiffPlainRuns(t *testing.T) {
	dir := t.TempDir()
	save := func(name string, us uint64) string {
		t.Helper()
		path := filepath.Join(dir, name)
		code, _, errs := runCmdWith(t, fakeEngine(us, us), "--output-format=json", "--output="+path,
			"--name=ci", "--ioengine=null", "--size=1m", "--rw=randread", "--iodepth=4")
		if code != ExitOK {
			t.Fatalf("saving %s: exit %d: %s", name, code, errs)
		}
		return path
	}
	a, b := save("a.json", 100), save("b.json", 150)
	code, out, errs := runCmd(t, "diff", a, b)
	if code != ExitOK || !strings.Contains(out, "too few repeats") || !strings.Contains(out, "150.00") || !strings.Contains(out, "100.00") ||
		!strings.Contains(out, "+50.00%") || !strings.Contains(out, "\n      4  ") {
		t.Errorf("diff of plain runs: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := runCmd(t, "diff", "--fail-if-slower=5", a, b); code != ExitBadInput || !strings.Contains(errs, "(got 1)") {
		t.Errorf("gated diff of plain runs: exit %d: %s", code, errs)
	}
}

// TestDiffRefusals: different jobs are refused before any I/O unless
// allowed; too few repeats for a gate are refused; a file without a
// comparison says how to make one.
func TestDiffRefusals(t *testing.T) {
	dir := t.TempDir()
	save := func(name string, repeat string, opts ...string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		args := append([]string{"--repeat", repeat, "--output-format=json", "--output=" + path, "--name=ci", "--ioengine=null", "--rw=randread"}, opts...)
		if code, _, errs := runCmdWith(t, fakeEngine(100, 100), args...); code != ExitOK {
			t.Fatalf("saving %s: exit %d: %s", name, code, errs)
		}
		return path
	}
	a := save("a.json", "5", "--size=1m")
	b := save("b.json", "5", "--size=2m")
	three := save("three.json", "3", "--size=1m")

	code, _, errs := runCmd(t, "diff", a, b)
	if code != ExitBadInput || !strings.Contains(errs, `old has "size=1m" where new has "size=2m"`) || !strings.Contains(errs, "--allow-different-jobs") {
		t.Errorf("different jobs: exit %d: %s", code, errs)
	}
	if code, _, errs := runCmd(t, "diff", "--allow-different-jobs", a, b); code != ExitOK {
		t.Errorf("allowed: exit %d: %s", code, errs)
	}
	called := false
	core := func(context.Context, []*jobfile.Job, run.Options) (*report.Result, error) {
		called = true
		return nil, nil
	}
	code, _, errs = runCmdWith(t, core, "--repeat", "5", "--baseline", a, "--name=ci", "--ioengine=null", "--rw=randread", "--size=2m")
	if code != ExitBadInput || called || !strings.Contains(errs, "the runs are of different jobs") {
		t.Errorf("--baseline of other jobs: exit %d, ran %v: %s", code, called, errs)
	}
	if code, _, errs := runCmd(t, "diff", "--fail-if-slower=5", three, a); code != ExitBadInput || !strings.Contains(errs, "--repeat 5 or more (got 3)") {
		t.Errorf("three repeats gated: exit %d: %s", code, errs)
	}
	plain := filepath.Join(dir, "plain.json")
	if err := os.WriteFile(plain, []byte(`{"fio version": "fio-3.33", "jobs": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCmd(t, "diff", plain, a); code != ExitBadInput || !strings.Contains(errs, "save runs with gofio's --output-format=json") {
		t.Errorf("fio's own JSON: exit %d: %s", code, errs)
	}
	if code, _, errs := runCmd(t, "diff", a); code != ExitBadInput || !strings.Contains(errs, "usage: gofio diff") {
		t.Errorf("one file: exit %d: %s", code, errs)
	}
}

// TestJobFileRunOptions runs a job file that carries its own compare=,
// sweep=, repeat= and fail_if_slower=: gofio JOB runs the sweep and the
// gate; command-line flags override each; --showcmd prints them.
func TestJobFileRunOptions(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "sweep.fio")
	if err := os.WriteFile(job, []byte("[global]\nioengine=null\nsize=1m\nrw=randread\ncompare=tw_priority=1,0\nsweep=iodepth=1,8\nrepeat=5\nfail_if_slower=5\n[j]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Priority twice as slow: the file's own gate fails.
	code, out, errs := runCmdWith(t, fakeEngine(200, 100), "--output-format=compare", job)
	if code != ExitSlower || !strings.Contains(out, "rounds of both sides (ABBA)") || !strings.Contains(errs, "iodepth=8 (+100.00%") {
		t.Errorf("file's gate: exit %d\n%s\n%s", code, out, errs)
	}
	// --fail-if-slower overrides the file's 5%.
	if code, _, errs := runCmdWith(t, fakeEngine(200, 100), "--output-format=compare", "--fail-if-slower=150", job); code != ExitOK {
		t.Errorf("--fail-if-slower 150: exit %d: %s", code, errs)
	}
	// --compare overrides compare=: an A/A test passes.
	if code, _, errs := runCmdWith(t, fakeEngine(200, 100), "--output-format=compare", "--compare", "tw_priority=1,1", job); code != ExitOK {
		t.Errorf("--compare tw_priority=1,1: exit %d: %s", code, errs)
	}
	// --repeat 41 overrides repeat=5: the first look comes after 42
	// rounds (whole ABBA pairs).
	if code, out, errs := runCmdWith(t, fakeEngine(200, 100), "--repeat", "41", job); code != ExitSlower || !strings.Contains(out, "42 rounds a row") {
		t.Errorf("--repeat 41: exit %d: %s\n%s", code, out, errs)
	}
	// --sweep overrides sweep=.
	code, out, _ = runCmdWith(t, fakeEngine(100, 100), "--output-format=compare", "--sweep", "iodepth=2", job)
	if code != ExitOK || !strings.Contains(out, "\n      2  ") || strings.Contains(out, "\n      8  ") {
		t.Errorf("--sweep iodepth=2: exit %d\n%s", code, out)
	}
	// --showcmd prints them apart from fio's line, which fio can run.
	_, out, _ = runCmd(t, "--showcmd", job)
	fioLine, gofioLine, _ := strings.Cut(out, "\n")
	for _, want := range []string{"--compare=tw_priority=1,0", "--sweep=iodepth=1,8", "--repeat=5", "--fail_if_slower=5"} {
		if !strings.Contains(gofioLine, want) || strings.Contains(fioLine, want) {
			t.Errorf("--showcmd: %s not on gofio's own line: %s", want, out)
		}
	}
	if !strings.HasPrefix(gofioLine, "# ") {
		t.Errorf("--showcmd: gofio's line is not a shell comment: %q", gofioLine)
	}
	// The example of the patch's sweep parses and carries its sweep.
	if code, _, errs := runCmd(t, "--parse-only", "examples/randread-sweep.fio"); code != ExitOK {
		t.Errorf("examples/randread-sweep.fio: exit %d: %s", code, errs)
	}
}

// jobsEngine is a run core stand-in whose jobs complete 1000 reads at a
// latency chosen by job name.
func jobsEngine(us map[string]uint64) func(context.Context, []*jobfile.Job, run.Options) (*report.Result, error) {
	return func(_ context.Context, jobs []*jobfile.Job, opts run.Options) (*report.Result, error) {
		res := &report.Result{Version: opts.Version}
		for _, j := range jobs {
			lat := us[j.Name] * 1000
			res.Jobs = append(res.Jobs, fakeJobResult(j, uint64(lat), report.PolicyPriority))
		}
		return res, nil
	}
}

// TestDiffJobByJobE2E saves a run of two jobs, then diffs a run where only
// job b is 20% slower: gofio diff fails on b's row alone.
func TestDiffJobByJobE2E(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "two.fio")
	if err := os.WriteFile(job, []byte("[global]\nioengine=null\nsize=1m\nrw=randread\n[a]\n[b]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	save := func(name string, b uint64) string {
		path := filepath.Join(dir, name)
		if code, _, errs := runCmdWith(t, jobsEngine(map[string]uint64{"a": 100, "b": b}), "--repeat", "5",
			"--output-format=json", "--output="+path, job); code != ExitOK {
			t.Fatalf("saving %s: exit %d: %s", name, code, errs)
		}
		return path
	}
	old, slow := save("old.json", 100), save("slow.json", 120)
	code, out, errs := runCmd(t, "diff", "--fail-if-slower=5", "--drift=0", old, slow)
	if code != ExitSlower || !strings.Contains(errs, "iodepth,job=1,b (+20.00%") || strings.Contains(errs, "1,a") {
		t.Errorf("exit %d, stderr %q; want 101 on job b alone\n%s", code, errs, out)
	}
	if !strings.Contains(out, "iodepth,job") {
		t.Errorf("table lacks the job column:\n%s", out)
	}
}
