package cmd

import (
	"strings"
	"testing"
)

// TestCpuioInfoLine runs a cpuio job through the binary: with the normal
// output its engine's set-up line is on stdout after "Starting", once per
// job as fio 3.33 prints it ("c (noop): ioengine=cpuio, cpuload=50,
// cpucycle=50000", also once for a job whose iodepth is capped at 1);
// with JSON output stdout holds only the report, where fio puts the line
// ahead of its JSON.
func TestCpuioInfoLine(t *testing.T) {
	cwd := t.TempDir()
	args := []string{"--name=c", "--ioengine=cpuio", "--cpuload=50", "--cpuchunks=2000", "--iodepth=4", "--numjobs=2", "--number_ios=3"}
	r := execGofio(t, cwd, args...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	line := "c (noop): ioengine=cpuio, cpuload=50, cpucycle=2000\n"
	start := strings.Index(r.stdout, "Starting 2 processes\n")
	if start < 0 || strings.Count(r.stdout, line) != 2 || strings.Index(r.stdout, line) < start {
		t.Errorf("want %q twice after \"Starting 2 processes\", stdout:\n%s", line, r.stdout)
	}
	r = execGofio(t, cwd, append(args, "--output-format=json")...)
	if r.code != 0 {
		t.Fatalf("json: exit %d\nstderr: %s", r.code, r.stderr)
	}
	if jobs := jsonJobs(t, decodeJSON(t, "stdout", []byte(r.stdout))); len(jobs) != 2 {
		t.Errorf("json: %d jobs, want 2", len(jobs))
	}
}
