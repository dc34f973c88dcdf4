package cmd

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/run"
)

// runEngine is a run core stand-in whose every job completes 1000 reads
// at us·level µs, the level varying from run to run by the factors in
// wobble (one per call, cycling), as runs of an unchanged job on a real
// runner do; run i of a history is made a minute after run i-1.
func runEngine(us float64, wobble []float64, at time.Time) func(context.Context, []*jobfile.Job, run.Options) (*report.Result, error) {
	call := 0
	return func(_ context.Context, jobs []*jobfile.Job, opts run.Options) (*report.Result, error) {
		res := &report.Result{Version: opts.Version, Start: at, End: at}
		lat := us * wobble[call%len(wobble)] * 1000
		call++
		for _, j := range jobs {
			res.Jobs = append(res.Jobs, fakeJobResult(j, uint64(math.Round(lat)), report.PolicyFIFO))
		}
		return res, nil
	}
}

// TestHistoryE2E saves ten runs of an unchanged job whose level stepped
// up 40% at the fifth (a kernel change, say), then judges new runs with
// gofio history: a run at the new level passes against the runs since
// the step, which gofio history names; a run 30% slower fails (101); a
// run 30% slower whose runner canary reads 50% slower is runner changed
// (102); and --history at the end of a run says the same.
func TestHistoryE2E(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "runs")
	job := []string{"--name=ci", "--ioengine=null", "--size=1m", "--rw=randread", "--sweep", "iodepth=1,8", "--repeat", "5", "--output-format=json"}
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	wobble := []float64{1, 1.01, 0.99, 1.02, 0.98, 1.005, 0.995}
	save := func(path string, i int, level, canarySlow float64, extra ...string) (int, string, string) {
		t.Helper()
		// The repeats of one run differ a little; the run's level by its
		// own wobble.
		w := make([]float64, len(wobble))
		for k := range w {
			w[k] = level * wobble[(i+k)%len(wobble)] * wobble[i%len(wobble)]
		}
		args := append(append([]string{}, job...), "--output="+path)
		return runCmdCanary(t, steadyCanary(canarySlow), runEngine(100, w, start.Add(time.Duration(i)*time.Minute)), append(args, extra...)...)
	}
	if err := os.MkdirAll(hist, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		level := 1.0
		if i >= 4 {
			level = 1.4
		}
		if code, _, errs := save(filepath.Join(hist, fmt.Sprintf("r%02d.json", i)), i, level, 1); code != ExitOK {
			t.Fatalf("run %d: exit %d: %s", i, code, errs)
		}
	}
	for _, c := range []struct {
		name         string
		level, slow  float64
		code         int
		want, verdct string
	}{
		{"at the new level", 1.4, 1, ExitOK, "pass: no row slower by more than 5% beyond the runs' own spread", "~"},
		{"30% slower", 1.4 * 1.3, 1, ExitSlower, "FAIL: slower by more than 5% beyond the runs' own spread at 1 +3", "slower"},
		{"30% slower on a slower runner", 1.4 * 1.3, 1.5, ExitRunnerChanged, "RUNNER CHANGED (the runner canary moved: its cpu item +50.0%", "slower"},
	} {
		cur := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".json")
		if code, _, errs := save(cur, 10, c.level, c.slow); code != ExitOK {
			t.Fatalf("%s: exit %d: %s", c.name, code, errs)
		}
		code, out, errs := runCmd(t, "history", "--fail-if-slower", "5", hist, cur)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, want %d with %q\n%s\n%s", c.name, code, c.code, c.want, out, errs)
		}
		for _, want := range []string{"change point: row 1 moved +", "at run 5, r04.json", "11 runs of these jobs on this runner"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q:\n%s", c.name, want, out)
			}
		}
		// The same judgement at the end of the run itself.
		result := filepath.Join(dir, "with-history.json")
		code, out, errs = save(result, 10, c.level, c.slow, "--history", hist, "--fail-if-slower", "5")
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("--history, %s: exit %d, want %d with %q\n%s\n%s", c.name, code, c.code, c.want, out, errs)
		}
		doc := decodeJSON(t, result, mustRead(t, result))
		h, _ := doc[report.HistoryJSONKey].(map[string]any)
		rows, _ := h["rows"].([]any)
		if len(rows) != 2 || rows[0].(map[string]any)["verdict"] != c.verdct || len(h["runs"].([]any)) != 11 {
			t.Errorf("--history, %s: %s = %v", c.name, report.HistoryJSONKey, h)
		}
	}
	// The newest run in the directory is judged when no file is named.
	if code, out, _ := runCmd(t, "history", hist); code != ExitOK || !strings.Contains(out, "judging r09.json") || !strings.Contains(out, "not gated") {
		t.Errorf("history of the newest run: exit %d\n%s", code, out)
	}
	if code, out, _ := runCmd(t, "history", "--output-format=json", hist); code != ExitOK || !strings.Contains(out, `"`+report.HistoryJSONKey+`"`) {
		t.Errorf("history JSON: exit %d\n%s", code, out)
	}
	if code, _, errs := runCmd(t, "history", filepath.Join(dir, "none")); code != ExitBadInput || !strings.Contains(errs, "history:") {
		t.Errorf("missing directory: exit %d: %s", code, errs)
	}
}

