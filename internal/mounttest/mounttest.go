// Package mounttest holds what the tests' scratch filesystems (ext4test,
// tmpfstest) share: a mount point, for root only.
package mounttest

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns a fresh directory, named name, under the test's temporary
// directory, to mount a filesystem on, or skips the test when it does not
// run as root, saying it needs root to mount what.
func Dir(t testing.TB, name, what string) string {
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
