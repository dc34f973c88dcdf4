package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// checkGolden compares got with testdata/name, rewriting it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file:\n--- got ---\n%s", name, got)
	}
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name  string
		write func(*bytes.Buffer, *Result) error
	}{
		{"normal.txt", func(b *bytes.Buffer, r *Result) error { return WriteNormal(b, r) }},
		{"json.json", func(b *bytes.Buffer, r *Result) error { return WriteJSON(b, r, false) }},
		{"jsonplus.json", func(b *bytes.Buffer, r *Result) error { return WriteJSON(b, r, true) }},
		{"terse.txt", func(b *bytes.Buffer, r *Result) error { return WriteTerse(b, r) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b, synthResult()); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.name, b.Bytes())
		})
	}
}

func TestGoldenHeader(t *testing.T) {
	r := synthResult()
	clone := *r.Jobs[0].Job
	clone.SubjobNumber = 1
	jobs := []*jobfile.Job{r.Jobs[0].Job, &clone, r.Jobs[1].Job}
	var b bytes.Buffer
	if err := WriteHeader(&b, jobs, r.Version); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "header.txt", b.Bytes())
}

// TestHeaderNoIO checks that a job whose engine moves no data (cpuio) has
// no job line, in the run header (its clone's "..." stays, as in fio) and
// in --merge-blktrace-only's lines, which also leave clones out.
func TestHeaderNoIO(t *testing.T) {
	r := synthResult()
	cpu := *r.Jobs[1].Job
	cpu.Name, cpu.IOEngine = "burn", "cpuio"
	cpuClone := cpu
	cpuClone.SubjobNumber = 1
	clone := *r.Jobs[0].Job
	clone.SubjobNumber = 1
	jobs := []*jobfile.Job{r.Jobs[0].Job, &clone, &cpu, &cpuClone}
	var h bytes.Buffer
	if err := WriteHeader(&h, jobs, r.Version); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h.String(), "burn") || strings.Count(h.String(), "...\n") != 2 {
		t.Errorf("header with a cpuio job and clones:\n%s", h.String())
	}
	var l bytes.Buffer
	if err := WriteJobLines(&l, jobs); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(h.String(), "\n")
	if l.String() != first+"\n" {
		t.Errorf("job lines %q, want the header's first line %q alone", l.String(), first)
	}
}
