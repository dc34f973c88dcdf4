// Package mounttest gives tests small scratch filesystems, mounted under
// the test's temporary directory and gone when the test ends: a tmpfs of
// a given size (Tmpfs), for jobs that must run out of space, and an ext4
// image on a loop device (Ext4), for what tmpfs does not take. Both need
// root: a test skips, saying why, when it is not root or the mount fails.
package mounttest

import (
	"os"
	"path/filepath"
	"testing"
)

// mountDir returns a fresh directory, named name, under the test's
// temporary directory, to mount a filesystem on, or skips the test when
// it does not run as root, saying it needs root to mount what.
func mountDir(t testing.TB, name, what string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount " + what)
	}
	dir := filepath.Join(t.TempDir(), name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
