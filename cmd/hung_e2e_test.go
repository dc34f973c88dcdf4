package cmd

import (
	"bytes"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofio/gofio/internal/faultfs"
)

// lockedBuffer is a bytes.Buffer safe to read while a process writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestIOTimeoutFlag runs the binary with --io-timeout=1s on a FUSE file
// whose reads stall after five: within two seconds it prints the report
// of what completed with err=110, names the stalled read on stderr and
// exits 1. The process can be reaped only once the stall is released: its
// stuck thread sleeps in the FUSE request, as docs/reliability.md says.
func TestIOTimeoutFlag(t *testing.T) {
	x := faultfs.MountT(t, faultfs.Options{Size: 1 << 20})
	x.Stall(faultfs.Read, 5)
	cmd := exec.Command(gofioBinary(t), "--io-timeout=1s", "--name=hang", "--ioengine=psync", "--rw=read", "--bs=4k",
		"--size=1m", "--filename="+x.Path())
	cmd.Dir = t.TempDir()
	var out, errb lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for !strings.Contains(out.String(), "Run status group 0") && time.Since(t0) < 10*time.Second {
		time.Sleep(10 * time.Millisecond)
	}
	took := time.Since(t0)
	x.Release()
	var err error
	select {
	case err = <-exited:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("gofio did not exit once the stall was released\nstdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
	// The stall never ends by itself, so a report before the 10 s the
	// loop above waits is io_timeout's doing; how soon after the 1 s
	// depends on the scheduler of a loaded CI machine, not on gofio.
	if took >= 10*time.Second {
		t.Errorf("no report after %v; want it once io_timeout=1s passed", took)
	}
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Errorf("exit: %v; want status 1", err)
	}
	if !strings.Contains(out.String(), "err=110") || !strings.Contains(out.String(), "io=20.0KiB") {
		t.Errorf("report:\n%s\nwant err=110 and the 20 KiB read before the stall", out.String())
	}
	if !strings.Contains(errb.String(), "read of 4096 bytes at offset 20480 of "+x.Path()+" outstanding for") {
		t.Errorf("stderr:\n%s\nwant the stalled read named", errb.String())
	}
}
