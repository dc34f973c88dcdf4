package run

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/jobfile"
)

// TestMemKinds runs a job on each mem= kind, as fio's allocate_io_mem:
// malloc, shm (a SysV segment), mmapshared, and mmap:PATH (a file the
// buffers map, removed after the run unless it existed before); the huge
// kinds fail the job with ENOMEM from mmap or shmget, as fio's, where
// the machine has no huge pages. Without CAP_IPC_LOCK (and outside
// vm.hugetlb_shm_group) shmget(SHM_HUGETLB) may fail first with EPERM,
// as it does for fio: the kernel lets such a user lock 4 MiB of huge
// pages only within RLIMIT_MEMLOCK.
func TestMemKinds(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep.mm")
	if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ mem, file string }{{"malloc", ""}, {"shm", ""}, {"mmapshared", ""}, {"mmap", filepath.Join(dir, "buf.mm")}, {"mmap", keep}} {
		j := testJob(dir, "mem", jobfile.RWRead, "psync")
		j.Mem, j.MemFile = c.mem, c.file
		r := mustRun(t, []*jobfile.Job{j}, Options{}).Jobs[0]
		if r.Error != 0 || r.Dirs[0].TotalIOs != 16 {
			t.Errorf("mem=%s:%s: err=%d, %d reads", c.mem, c.file, r.Error, r.Dirs[0].TotalIOs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "buf.mm")); !os.IsNotExist(err) {
		t.Errorf("mem=mmap:buf.mm left its file (%v)", err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("mem=mmap:keep.mm removed the file that existed before: %v", err)
	}
	meminfo, _ := os.ReadFile("/proc/meminfo")
	if !strings.Contains(string(meminfo), "HugePages_Free:        0\n") {
		t.Skip("this machine has huge pages: the huge kinds would run")
	}
	for mem, fn := range map[string]string{"mmaphuge": "mmap", "shmhuge": "shmget"} {
		j := testJob(dir, "huge", jobfile.RWRead, "psync")
		j.Mem, j.HugepageSize = mem, 4<<20
		res, err := Run(context.Background(), []*jobfile.Job{j}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := map[unix.Errno]string{unix.ENOMEM: "Cannot allocate memory"}
		if fn == "shmget" && !effectiveCap(t, capIPCLock) {
			want[unix.EPERM] = "Operation not permitted"
		}
		r := res.Jobs[0]
		text, ok := want[unix.Errno(r.Error)]
		ok = ok && r.ErrorText == "func="+fn+", error="+text
		if !ok || r.Dirs[0].TotalIOs != 0 {
			t.Errorf("mem=%s: err=%d %q, %d reads; want %v from %s, no I/O", mem, r.Error, r.ErrorText, r.Dirs[0].TotalIOs, want, fn)
		}
	}
}

// capIPCLock is CAP_IPC_LOCK's bit number (linux/capability.h).
const capIPCLock = 14

// effectiveCap reports whether the test process holds capability bit cap
// in its effective set (/proc/self/status CapEff).
func effectiveCap(t *testing.T, cap uint) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if hex, ok := strings.CutPrefix(line, "CapEff:"); ok {
			v, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return v&(1<<cap) != 0
		}
	}
	t.Fatal("/proc/self/status has no CapEff line")
	return false
}
