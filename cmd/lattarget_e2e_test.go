package cmd

import (
	"strings"
	"testing"
)

// TestLatencyTargetNullEngine: on the null engine every I/O meets a 1 s
// target, so the search doubles from 1 to iodepth=8, runs its final
// window there and ends the job long before its runtime; the JSON and
// normal output carry fio's latency_* figures.
func TestLatencyTargetNullEngine(t *testing.T) {
	job := []string{"--name=lt", "--ioengine=null", "--size=1g", "--time_based", "--runtime=300", "--iodepth=8",
		"--latency_target=1s", "--latency_window=20ms", "--latency_percentile=99"}
	code, out, errs := runCmd(t, append([]string{"--output-format=json"}, job...)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	jobs := jsonJobs(t, decodeJSON(t, "gofio's output", []byte(out)))
	j := jobs[0]
	for k, want := range map[string]float64{"latency_depth": 8, "latency_target": 1e9, "latency_percentile": 99, "latency_window": 20000} {
		if got := num(t, j, k); got != want {
			t.Errorf("%s = %v, want %v", k, got, want)
		}
	}
	if rt := num(t, j, "job_runtime"); rt >= 300000 {
		t.Errorf("job_runtime %v ms: the search did not end the job", rt)
	}
	code, out, errs = runCmd(t, job...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if want := "     latency   : target=1000000000, window=20000, percentile=99.00%, depth=8\n"; !strings.Contains(out, want) {
		t.Errorf("normal output lacks %q:\n%s", want, out)
	}
}
