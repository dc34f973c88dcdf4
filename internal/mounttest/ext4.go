package mounttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Ext4 returns the mount point of a fresh ext4 filesystem of sizeMiB MiB:
// an image file under the test's temporary directory, formatted with
// mkfs.ext4 and mounted through a loop device, all removed when the test
// ends. It skips the test saying why when it cannot make one (mkfs.ext4,
// mount or loop devices missing).
func Ext4(t testing.TB, sizeMiB int64) string {
	t.Helper()
	mnt := mountDir(t, "mnt", "an ext4 loop device")
	for _, tool := range []string{"mkfs.ext4", "mount", "umount", "losetup"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: cannot make an ext4 loop device", tool)
		}
	}
	img := filepath.Join(filepath.Dir(mnt), "ext4.img")
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(sizeMiB << 20); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", img).CombinedOutput(); err != nil {
		t.Skipf("mkfs.ext4: %v: %s", err, out)
	}
	dev, err := exec.Command("losetup", "-f", "--show", img).Output()
	if err != nil {
		t.Skipf("no loop device (losetup -f --show): %v", err)
	}
	loop := strings.TrimSpace(string(dev))
	if loop == "" {
		t.Skip("no loop device: losetup -f --show printed nothing")
	}
	t.Cleanup(func() {
		if out, err := exec.Command("losetup", "-d", loop).CombinedOutput(); err != nil {
			t.Errorf("losetup -d %s: %v: %s", loop, err, out)
		}
	})
	if out, err := exec.Command("mount", "-t", "ext4", loop, mnt).CombinedOutput(); err != nil {
		t.Skipf("mount %s: %v: %s", loop, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			// Still busy: detach it lazily so nothing stays mounted on
			// the host, and fail the test, which left something open.
			lazy, lerr := exec.Command("umount", "-l", mnt).CombinedOutput()
			t.Errorf("umount %s: %v: %s (lazy unmount: %v %s)", mnt, err, out, lerr, lazy)
		}
	})
	return mnt
}
