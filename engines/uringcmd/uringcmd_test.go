package uringcmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestNamespace checks fio's target check: a regular file or a missing
// one is not a character device (fio's message), and a null device (a
// node the test makes in its temp dir, root only) is one without an NVMe
// namespace (fio's "failed to fetch namespace-id", with the ioctl's
// ENOTTY).
func TestNamespace(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{f, f + ".missing"} {
		if _, err := Namespace(p); !errors.Is(err, ErrNotCharDevice) {
			t.Errorf("%s: %v, want %v", p, err, ErrNotCharDevice)
		}
	}
	null := filepath.Join(dir, "null")
	if err := unix.Mknod(null, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Skipf("cannot make a device node here: %v", err)
	}
	if _, err := Namespace(null); errors.Is(err, unix.EACCES) {
		t.Skipf("device nodes do not open here (nodev mount?): %v", err)
	} else if !errors.Is(err, unix.ENOTTY) || !strings.HasPrefix(err.Error(), "failed to fetch namespace-id") {
		t.Errorf("null device: %v, want failed to fetch namespace-id: ENOTTY", err)
	}
}
