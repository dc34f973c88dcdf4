package run

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/placement"
	"github.com/gofio/gofio/jobfile"
	"golang.org/x/sys/unix"
)

// testCgroup returns the name of a cgroup for test t and its directory
// under this machine's blkio (or cgroup2) mount, removed when the test
// ends; it skips the test unless root on a machine with such a mount.
func testCgroup(t *testing.T) (name, dir string) {
	t.Helper()
	mounts, err := os.ReadFile("/proc/mounts")
	if err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and /proc/mounts")
	}
	mnt, _, ok := placement.CgroupMount(string(mounts))
	if !ok {
		t.Skip("no blkio or cgroup2 mount")
	}
	name = "gofio-test-" + strings.ReplaceAll(t.Name(), "/", "-")
	dir = filepath.Join(mnt, name)
	t.Cleanup(func() { os.Remove(dir) })
	return name, dir
}

// TestCgroupJob runs cgroup= on this machine's blkio (or cgroup2) mount
// as fio does: the job's thread runs in <mount>/<cgroup>, made for it and
// removed after it, or kept with cgroup_nodelete=1.
func TestCgroupJob(t *testing.T) {
	name, dir := testCgroup(t)
	for _, keep := range []bool{false, true} {
		j := testJob(t.TempDir(), "cg", jobfile.RWRead, "psync")
		j.Size, j.Cgroup, j.CgroupNodelete = 256<<10, name, keep
		res, err := Run(context.Background(), []*jobfile.Job{j}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r := res.Jobs[0]; r.Error != 0 || r.Dirs[0].TotalIOs != 64 {
			t.Fatalf("cgroup=%s nodelete=%v: err=%d %s, %d reads", name, keep, r.Error, r.ErrorText, r.Dirs[0].TotalIOs)
		}
		if _, err := os.Stat(dir); (err == nil) != keep {
			t.Errorf("cgroup_nodelete=%v: %s after the job: %v", keep, dir, err)
		}
	}
}

// TestCgroupAfterCreds checks fio's order of thread_main: gid= and uid=
// first, then cgroup=, so that nobody's mkdir of the cgroup fails the job
// with EACCES at "cgroup mkdir" (gofio made it as root, then failed the
// job on the file and left the directory behind).
func TestCgroupAfterCreds(t *testing.T) {
	name, dir := testCgroup(t)
	j := testJob(t.TempDir(), "cg", jobfile.RWRead, "psync")
	j.Cgroup = name
	j.UID, j.UIDSet, j.GID, j.GIDSet = 65534, true, 65534, true
	res, err := Run(context.Background(), []*jobfile.Job{j}, Options{Warn: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Jobs[0]; r.Error != int(unix.EACCES) || !strings.Contains(r.ErrorText, "func=cgroup mkdir") {
		t.Errorf("cgroup= as nobody: err=%d %s; want EACCES from cgroup mkdir", r.Error, r.ErrorText)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("%s is left after the job", dir)
	}
}
