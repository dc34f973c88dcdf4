package mounttest

import (
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// Tmpfs returns the mount point of a fresh tmpfs of sizeMiB MiB, for
// jobs that must run out of space (fill_device), unmounted when the test
// ends, or skips the test saying why it cannot make one.
func Tmpfs(t testing.TB, sizeMiB int) string {
	t.Helper()
	dir := mountDir(t, "tmpfs", "a tmpfs")
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
