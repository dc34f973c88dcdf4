package cmd

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestResourceLimits runs the binary under prlimit(1) and heavy settings:
// each gives a correct run or a short error naming the job, never a crash
// (a Go panic or a signal) and never a hang.
func TestResourceLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the long end-to-end runs")
	}
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("prlimit not installed")
	}
	dir := scratchDir(t)
	tests := []struct {
		name   string
		limits []string // prlimit options
		args   []string
	}{
		// Registered buffers over a 64 KiB memlock limit (root has
		// CAP_IPC_LOCK, where the kernel does not charge them).
		{"memlock-fixedbufs", []string{"--memlock=65536"}, []string{"--name=m", "--ioengine=io_uring", "--fixedbufs", "--iodepth=1024",
			"--rw=randread", "--bs=4k", "--size=8m", "--filename=" + filepath.Join(dir, "m")}},
		// The same as an unprivileged user (setpriv), where the kernel
		// enforces the limit.
		{"memlock-fixedbufs-nobody", []string{"--memlock=65536", "--", "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"},
			[]string{"--name=m", "--ioengine=io_uring", "--fixedbufs", "--iodepth=1024",
				"--rw=randread", "--bs=4k", "--size=8m", "--filename=" + filepath.Join(dir, "nobody")}},
		// 1000 files under a 64-descriptor limit.
		{"nofile-nrfiles", []string{"--nofile=64"}, []string{"--name=n", "--ioengine=psync", "--nrfiles=1000", "--filesize=4k",
			"--size=4m", "--rw=read", "--directory=" + dir}},
		// 256 jobs on a 2-core machine.
		{"numjobs-256", nil, []string{"--name=j", "--ioengine=io_uring", "--numjobs=256", "--rw=randread", "--bs=4k",
			"--size=256k", "--filename=" + filepath.Join(dir, "j")}},
		// The deepest queue io_uring takes.
		{"iodepth-32768", nil, []string{"--name=d", "--ioengine=io_uring", "--iodepth=32768", "--rw=randread", "--bs=512",
			"--size=32m", "--filename=" + filepath.Join(dir, "d")}},
		// One 1 GiB block.
		{"bs-1g", nil, []string{"--name=b", "--ioengine=null", "--bs=1g", "--size=1g", "--rw=write"}},
	}
	for _, tt := range tests {
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		lim := append([]string{}, tt.limits...)
		if !slices.Contains(lim, "--") {
			lim = append(lim, "--")
		}
		if slices.Contains(lim, "setpriv") {
			if _, err := exec.LookPath("setpriv"); err != nil || os.Geteuid() != 0 {
				t.Logf("%s: needs root and setpriv; skipped", tt.name)
				cancel()
				continue
			}
			// The unprivileged run needs to reach the binary and the file.
			os.Chmod(dir, 0o777)
			os.Chmod(filepath.Dir(gofioBinary(t)), 0o755)
		}
		args := append(append(lim, gofioBinary(t), "--output-format=terse"), tt.args...)
		cmd := exec.CommandContext(ctx, "prlimit", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		timedOut := ctx.Err() != nil
		cancel()
		if timedOut {
			t.Errorf("%s: still running after 120 s", tt.name)
			continue
		}
		text := string(out)
		var ee *exec.ExitError
		code := 0
		if errors.As(err, &ee) {
			code = ee.ExitCode()
			if !ee.Exited() {
				t.Errorf("%s: killed by a signal: %v\n%s", tt.name, err, text)
				continue
			}
		} else if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if strings.Contains(text, "panic:") || strings.Contains(text, "goroutine ") || strings.Contains(text, "fatal error:") {
			t.Errorf("%s: the Go runtime crashed:\n%s", tt.name, text)
			continue
		}
		var errLines []string
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, "gofio:") {
				errLines = append(errLines, l)
			}
		}
		switch {
		case code == 0 && len(errLines) == 0:
			t.Logf("%s: ran", tt.name)
		case len(errLines) >= 1 && len(errLines) <= 2:
			t.Logf("%s: exit %d: %s", tt.name, code, strings.Join(errLines, " | "))
		default:
			t.Errorf("%s: exit %d with %d error lines; want a run or a short error:\n%s", tt.name, code, len(errLines), text)
		}
	}
}
