package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines/iouring"
	"github.com/gofio/gofio/internal/uring"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/run"
)

func TestParseStartAt(t *testing.T) {
	now := time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)
	tests := []struct {
		v, late string
		want    time.Time
		err     string
	}{
		{"", "error", time.Time{}, ""},
		{"+30s", "error", now.Add(30 * time.Second), ""},
		{"+1m30s", "error", now.Add(90 * time.Second), ""},
		{"2026-11-30T17:05:00Z", "error", now.Add(5 * time.Minute), ""},
		{"2026-11-30T18:05:00+01:00", "error", now.Add(5 * time.Minute), ""},
		{"2026-11-30T16:59:00Z", "error", time.Time{}, "1m0s in the past"},
		{"2026-11-30T16:59:00Z", "run", now.Add(-time.Minute), ""},
		{"+0s", "error", time.Time{}, "in the past"},
		{"+-5s", "error", time.Time{}, "want an RFC 3339 time"},
		{"17:05", "error", time.Time{}, "want an RFC 3339 time"},
	}
	for _, tt := range tests {
		got, err := parseStartAt(tt.v, tt.late, now)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err %v, want %q", tt.v, err, tt.err)
			}
			continue
		}
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("%q: %v, %v; want %v", tt.v, got, err, tt.want)
		}
	}
}

// TestFleetFlagsBadInput checks bad fleet flags exit 1 before anything is
// laid out.
func TestFleetFlagsBadInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	job := []string{"--name=j", "--ioengine=psync", "--rw=read", "--size=64k", "--filename=" + file}
	tests := []struct {
		flags []string
		want  string
	}{
		{[]string{"--start-at=2000-01-01T00:00:00Z"}, "in the past"},
		{[]string{"--start-at=tomorrow"}, "want an RFC 3339 time"},
		{[]string{"--start-at=+1s", "--start-at-late=maybe"}, "invalid --start-at-late"},
		{[]string{"--run-id=a b"}, "--run-id"},
		{[]string{"--fallback-engine=io_uring"}, "--fallback-engine=io_uring"},
		{[]string{"--fallback-engine=nosuch"}, "not an engine"},
		{[]string{"--start-at=+1s", "--compare"}, "apply to a plain run"},
	}
	for _, tt := range tests {
		code, out, errs := runCmd(t, append(tt.flags, job...)...)
		if code != ExitBadInput || !strings.Contains(errs, tt.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 1 naming %q", tt.flags, code, errs, out, tt.want)
		}
		if _, err := os.Stat(file); err == nil {
			t.Fatalf("%v: the file was laid out", tt.flags)
		}
	}
}

