package placement

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

// TestCgroupMount picks the mount fio's find_cgroup_mnt picks: the first
// v1 mount with blkio or cgroup2 mount.
func TestCgroupMount(t *testing.T) {
	v1 := "tmpfs /sys/fs/cgroup tmpfs rw 0 0\ncgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\ncgroup /sys/fs/cgroup/blkio cgroup rw,blkio 0 0\ncgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n"
	if d, v2, ok := CgroupMount(v1); !ok || v2 || d != "/sys/fs/cgroup/blkio" {
		t.Errorf("v1: %s %v %v", d, v2, ok)
	}
	if d, v2, ok := CgroupMount("cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n"); !ok || !v2 || d != "/sys/fs/cgroup" {
		t.Errorf("v2: %s %v %v", d, v2, ok)
	}
	if _, _, ok := CgroupMount("proc /proc proc rw 0 0\n"); ok {
		t.Error("no cgroup mount found one")
	}
}

// TestJoinCgroupFake follows fio's cgroup_setup on a directory standing
// in for the mount: on v1 the cgroup is made, cgroup_weight goes to
// blkio.weight and the thread's id to tasks, and leaving removes it; on
// cgroup2 a weight is refused with fio's message.
func TestJoinCgroupFake(t *testing.T) {
	mnt := t.TempDir()
	j := &jobfile.Job{Name: "job", Cgroup: "cg", CgroupWeight: 200}
	cg, err := JoinCgroup(j, "cgroup "+mnt+" cgroup rw,blkio 0 0\n")
	if err != nil {
		t.Fatal(err)
	}
	w, _ := os.ReadFile(filepath.Join(mnt, "cg", "blkio.weight"))
	tasks, _ := os.ReadFile(filepath.Join(mnt, "cg", "tasks"))
	if string(w) != "200" || len(tasks) == 0 {
		t.Errorf("blkio.weight %q, tasks %q", w, tasks)
	}
	// A directory holding files cannot go: leave keeps it, as an rmdir
	// of a cgroup another job uses fails.
	cg.Leave()
	if root, _ := os.ReadFile(filepath.Join(mnt, "tasks")); string(root) != string(tasks) {
		t.Errorf("leave wrote %q to the root's tasks, want %q", root, tasks)
	}
	_, err = JoinCgroup(j, "cgroup2 "+mnt+" cgroup2 rw 0 0\n")
	if err == nil || !strings.Contains(err.Error(), "fio: cgroup weit doesn't work with cgroup2") {
		t.Errorf("cgroup2 with a weight: %v", err)
	}
}
