package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// steadyJSON runs a null-engine job with args and returns its one JSON job.
func steadyJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, errs := runCmd(t, append([]string{"--output-format=json", "--name=ss", "--ioengine=null", "--size=100g", "--time_based"}, args...)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	jobs := jsonJobs(t, decodeJSON(t, "gofio's output", []byte(out)))
	if len(jobs) != 1 {
		t.Fatalf("%d jobs, want 1", len(jobs))
	}
	return jobs[0]
}

// checkSteadyShape checks fio's "steadystate" object: its keys in fio's
// order, a duration of dur seconds and a window of as many samples (one a
// second, fio 3.33's steady state).
func checkSteadyShape(t *testing.T, job map[string]any, ss string, dur int) map[string]any {
	return checkSteadyWindow(t, job, ss, dur, dur, "bw", "iops")
}

// checkSteadyWindow checks fio's "steadystate" object: its keys in fio's
// order, a duration of dur seconds, and samples entries in each of the
// data arrays named.
func checkSteadyWindow(t *testing.T, job map[string]any, ss string, dur, samples int, arrays ...string) map[string]any {
	t.Helper()
	s, ok := job["steadystate"].(map[string]any)
	if !ok {
		t.Fatalf("no steadystate object in %v", keysOf(job))
	}
	for _, k := range []string{"ss", "duration", "attained", "criterion", "max_deviation", "slope", "data"} {
		if _, ok := s[k]; !ok {
			t.Errorf("steadystate lacks %q", k)
		}
	}
	if s["ss"] != ss || s["duration"] != float64(dur) {
		t.Errorf("ss %v, duration %v; want %s, %d", s["ss"], s["duration"], ss, dur)
	}
	data, _ := s["data"].(map[string]any)
	for _, k := range arrays {
		if a, _ := data[k].([]any); len(a) != samples {
			t.Errorf("data.%s has %d samples, want %d", k, len(a), samples)
		}
	}
	for _, k := range []string{"bw_mean", "iops_mean"} {
		if _, ok := data[k].(float64); !ok {
			t.Errorf("data lacks %s", k)
		}
	}
	return s
}

func keysOf(m map[string]any) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	return k
}

// TestSteadyStateAttainedEndsJob: two one-second samples of any non-zero
// rate deviate from their mean by at most 100% of it, so iops:200% is
// attained as soon as the window is full, and the job ends then, long
// before its runtime.
func TestSteadyStateAttainedEndsJob(t *testing.T) {
	job := steadyJSON(t, "--runtime=300", "--ss=iops:200%", "--ss_dur=2")
	s := checkSteadyShape(t, job, "iops:200.000000%", 2)
	if s["attained"] != float64(1) {
		t.Errorf("attained %v, want 1", s["attained"])
	}
	if rt := num(t, job, "job_runtime"); rt >= 300000 {
		t.Errorf("job_runtime %v ms: the job ran its whole runtime instead of ending at steady state", rt)
	}
}

// TestSteadyStateNotAttained: a deviation can never be below 0%, so the job
// runs its runtime and reports attained=0 with its last window.
func TestSteadyStateNotAttained(t *testing.T) {
	job := steadyJSON(t, "--runtime=1500ms", "--ss=bw:0%", "--ss_dur=1")
	s := checkSteadyShape(t, job, "bw:0.000000%", 1)
	if s["attained"] != float64(0) {
		t.Errorf("attained %v, want 0", s["attained"])
	}
}

