package cmd

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gofio/gofio/compare"
	"github.com/gofio/gofio/jobfile"
)

// parseJobText parses a job file with body for applyRunOptions.
func parseJobText(t *testing.T, body string) []*jobfile.Job {
	t.Helper()
	path := filepath.Join(t.TempDir(), "j.fio")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs, err := jobfile.Parse(jobfile.Input{Files: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// TestSpecFlagsAndFileAgree: the same comparison given with --compare and
// --sweep, and given as the job file's compare= and sweep=, is parsed into
// the same Spec and expands into the same plan.
func TestSpecFlagsAndFileAgree(t *testing.T) {
	const job = "[j]\nioengine=null\nsize=1m\n"
	cmp := "ioengine=io_uring,libaio"
	flags := &Config{Compare: &cmp, Sweeps: []string{"iodepth=1..64", "bs=4k,8k"}, FailIfSlower: -1}
	if err := applyRunOptions(flags, parseJobText(t, job)); err != nil {
		t.Fatal(err)
	}
	file := &Config{FailIfSlower: -1}
	if err := applyRunOptions(file, parseJobText(t, "[global]\ncompare=ioengine=io_uring,libaio\nsweep=iodepth=1..64 bs=4k,8k\n"+job)); err != nil {
		t.Fatal(err)
	}
	if flags.Spec.AB == nil || len(flags.Spec.Sweeps) != 2 {
		t.Fatalf("flags' spec: %+v", flags.Spec)
	}
	if !reflect.DeepEqual(flags.Spec, file.Spec) {
		t.Fatalf("flags' spec %+v, file's %+v", flags.Spec, file.Spec)
	}
	a, b := compare.Plan(flags.Spec.Sweeps, flags.Spec.AB, 3), compare.Plan(file.Spec.Sweeps, file.Spec.AB, 3)
	if !reflect.DeepEqual(a, b) || len(a) != 7*2*2*3 {
		t.Fatalf("plans differ or have the wrong size: %d and %d points", len(a), len(b))
	}
}

// TestSpecErrors: one grammar for both sources; an error in what the job
// file gave names its file and line, one on the command line names the
// flag.
func TestSpecErrors(t *testing.T) {
	const job = "[j]\nioengine=null\nsize=1m\n"
	for _, tt := range []struct {
		name, file string
		cmp        *string
		sweeps     []string
		want       string
	}{
		{"file compare", "[global]\ncompare=ioengine\n" + job, nil, nil, ":2: compare=ioengine: want KEY=A,B"},
		{"file sweep", "[global]\nsweep=iodepth\n" + job, nil, nil, ":2: sweep=iodepth: want KEY=LIST"},
		{"file also swept", "[global]\ncompare=iodepth=1,2\nsweep=iodepth=1,8\n" + job, nil, nil, ":2: compare=iodepth=1,2: iodepth is also swept"},
		{"flag sweep", job, nil, []string{"iodepth"}, `bad --sweep "iodepth": want KEY=LIST`},
		{"flag also swept", job, ptr("iodepth=1,2"), []string{"iodepth=1,8"}, `bad --compare "iodepth=1,2": iodepth is also swept`},
	} {
		cfg := &Config{Compare: tt.cmp, Sweeps: tt.sweeps, FailIfSlower: -1}
		err := applyRunOptions(cfg, parseJobText(t, tt.file))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

func ptr(s string) *string { return &s }
