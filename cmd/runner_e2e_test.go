package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/run"
)

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
