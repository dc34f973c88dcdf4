package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExecPrerunPostrun runs fio's exec_prerun and exec_postrun through
// the binary, as fio 3.33 runs them: each through the shell with
// "> NAME.MODE.txt 2>&1" appended (so only the last command's output is
// in the file), fio's "Saving output" line on stdout with the normal
// output, and a prerun that fails makes the job do no I/O, without an
// error. With JSON output stdout holds only the report.
func TestExecPrerunPostrun(t *testing.T) {
	cwd := t.TempDir()
	r := execGofio(t, cwd, "--name=ex", "--ioengine=null", "--size=64k", "--exec_prerun=echo first; echo pre", "--exec_postrun=echo post")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	for _, want := range []string{"ex : Saving output of prerun in ex.prerun.txt\n", "ex : Saving output of postrun in ex.postrun.txt\n", "first\n", "ex: (groupid=0, jobs=1): err= 0"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	for file, want := range map[string]string{"ex.prerun.txt": "pre\n", "ex.postrun.txt": "post\n"} {
		if got, err := os.ReadFile(filepath.Join(cwd, file)); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", file, got, err, want)
		}
	}
	r = execGofio(t, cwd, "--name=ex", "--ioengine=null", "--size=64k", "--exec_prerun=exit 3", "--output-format=json")
	if r.code != 0 || !strings.Contains(r.stderr, `exec_prerun="exit 3": exit status 3: the job does no I/O`) {
		t.Errorf("failing prerun: exit %d\nstderr: %s", r.code, r.stderr)
	}
	job := jsonJobs(t, decodeJSON(t, "stdout", []byte(r.stdout)))[0]
	if n := num(t, job, "read", "total_ios"); n != 0 || job["error"].(float64) != 0 {
		t.Errorf("failing prerun: %v reads, error %v; want none, 0", n, job["error"])
	}
}
