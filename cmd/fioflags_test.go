package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/iolog"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/run"
)

// TestFioFlags checks fio's command-line flags that gofio takes:
// what each accepts and refuses, in-process.
func TestFioFlags(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	reader := write("r.fio", "[j]\nioengine=null\nsize=64k\n")
	writer := write("w.fio", "[j]\nioengine=null\nsize=64k\nrw=randwrite\n")
	trimmer := write("t.fio", "[j]\nioengine=null\nsize=64k\nrw=randtrim\n")
	unset := write("u.fio", "[j]\nioengine=null\nsize=64k\nbs=${GOFIO_UNSET_FOR_TEST}4k\n")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"minimal", []string{"--minimal", reader}, ExitOK, "3;gofio", ""},
		{"terse version 5", []string{"--minimal", "--terse-version=5", reader}, ExitOK, "5;gofio", ""},
		{"terse version 2", []string{"--minimal", "--terse-version=2", reader}, ExitOK, "2;j;0;0;", ""},
		{"bad terse version", []string{"--minimal", "--terse-version=6", reader}, ExitBadInput, "", "bad terse version"},
		{"append-terse", []string{"--append-terse", "--output-format=json", reader}, ExitOK, "\"fio version\"", ""},
		{"readonly reader", []string{"--readonly", "--parse-only", reader}, ExitOK, "", ""},
		{"readonly writer", []string{"--readonly", "--parse-only", writer}, ExitBadInput, "", "job <j> has write or trim bit set, but gofio is in read-only mode"},
		{"readonly trimmer", []string{"--readonly", trimmer}, ExitBadInput, "", "job <j> has write or trim bit set, but gofio is in read-only mode"},
		{"warnings", []string{"--parse-only", unset}, ExitOK, "", "is not set"},
		{"warnings-fatal", []string{"--warnings-fatal", "--parse-only", unset}, ExitBadInput, "", "${GOFIO_UNSET_FOR_TEST}: is not set (--warnings-fatal)"},
		{"max-jobs", []string{"--max-jobs=8", "--parse-only", reader}, ExitOK, "", ""},
		{"alloc-size", []string{"--alloc-size=65536", "--parse-only", reader}, ExitOK, "", ""},
		{"aux-path", []string{"--aux-path=" + dir, "--parse-only", reader}, ExitOK, "", ""},
		{"debug list", []string{"--debug=?"}, ExitOK, "steadystate", ""},
		{"debug parse", []string{"--debug=parse", "--parse-only", reader}, ExitOK, "", "parse: job j: size=64k"},
		{"debug bad", []string{"--debug=bogus", reader}, ExitBadInput, "", "unknown category"},
		{"eta-newline bad", []string{"--eta-newline=0", reader}, ExitBadInput, "", "too short"},
		{"status-interval bad", []string{"--status-interval=x", reader}, ExitBadInput, "", "status-interval"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCmd(t, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.stdout) || !strings.Contains(errs, tt.stderr) {
				t.Errorf("gofio %v = %d\nstdout: %q\nstderr: %q\nwant %d, stdout ~ %q, stderr ~ %q",
					tt.args, code, out, errs, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

// TestStatusIntervalAndBandwidthLog runs the binary with --status-interval
// (a full JSON report per interval, cumulative, then the final one, as fio
// prints them) and --bandwidth-log (fio's three agg-*_bw.log files in the
// working directory).
func TestStatusIntervalAndBandwidthLog(t *testing.T) {
	dir := t.TempDir()
	r := execGofio(t, dir, "--status-interval=200ms", "--bandwidth-log", "--output-format=json",
		"--name=s", "--ioengine=null", "--size=1g", "--time_based", "--runtime=900ms")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var ios []float64
	for dec.More() {
		var v struct {
			Jobs []struct {
				Read struct {
					TotalIOs float64 `json:"total_ios"`
				} `json:"read"`
			} `json:"jobs"`
		}
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("report %d: %v", len(ios), err)
		}
		ios = append(ios, v.Jobs[0].Read.TotalIOs)
	}
	if len(ios) < 3 {
		t.Fatalf("%d JSON reports, want the interval ones and the final", len(ios))
	}
	for i := 1; i < len(ios); i++ {
		if ios[i] < ios[i-1] {
			t.Errorf("total_ios went down from report %d to %d: %v (reports are cumulative)", i-1, i, ios)
		}
	}
	for _, name := range []string{"agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "agg-read_bw.log" && (len(b) == 0 || strings.Count(strings.SplitN(string(b), "\n", 2)[0], ",") != 4) {
			t.Errorf("%s: %q, want lines of msec, KiB/s, ddir, 0, 0", name, b)
		}
	}
}

// TestTerseVersionsAgainstFio checks that every terse version has as many
// fields as fio 3.33's for the same job.
func TestTerseVersionsAgainstFio(t *testing.T) {
	fio, err := exec.LookPath("fio")
	if err != nil {
		t.Skip("fio is not installed: cannot compare terse versions with fio's")
	}
	dir := t.TempDir()
	args := []string{"--minimal", "--name=t", "--ioengine=null", "--size=256k", "--rw=randrw", "--description=two words"}
	for _, v := range []string{"2", "3", "4", "5"} {
		cmd := exec.Command(fio, append(args, "--terse-version="+v)...)
		cmd.Dir = dir
		want, err := cmd.Output()
		if err != nil {
			t.Fatalf("fio --terse-version=%s: %v", v, err)
		}
		r := execGofio(t, dir, append(args, "--terse-version="+v)...)
		if r.code != 0 {
			t.Fatalf("gofio --terse-version=%s: exit %d: %s", v, r.code, r.stderr)
		}
		if g, f := strings.Count(r.stdout, ";"), strings.Count(string(want), ";"); g != f {
			t.Errorf("terse version %s: %d fields, fio %d\ngofio: %s\nfio:   %s", v, g+1, f+1, r.stdout, want)
		}
		if g, f := strings.Count(r.stdout, "\n"), strings.Count(string(want), "\n"); g != f {
			t.Errorf("terse version %s: %d lines, fio %d", v, g, f)
		}
	}
}

// TestMergeBlktraceOnly checks --merge-blktrace-only: the job's traces
// are merged into its merge_blktrace_file, its line is printed as fio
// prints it, and no I/O runs (the run core is never called, and no data
// file appears).
func TestMergeBlktraceOnly(t *testing.T) {
	dir := t.TempDir()
	dev := uint32(7<<20 | 9)
	a := iolog.EncodeTrace(iolog.Read, 1000, 0, 4096, dev)
	b := append(iolog.EncodeTrace(iolog.Write, 500, 8, 4096, dev), iolog.EncodeTrace(iolog.Read, 1500, 16, 4096, dev)...)
	for name, data := range map[string][]byte{"a.bin": a, "b.bin": b} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	merged := filepath.Join(dir, "m.bin")
	ran := false
	core := func(context.Context, []*jobfile.Job, run.Options) (*report.Result, error) {
		ran = true
		return &report.Result{}, nil
	}
	code, out, errs := runCmdWith(t, core, "--merge-blktrace-only", "--name=m", "--read_iolog="+filepath.Join(dir, "a.bin")+":"+filepath.Join(dir, "b.bin"),
		"--merge_blktrace_file="+merged, "--replay_redirect="+filepath.Join(dir, "data"))
	if code != ExitOK || ran {
		t.Fatalf("exit %d, ran %v: %s", code, ran, errs)
	}
	// fio prints the job's line and nothing else (equivalence's
	// TestBlktraceMergeOnly compares the lines with fio 3.33's).
	if !strings.HasPrefix(out, "m: (g=0): rw=read, ") || strings.Count(out, "\n") != 1 {
		t.Errorf("stdout %q, want the job's line alone", out)
	}
	got, err := os.ReadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	// b's write at 500, a's read at 1000, b's read at 1500.
	want := append(append(iolog.EncodeTrace(iolog.Write, 500, 8, 4096, dev), a...), iolog.EncodeTrace(iolog.Read, 1500, 16, 4096, dev)...)
	if !bytes.Equal(got, want) {
		t.Errorf("merged trace %x\nwant %x", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); !os.IsNotExist(err) {
		t.Errorf("the merge-only run made a data file (%v)", err)
	}
}