// TestDriftTooNoisyE2E: gofio drift proposes an allowance for runs that
// drift a little, and none for runs that drift so far that the allowance
// would let a 25% slowdown pass a 5% gate: it says the runner is too
// noisy, by how much, and exits ExitRunnerChanged.
func TestDriftTooNoisyE2E(t *testing.T) {
	dir := t.TempDir()
	job := []string{"--name=ci", "--ioengine=null", "--size=1m", "--rw=randread", "--repeat", "5", "--output-format=json"}
	save := func(name string, levels []float64) []string {
		var paths []string
		for i, l := range levels {
			path := filepath.Join(dir, fmt.Sprintf("%s%d.json", name, i))
			w := []float64{l, l * 1.01, l * 0.99, l * 1.02, l * 0.98}
			if code, _, errs := runCmdWith(t, runEngine(100, w, time.Unix(1700000000+int64(60*i), 0)), append(job, "--output="+path)...); code != ExitOK {
				t.Fatalf("%s: exit %d: %s", path, code, errs)
			}
			paths = append(paths, path)
		}
		return paths
	}
	quiet := save("quiet", []float64{1, 1.01, 0.99, 1.005, 1})
	code, out, errs := runCmd(t, append([]string{"drift"}, quiet...)...)
	if code != ExitOK || !strings.Contains(out, "\n--drift ") {
		t.Errorf("quiet runs: exit %d\n%s\n%s", code, out, errs)
	}
	noisy := save("noisy", []float64{1, 3, 0.5, 2, 1.2})
	code, out, errs = runCmd(t, append([]string{"drift"}, noisy...)...)
	if code != ExitRunnerChanged || strings.Contains(out, "\n--drift ") || !strings.Contains(out, "no --drift: the runner is too noisy to gate a baseline diff on: row 1 drifts ±") ||
		!strings.Contains(out, "times the 20% that still lets a 25% slowdown fail a 5% gate") || !strings.Contains(out, "too noisy") {
		t.Errorf("noisy runs: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := runCmd(t, append([]string{"drift", "--fail-if-slower", "30"}, quiet...)...); code != ExitBadInput || !strings.Contains(errs, "--detect 25 must exceed --fail-if-slower 30") {
		t.Errorf("gate above detect: exit %d: %s", code, errs)
	}
}

func TestWorseExit(t *testing.T) {
	for _, c := range []struct{ a, b, want int }{
		{ExitOK, ExitSlower, ExitSlower}, {ExitRunnerChanged, ExitSlower, ExitSlower}, {ExitInconclusive, ExitRunnerChanged, ExitRunnerChanged},
		{ExitRunnerChanged, ExitInconclusive, ExitRunnerChanged}, {ExitInconclusive, ExitOK, ExitInconclusive}, {ExitOK, ExitOK, ExitOK},
	} {
		if got := worseExit(c.a, c.b); got != c.want {
			t.Errorf("worseExit(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
