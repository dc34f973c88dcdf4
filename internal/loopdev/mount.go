package loopdev

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// MkfsExt4 makes an ext4 file system on the whole device. The inode tables
// and journal are initialised up front, so no lazy-init thread writes to the
// device later while a test compares its bytes.
func (d *Device) MkfsExt4(t testing.TB) {
	t.Helper()
	d.mkfs(t, d.Path)
}

// MkfsExt4Partition makes an ext4 file system on partition i (1-based).
func (d *Device) MkfsExt4Partition(t testing.TB, i int) {
	t.Helper()
	d.mkfs(t, d.Partition(i))
}

// Mount mounts the device's file system on a new directory under
// t.TempDir(), flushes what mounting wrote, and registers an unmount
// cleanup. It returns the mount point.
func (d *Device) Mount(t testing.TB) string {
	t.Helper()
	return d.mount(t, d.Path)
}

// MountPartition mounts partition i (1-based) like Mount.
func (d *Device) MountPartition(t testing.TB, i int) string {
	t.Helper()
	return d.mount(t, d.Partition(i))
}

// Unmount unmounts a mount point returned by Mount or MountPartition.
func (d *Device) Unmount(t testing.TB, mountpoint string) {
	t.Helper()
	if err := unix.Unmount(mountpoint, 0); err != nil {
		t.Fatalf("loopdev: unmount %s: %v", mountpoint, err)
	}
}

// mkfs runs mkfs.ext4 on node, which must be this device or one of its
// partitions.
func (d *Device) mkfs(t testing.TB, node string) {
	t.Helper()
	d.mustOwn(t, node)
	bin, err := exec.LookPath("mkfs.ext4")
	if err != nil {
		t.Skip("loopdev: mkfs.ext4 not installed; skipping")
	}
	cmd := exec.Command(bin, "-q", "-F", "-E", "nodiscard,lazy_itable_init=0,lazy_journal_init=0", node)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("loopdev: mkfs.ext4 %s: %v\n%s", node, err, out)
	}
}

// mount mounts node (this device or one of its partitions) as ext4.
func (d *Device) mount(t testing.TB, node string) string {
	t.Helper()
	d.mustOwn(t, node)
	dir := t.TempDir()
	// no_prefetch_block_bitmaps: otherwise ext4's lazyinit thread reads
	// the block bitmaps after the mount and builds those of groups mkfs
	// left BLOCK_UNINIT in the device's page cache, at a moment of its
	// own, so a hash read through that cache changes under a test on a
	// loaded machine. Kernels before 5.9 do not know the option (and do
	// not prefetch): mount without it there.
	err := unix.Mount(node, dir, "ext4", unix.MS_NOATIME, "no_prefetch_block_bitmaps")
	if errors.Is(err, unix.EINVAL) {
		err = unix.Mount(node, dir, "ext4", unix.MS_NOATIME, "")
	}
	if err != nil {
		if errors.Is(err, unix.EPERM) {
			t.Skipf("loopdev: mount %s: %v", node, err)
		}
		t.Fatalf("loopdev: mount %s on %s: %v", node, dir, err)
	}
	t.Cleanup(func() {
		// EINVAL: the test already unmounted it.
		if err := unix.Unmount(dir, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			_ = unix.Unmount(dir, unix.MNT_DETACH)
		}
	})
	// Mounting writes the superblock through the journal, and jbd2 may
	// commit it seconds later. Flush it now, so that a caller hashing the
	// device after Mount sees the bytes an idle mount keeps.
	f, err := os.Open(dir)
	if err != nil {
		t.Fatalf("loopdev: open %s: %v", dir, err)
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		t.Fatalf("loopdev: syncfs %s: %v", dir, err)
	}
	return dir
}

// mustOwn fails the test unless node is this device or one of its
// partitions, so the helper never formats or mounts anything else.
func (d *Device) mustOwn(t testing.TB, node string) {
	t.Helper()
	if d.dev == nil {
		t.Fatalf("loopdev: %s is detached", d.Path)
	}
	if node != d.Path && !strings.HasPrefix(node, d.Path+"p") {
		t.Fatalf("loopdev: %s is not %s or one of its partitions", node, d.Path)
	}
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("loopdev: %v", err)
	}
}