// TestStartAtRun runs a job with --start-at=+2s and a run id, and checks
// the JSON: run id, host name and a first I/O at or after the start. The
// start leaves room for the layout and engine setup on a loaded CI machine
// (+300ms was already past there).
func TestStartAtRun(t *testing.T) {
	const lead = 2 * time.Second
	file := filepath.Join(t.TempDir(), "f")
	before := time.Now()
	code, out, errs := runCmd(t, "--start-at=+"+lead.String(), "--run-id=fleet-1", "--output-format=json",
		"--name=j", "--ioengine=psync", "--rw=read", "--size=64k", "--filename="+file)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Jobs []struct {
			Gofio struct {
				FirstIONs int64 `json:"first_io_ns"`
			} `json:"gofio"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	first := time.Unix(0, doc.Jobs[0].Gofio.FirstIONs)
	if first.Before(before.Add(lead)) {
		t.Errorf("first I/O %v is before the start time %v", first, before.Add(lead))
	}
}

// TestFallbackEngine makes io_uring unavailable through the setup seam and
// runs an io_uring job with --fallback-engine=psync: it runs, stderr says
// so in one line, and the report carries the note.
func TestFallbackEngine(t *testing.T) {
	refused := uring.Kernel{Setup: func(uint32, *uring.Params) (int, error) { return -1, unix.ENOSYS }}
	cmd := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		st := &State{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Uring: refused,
			Getenv: func(string) (string, bool) { return "", false },
			RunCore: func(ctx context.Context, jobs []*jobfile.Job, opts run.Options) (*report.Result, error) {
				opts.Engines = run.DefaultEngines()
				opts.Engines["io_uring"] = iouring.OpenOn(refused)
				return run.Run(ctx, jobs, opts)
			}}
		code := st.command(context.Background(), append([]string{"gofio"}, args...))
		return code, out.String(), errb.String()
	}
	file := filepath.Join(t.TempDir(), "f")
	code, out, errs := cmd("--fallback-engine=psync", "--output-format=json",
		"--name=u", "--ioengine=io_uring", "--rw=randread", "--size=64k", "--filename="+file)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "io_uring is unavailable here") || !strings.Contains(errs, "on psync (--fallback-engine)") ||
		strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("stderr: %q", errs)
	}
	var doc struct {
		Jobs []struct {
			Read struct {
				TotalIOs int `json:"total_ios"`
			} `json:"read"`
			Gofio struct {
				Notes []string `json:"engine_notes"`
			} `json:"gofio"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(doc.Jobs) != 1 || doc.Jobs[0].Read.TotalIOs != 16 || len(doc.Jobs[0].Gofio.Notes) == 0 ||
		!strings.HasPrefix(doc.Jobs[0].Gofio.Notes[0], "ran on psync, not io_uring (--fallback-engine)") {
		t.Errorf("jobs = %+v", doc.Jobs)
	}
	// Without the flag the job fails as before, with the fix in one line.
	code, _, errs = cmd("--output-format=json",
		"--name=u", "--ioengine=io_uring", "--rw=randread", "--size=64k", "--filename="+file)
	if code != ExitBadInput || !strings.Contains(errs, "fix:") {
		t.Errorf("without --fallback-engine: exit %d, %q", code, errs)
	}
}

// TestMergeCommand runs two "hosts" in-process, merges their JSON with
// gofio merge and checks the refusals leave no output behind.
func TestMergeCommand(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, host := range []string{"node-a", "node-b"} {
		code, out, errs := runCmd(t, "--output-format=json", "--run-id=m1", "--hostname="+host,
			"--name=j", "--ioengine=psync", "--rw=randread", "--size=64k", "--filename="+filepath.Join(dir, host))
		if code != ExitOK {
			t.Fatalf("run %d: exit %d: %s", i, code, errs)
		}
		f := filepath.Join(dir, host+".json")
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	all := filepath.Join(dir, "all.json")
	code, out, errs := runCmd(t, append([]string{"merge", "-o", all}, files...)...)
	if code != ExitOK {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "<node-a>") || !strings.Contains(out, "All clients: (groupid=0, jobs=2)") {
		t.Errorf("normal text:\n%s", out)
	}
	var doc struct {
		Stats []struct {
			Name string `json:"jobname"`
			Host string `json:"hostname"`
			Read struct {
				TotalIOs int `json:"total_ios"`
			} `json:"read"`
		} `json:"client_stats"`
	}
	b, err := os.ReadFile(all)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Stats) != 3 || doc.Stats[2].Name != "All clients" || doc.Stats[2].Read.TotalIOs != 32 || doc.Stats[1].Host != "node-b" {
		t.Errorf("client_stats = %+v", doc.Stats)
	}

	// Another run id: refused, naming the file, nothing written.
	code, out2, errs := runCmd(t, "--output-format=json", "--run-id=other", "--hostname=node-c",
		"--name=j", "--ioengine=psync", "--rw=randread", "--size=64k", "--filename="+filepath.Join(dir, "node-c"))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	odd := filepath.Join(dir, "node-c.json")
	if err := os.WriteFile(odd, []byte(out2), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := filepath.Join(dir, "refused.json")
	code, out, errs = runCmd(t, "merge", "-o", refused, files[0], odd)
	if code != ExitBadInput || !strings.Contains(errs, odd+`: run id "other"`) || out != "" {
		t.Errorf("mixed run ids: exit %d, stderr %q, stdout %q", code, errs, out)
	}
	if _, err := os.Stat(refused); err == nil {
		t.Error("a refused merge wrote its output")
	}
	if code, _, errs = runCmd(t, "merge", "--force", "-o", refused, files[0], odd); code != ExitOK {
		t.Errorf("--force: exit %d: %s", code, errs)
	}
}
