package run

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/jobfile"
)

// TestCreds runs uid= and gid= as fio 3.33 does: a job as nobody reads a
// file others may read, and fails with EACCES (err=13) writing one only
// root may write; the credentials change on the job's thread alone, so
// the rest of the process is still root afterwards.
func TestCreds(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("uid= and gid= need root")
	}
	dir := t.TempDir()
	// nobody must reach the directory: t.TempDir's are root's alone.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(rw jobfile.RW) (errno int, ios uint64) {
		j := testJob(dir, "cred", rw, "psync")
		j.Size = 256 << 10
		j.UID, j.UIDSet, j.GID, j.GIDSet = 65534, true, 65534, true
		res, err := Run(context.Background(), []*jobfile.Job{j}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := res.Jobs[0]
		return r.Error, r.Dirs[0].TotalIOs + r.Dirs[1].TotalIOs
	}
	// The first run lays the file out, as root, 0644.
	if errno, ios := run(jobfile.RWRead); errno != 0 || ios != 64 {
		t.Errorf("read as nobody: err=%d, %d I/Os; want 0 and 64", errno, ios)
	}
	if errno, ios := run(jobfile.RWWrite); errno != int(unix.EACCES) || ios != 0 {
		t.Errorf("write as nobody: err=%d, %d I/Os; want 13 and none", errno, ios)
	}
	st, err := os.Stat(filepath.Join(dir, "cred.dat"))
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("cred.dat: %v %v", st, err)
	}
	// Every thread the process still runs on is root's: check from many.
	for range 2 * runtime.GOMAXPROCS(0) {
		ch := make(chan int)
		go func() { runtime.LockOSThread(); defer runtime.UnlockOSThread(); ch <- unix.Geteuid() }()
		if u := <-ch; u != 0 {
			t.Fatalf("a thread of the process has euid %d after the jobs", u)
		}
	}
}
