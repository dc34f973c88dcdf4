package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/jobfile"
)

// TestMemKinds runs a job on each mem= kind, as fio's allocate_io_mem:
// malloc, shm (a SysV segment), mmapshared, and mmap:PATH (a file the
// buffers map, removed after the run unless it existed before); the huge
// kinds fail the job with ENOMEM from mmap or shmget, as fio's, where
// the machine has no huge pages.
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
		if r := res.Jobs[0]; r.Error != int(unix.ENOMEM) || r.ErrorText != "func="+fn+", error=Cannot allocate memory" || r.Dirs[0].TotalIOs != 0 {
			t.Errorf("mem=%s: err=%d %q, %d reads; want ENOMEM from %s, no I/O", mem, r.Error, r.ErrorText, r.Dirs[0].TotalIOs, fn)
		}
	}
}
