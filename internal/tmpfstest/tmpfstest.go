// Package tmpfstest gives tests a small scratch filesystem: a tmpfs of a
// given size mounted under the test's temporary directory and unmounted
// when the test ends, for jobs that must run out of space (fill_device).
// Tests that need it skip cleanly when not root or when the mount fails.
package tmpfstest

import (
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/mounttest"
)

// Mount returns the mount point of a fresh tmpfs of sizeMiB MiB, or skips
// the test saying why it cannot make one.
func Mount(t testing.TB, sizeMiB int) string {
	t.Helper()
	dir := mounttest.Dir(t, "tmpfs", "a tmpfs")
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.Itoa(sizeMiB)+"m"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil {
			_ = unix.Unmount(dir, unix.MNT_DETACH)
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}
