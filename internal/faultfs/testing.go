package faultfs

import (
	"os"
	"testing"
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
	t.Cleanup(func() {
		if err := x.Unmount(); err != nil {
			t.Errorf("faultfs: %v", err)
		}
		if err := os.Remove(dir); err != nil {
			t.Errorf("faultfs: mount point left behind: %v", err)
		}
	})
	return x
}
