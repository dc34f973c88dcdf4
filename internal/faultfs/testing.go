package faultfs

import (
	"os"
	"testing"
	"time"
)

// MountT mounts a filesystem in a new temporary directory for test t and
// unmounts it when t ends, however it ends (t.Cleanup runs after a
// failure or a panic too). It skips t, saying why, only when FUSE cannot
// work here (Available); any other mount failure fails t.
func MountT(t testing.TB, o Options) *FS {
	t.Helper()
	if err := Available(); err != nil {
		t.Skipf("FUSE unavailable: %v", err)
	}
	dir, err := os.MkdirTemp("", "faultfs-")
	if err != nil {
		t.Fatal(err)
	}
	x, err := Mount(dir, o)
	if err != nil {
		os.Remove(dir)
		t.Fatal(err)
	}
	// A test binary that dies (its -timeout panic) with a request of its
	// own in flight would leave a process no signal can end: the server
	// that must answer is the dying process itself. Abort the connection
	// shortly before the deadline, so stuck requests fail instead.
	var guard *time.Timer
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, ok := d.Deadline(); ok {
			guard = time.AfterFunc(time.Until(end)-10*time.Second, func() {
				t.Errorf("faultfs: aborting the FUSE connection of %s before the test deadline", dir)
				x.Release()
				x.abort()
			})
		}
	}
	t.Cleanup(func() {
		if guard != nil {
			guard.Stop()
		}
		if err := x.Unmount(); err != nil {
			t.Errorf("faultfs: %v", err)
		}
		if err := os.Remove(dir); err != nil {
			t.Errorf("faultfs: mount point left behind: %v", err)
		}
	})
	return x
}
