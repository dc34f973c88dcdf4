package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines/iouring"
	"github.com/gofio/gofio/internal/uring"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/run"
)

// TestIOUringUnavailable makes io_uring_setup fail through a stand-in
// uring.Kernel handed to the io_uring engine, as a host with kernel.io_uring_disabled=2 or a seccomp profile
// would, and checks the whole command: exit 1, one line on stderr that
// names the cause, no stack trace, and on stdout pure JSON in which the job
// carries the error, as fio reports a job whose engine failed to start.
func TestIOUringUnavailable(t *testing.T) {
	tests := []struct {
		name  string
		errno unix.Errno
		proc  map[string]string // /proc files the diagnosis reads; nil reads the real ones
		want  string
	}{
		// kernel.io_uring_disabled=2, or =1 without the group.
		{"EPERM", unix.EPERM, nil, "kernel.io_uring_disabled"},
		// A seccomp filter or a kernel without io_uring.
		{"ENOSYS", unix.ENOSYS, nil, "seccomp"},
		// A container runtime's default profile (Docker 25+): EPERM with a
		// seccomp filter active and the sysctl open.
		{"seccomp", unix.EPERM, map[string]string{"/proc/sys/kernel/io_uring_disabled": "0\n", "/proc/self/status": "Seccomp:\t2\n"},
			"io_uring is blocked by seccomp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refused := uring.Kernel{Setup: func(uint32, *uring.Params) (int, error) { return -1, tt.errno }}
			if tt.proc != nil {
				refused.ReadFile = func(name string) ([]byte, error) {
					if v, ok := tt.proc[name]; ok {
						return []byte(v), nil
					}
					return nil, os.ErrNotExist
				}
			}
			core := func(ctx context.Context, jobs []*jobfile.Job, opts run.Options) (*report.Result, error) {
				opts.Engines = run.DefaultEngines()
				opts.Engines["io_uring"] = iouring.OpenOn(refused)
				return run.Run(ctx, jobs, opts)
			}
			file := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(file, make([]byte, 1<<20), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runCmdWith(t, core, "--name=u", "--ioengine=io_uring", "--rw=randread",
				"--size=1m", "--filename="+file, "--output-format=json")
			if code != ExitBadInput {
				t.Errorf("exit %d, want %d", code, ExitBadInput)
			}
			if !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "; fix: ") {
				t.Errorf("stderr does not name %q:\n%s", tt.want, stderr)
			}
			if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines != 1 {
				t.Errorf("stderr has %d lines, want one:\n%s", lines, stderr)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stack trace on stderr:\n%s", stderr)
			}
			var doc struct {
				Jobs []struct {
					Error int `json:"error"`
				} `json:"jobs"`
			}
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatalf("stdout is not pure JSON: %v\n%s", err, stdout)
			}
			if len(doc.Jobs) != 1 || doc.Jobs[0].Error != int(tt.errno) {
				t.Errorf("jobs = %+v, want one job with error %d", doc.Jobs, int(tt.errno))
			}
		})
	}
}