// TestSteadyStateGroupReporting: numjobs=2 with group_reporting share one
// window and end together; the merged job carries it. The normal output
// has fio's steadystate line.
func TestSteadyStateGroupReporting(t *testing.T) {
	job := steadyJSON(t, "--runtime=300", "--numjobs=2", "--group_reporting", "--ss=iops_slope:1e12", "--ss_dur=2")
	s := checkSteadyShape(t, job, "iops_slope:999999995904.000000", 2)
	if s["attained"] != float64(1) {
		t.Errorf("attained %v, want 1", s["attained"])
	}
	code, out, errs := runCmd(t, "--name=ss", "--ioengine=null", "--size=100g", "--time_based", "--runtime=300", "--ss=bw:200%", "--ss_dur=2")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "  steadystate  : attained=yes, bw=") || !strings.Contains(out, ", bw mean dev=") {
		t.Errorf("no steadystate line in the normal output:\n%s", out)
	}
}

// TestSteadyStateLatInterval: fio 3.42's steady state on latency with a
// check interval: two one-second samples of the mean completion latency
// over a 2 s duration, the means in the JSON and on the normal output's
// line, attained within 200% of their mean.
func TestSteadyStateLatInterval(t *testing.T) {
	f := filepath.Join(t.TempDir(), "ss.dat")
	args := []string{"--name=ss", "--ioengine=psync", "--filename=" + f, "--size=1m", "--time_based", "--runtime=60",
		"--ss=lat:200%", "--ss_dur=2", "--ss_interval=1"}
	code, out, errs := runCmd(t, append([]string{"--output-format=json"}, args...)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	jobs := jsonJobs(t, decodeJSON(t, "gofio's output", []byte(out)))
	s := checkSteadyWindow(t, jobs[0], "lat:200.000000%", 2, 2, "bw", "iops", "lat_ns")
	if data := s["data"].(map[string]any); s["attained"] != float64(1) || data["lat_mean"] == nil {
		t.Errorf("attained %v, lat_mean %v; want 1 and the samples' mean", s["attained"], data["lat_mean"])
	}
	code, out, errs = runCmd(t, args...)
	if code != ExitOK || !strings.Contains(out, "nsec, lat mean dev=") {
		t.Errorf("exit %d (%s); no lat on the steadystate line:\n%s", code, errs, out)
	}
}

// TestSteadyStateIntervalRefused: fio 3.42 refuses a duration that is not
// a multiple of the check interval, an interval under a second, and
// intervals that differ between jobs, before any job runs.
func TestSteadyStateIntervalRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ss_dur=3", "--ss_interval=2"}, "fio: ss_duration 3000000us must be multiple of ss_check_interval 2000000us"},
		{[]string{"--ss_dur=2", "--ss_interval=500ms"}, "fio: ss_check_interval must be at least 1s"},
		{[]string{"--ss_dur=4", "--ss_interval=2", "--name=b", "--ioengine=null", "--size=1m"}, "fio: conflicting ss_check_interval: 2000000 and 1000000"},
	} {
		code, out, errs := runCmd(t, append([]string{"--name=a", "--ioengine=null", "--size=1m"}, c.args...)...)
		if code != ExitBadInput || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 and %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestSteadyStateGroupMismatch: fio refuses jobs of one reporting group
// whose steady-state options differ.
func TestSteadyStateGroupMismatch(t *testing.T) {
	code, out, errs := runCmd(t, "--name=a", "--ioengine=null", "--size=1m", "--ss_dur=2", "--ss=iops:5%", "--name=b", "--ioengine=null", "--size=1m")
	if code != ExitBadInput || out != "" || !strings.Contains(errs, "steadystate options must be consistent within reporting groups") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and fio's refusal", code, out, errs)
	}
}

// TestSteadyStateStatusInterval: --status-interval reports carry the
// window as of the last check, as fio's periodic reports do.
func TestSteadyStateStatusInterval(t *testing.T) {
	code, out, errs := runCmd(t, "--output-format=json", "--status-interval=1", "--name=ss", "--ioengine=null", "--size=100g",
		"--time_based", "--runtime=3500ms", "--ss=bw:0%", "--ss_dur=1")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if n := strings.Count(out, `"steadystate" : {`); n < 2 {
		t.Errorf("%d steadystate objects, want one in the final report and at least one in a status report:\n%s", n, out)
	}
}
