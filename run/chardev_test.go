package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/jobfile"
)

// TestCharDeviceTarget runs a write job and a read job on a character
// device, as fio runs them on /dev/null and /dev/zero: nothing is laid
// out, size= sizes the job, and the counts are fio's (256 I/Os of 4k for
// size=1m). The device is a node for the null and zero devices that the
// test makes in its own temp dir (root only), not the system's /dev.
// Without size= the job is refused, naming the device.
func TestCharDeviceTarget(t *testing.T) {
	dir := t.TempDir()
	null, zero := filepath.Join(dir, "null"), filepath.Join(dir, "zero")
	if err := unix.Mknod(null, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Skipf("cannot make a device node here: %v", err)
	}
	if err := unix.Mknod(zero, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 5))); err != nil {
		t.Skipf("cannot make a device node here: %v", err)
	}
	jobs := parseJobs(t, dir, "[global]\nbs=4k\nsize=1m\nioengine=psync\n[w]\nrw=write\nfilename="+null+"\n[r]\nrw=randread\nfilename="+zero+"\n")
	res, err := Run(context.Background(), jobs, Options{})
	if err != nil {
		if strings.Contains(err.Error(), "permission denied") {
			t.Skipf("device nodes do not open here (nodev mount?): %v", err)
		}
		t.Fatal(err)
	}
	for i, d := range []jobfile.Dir{jobfile.DirWrite, jobfile.DirRead} {
		jr := res.Jobs[i]
		if jr.Error != 0 {
			if jr.Error == int(unix.EACCES) {
				t.Skipf("device nodes do not open here (nodev mount?): %s", jr.ErrorText)
			}
			t.Fatalf("job %s: err=%d (%s)", jr.Name, jr.Error, jr.ErrorText)
		}
		if got := jr.Dirs[d]; got.TotalIOs != 256 || got.IOBytes != 1<<20 {
			t.Errorf("job %s: %d I/Os, %d bytes; want 256 and 1048576 as fio", jr.Name, got.TotalIOs, got.IOBytes)
		}
	}
	jobs = parseJobs(t, dir, "[w]\nbs=4k\nrw=write\nfilename="+null+"\n")
	if _, err := Run(context.Background(), jobs, Options{}); err == nil || !strings.Contains(err.Error(), "character device") {
		t.Errorf("a character device without size=: %v, want a refusal naming it", err)
	}
}

// TestIOUringCmdTargets runs ioengine=io_uring_cmd as fio 3.33 on targets
// that are not NVMe namespaces: a regular file (not even created) fails
// its job with fio's message, a null device (a node in the test's temp
// dir) with fio's namespace-id failure, and the other job of the run
// still runs.
func TestIOUringCmdTargets(t *testing.T) {
	dir := t.TempDir()
	if err := unix.Mknod(filepath.Join(dir, "null"), unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Skipf("cannot make a device node here: %v", err)
	}
	jobs := parseJobs(t, dir, fmt.Sprintf("[global]\nsize=64k\n[f]\nioengine=io_uring_cmd\ncmd_type=nvme\nfilename=%[1]s/f\n[n]\nioengine=io_uring_cmd\nfilename=%[1]s/null\n[p]\nioengine=psync\nfilename=%[1]s/p\n", dir))
	var warn strings.Builder
	res, err := Run(context.Background(), jobs, Options{Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	f, n, p := res.Jobs[0], res.Jobs[1], res.Jobs[2]
	if f.Error != int(unix.EINVAL) || !strings.Contains(warn.String(), "ioengine io_uring_cmd only works with nvme ns generic char devices (/dev/ngXnY)") {
		t.Errorf("regular file: err=%d, warnings %q", f.Error, warn.String())
	}
	if n.Error == int(unix.EACCES) {
		t.Skipf("device nodes do not open here (nodev mount?): %s", n.ErrorText)
	}
	if n.Error != int(unix.ENOTTY) || !strings.Contains(warn.String(), "failed to fetch namespace-id") {
		t.Errorf("/dev/null: err=%d, warnings %q", n.Error, warn.String())
	}
	if p.Error != 0 || p.Dirs[jobfile.DirRead].TotalIOs != 16 {
		t.Errorf("psync job: err=%d, %d reads", p.Error, p.Dirs[jobfile.DirRead].TotalIOs)
	}
	if _, err := os.Stat(filepath.Join(dir, "f")); !os.IsNotExist(err) {
		t.Errorf("the io_uring_cmd job's file was made: %v", err)
	}
}
