package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/canary"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/run"
)

// steadyCanary is a runner canary whose items read the same figures every
// reading, times slow: a runner that never changes (slow 1), or one that
// got slower (slow > 1) or faster.
func steadyCanary(slow float64) *canary.Runner {
	item := func(name string, base float64) canary.Item {
		rep := 0
		return canary.Item{Name: name, Run: func(context.Context) (float64, error) {
			rep++
			return base * slow * (1 + float64(rep%canary.Reps)/100), nil
		}}
	}
	return &canary.Runner{Items: []canary.Item{item(canary.ItemCPU, 3), item(canary.ItemMem, 200), item(canary.ItemNull, 400)}}
}

// editRunInfo rewrites the gofio_run object of the saved run at path
// with edit.
func editRunInfo(t *testing.T, path string, edit func(info map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := decodeJSON(t, path, data)
	info, _ := doc[report.RunJSONKey].(map[string]any)
	edit(info)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDiffRefusesOtherRunner: every saved run carries its runner's
// environment; gofio diff and --baseline refuse runs whose runners differ
// (here the CPU governor and the kernel) before any I/O, naming each
// field, unless --allow-runner-change lists them.
func TestDiffRefusesOtherRunner(t *testing.T) {
	dir := t.TempDir()
	job := []string{"--name=ci", "--ioengine=null", "--size=1m", "--rw=randread"}
	save := func(name string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		code, _, errs := runCmdWith(t, fakeEngine(100, 100), append([]string{"--repeat", "5", "--output-format=json", "--output=" + path}, job...)...)
		if code != ExitOK {
			t.Fatalf("saving %s: exit %d: %s", name, code, errs)
		}
		return path
	}
	old, cur := save("old.json"), save("new.json")
	doc := decodeJSON(t, old, mustRead(t, old))
	env, _ := doc[report.RunJSONKey].(map[string]any)["env"].(map[string]any)
	for _, k := range []string{"governor", "smt", "mitigations", "devices"} {
		if _, ok := env[k]; !ok {
			t.Errorf("%s: %s.env lacks %s: %v", old, report.RunJSONKey, k, env)
		}
	}
	if devs, _ := env["devices"].([]any); devs == nil || len(devs) != 0 {
		t.Errorf("a null-engine run's devices = %v, want [] (no disk)", env["devices"])
	}
	editRunInfo(t, old, func(info map[string]any) {
		info["env"].(map[string]any)["governor"] = "powersave"
		info["kernel"] = "5.10.0-old"
	})

	code, _, errs := runCmd(t, "diff", old, cur)
	if code != ExitBadInput || !strings.Contains(errs, "the runs were made on different runners") ||
		!strings.Contains(errs, "governor: old powersave, new ") || !strings.Contains(errs, "--allow-runner-change kernel,governor") {
		t.Errorf("diff across runners: exit %d: %s", code, errs)
	}
	if code, _, errs := runCmd(t, "diff", "--allow-runner-change", "governor", old, cur); code != ExitBadInput || !strings.Contains(errs, "kernel: old 5.10.0-old") {
		t.Errorf("governor allowed, kernel not: exit %d: %s", code, errs)
	}
	code, _, errs = runCmd(t, "diff", "--allow-runner-change", "kernel,governor", old, cur)
	if code != ExitOK || !strings.Contains(errs, "allowed: governor: old powersave") {
		t.Errorf("both allowed: exit %d: %s", code, errs)
	}
	if code, _, errs := runCmd(t, "diff", "--allow-runner-change", "host", old, cur); code != ExitBadInput || !strings.Contains(errs, `unknown runner field "host"`) {
		t.Errorf("bad field: exit %d: %s", code, errs)
	}
	called := false
	core := func(context.Context, []*jobfile.Job, run.Options) (*report.Result, error) {
		called = true
		return nil, nil
	}
	code, _, errs = runCmdWith(t, core, append([]string{"--repeat", "5", "--baseline", old}, job...)...)
	if code != ExitBadInput || called || !strings.Contains(errs, "different runners") {
		t.Errorf("--baseline across runners: exit %d, ran %v: %s", code, called, errs)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// runCmdCanary runs a gofio command in-process with canary as the runner
// canary and core as the run core.
func runCmdCanary(t *testing.T, c *canary.Runner, core func(context.Context, []*jobfile.Job, run.Options) (*report.Result, error), args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	st := &State{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, RunCore: core, Canary: c,
		Getenv: func(string) (string, bool) { return "", false }}
	code := st.command(context.Background(), append([]string{"gofio"}, args...))
	return code, out.String(), errb.String()
}

// TestRunnerChangedE2E: a baseline diff whose runner canary moved the way
// that explains its outcome reads "runner changed" and exits
// ExitRunnerChanged, not ExitSlower: a job 30% slower on a runner whose
// canary reads 50% slower, and an unchanged job on a runner that got
// faster (it could hide a slowdown). The same slower job on an unchanged
// runner still fails with ExitSlower, and an unchanged job on a slower
// runner passes, saying the runner moved. The slower runner is injected
// through State.Canary.
func TestRunnerChangedE2E(t *testing.T) {
	dir := t.TempDir()
	job := []string{"--name=ci", "--ioengine=null", "--size=1m", "--rw=randread", "--sweep", "iodepth=1,8"}
	old := filepath.Join(dir, "old.json")
	if code, _, errs := runCmdCanary(t, steadyCanary(1), fakeEngine(100, 100), append([]string{"--repeat", "5",
		"--output-format=json", "--output=" + old}, job...)...); code != ExitOK {
		t.Fatalf("baseline: exit %d: %s", code, errs)
	}
	doc := decodeJSON(t, old, mustRead(t, old))
	rec, _ := doc[report.RunJSONKey].(map[string]any)["canary"].(map[string]any)
	for _, k := range []string{"before", "after"} {
		rd, _ := rec[k].(map[string]any)
		figs, _ := rd["figures"].(map[string]any)
		if cpu, _ := figs[canary.ItemCPU].([]any); len(cpu) != canary.Reps {
			t.Errorf("%s: canary.%s = %v, want %d cpu figures", old, k, rd, canary.Reps)
		}
	}
	for _, c := range []struct {
		name       string
		runner     float64 // the canary's slowdown
		jobUs      uint64  // the job's latency (baseline 100)
		code       int
		line, json string
	}{
		{"slower job, slower runner", 1.5, 130, ExitRunnerChanged, "RUNNER CHANGED: the runner canary moved: its cpu item +50.0%", report.VerdictRunnerChanged},
		{"slower job, same runner", 1, 130, ExitSlower, "FAIL: slower by more than 5%", "fail"},
		{"same job, faster runner", 0.6, 100, ExitRunnerChanged, "a faster runner could hide a slowdown", report.VerdictRunnerChanged},
		{"same job, slower runner", 1.5, 100, ExitOK, "pass: no row slower by more than 5% beyond noise (the runner canary moved", "pass"},
	} {
		result := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".json")
		code, out, errs := runCmdCanary(t, steadyCanary(c.runner), fakeEngine(c.jobUs, c.jobUs), append([]string{"--repeat", "5",
			"--baseline", old, "--fail-if-slower", "5", "--drift", "0", "--output-format=json", "--output=" + result}, job...)...)
		if code != c.code || !strings.Contains(out+errs, c.line) {
			t.Errorf("%s: exit %d, want %d with %q\n%s\n%s", c.name, code, c.code, c.line, out, errs)
		}
		doc := decodeJSON(t, result, mustRead(t, result))
		b, _ := doc[report.BaselineJSONKey].(map[string]any)
		if b["verdict"] != c.json {
			t.Errorf("%s: %s.verdict = %v, want %q", c.name, report.BaselineJSONKey, b["verdict"], c.json)
		}
		if r, _ := b["runner"].(map[string]any); r["tolerance_pct"] != 10.0 || len(r["items"].([]any)) != 3 {
			t.Errorf("%s: %s.runner = %v", c.name, report.BaselineJSONKey, b["runner"])
		}
		// gofio diff of the two saved runs says the same.
		if code, _, _ := runCmd(t, "diff", "--fail-if-slower=5", "--drift=0", old, result); code != c.code {
			t.Errorf("%s: gofio diff exit %d, want %d", c.name, code, c.code)
		}
		// Without a drift allowance a gated diff cannot judge the code: it
		// is refused, unless the runner moved, which is then the verdict.
		want, wantOut := ExitBadInput, "needs the drift between runs"
		if c.runner != 1 {
			want, wantOut = ExitRunnerChanged, "no drift allowance is known, so nothing tells the runner's drift from the code's"
		}
		if code, out, errs := runCmd(t, "diff", "--fail-if-slower=5", old, result); code != want || !strings.Contains(out+errs, wantOut) {
			t.Errorf("%s: gofio diff without --drift: exit %d, want %d with %q\n%s\n%s", c.name, code, want, wantOut, out, errs)
		}
	}
}
