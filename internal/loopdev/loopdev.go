// Package loopdev creates loop block devices for tests. Every device it
// hands out is backed by a file the helper created itself, is attached with
// LOOP_CONFIGURE (atomic, so a device another process is setting up at the
// same moment is never touched) and is detached and removed by t.Cleanup.
// When loop devices cannot be used (no /dev/loop-control, not root, a
// container without the capability) the calling test is skipped with a
// message that says why.
package loopdev

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Device is one loop device attached by this package.
type Device struct {
	// Path is the device node, e.g. /dev/loop3.
	Path string
	// Backing is the path of the backing file the helper created.
	Backing string
	// Number is N in /dev/loopN.
	Number int
	// Size is the size of the backing file in bytes.
	Size int64

	dev *os.File // held open so the autoclear flag keeps the device attached
}

// Options tune New.
type Options struct {
	// Partitions, when non-empty, writes an MBR partition table with one
	// primary Linux partition per entry (sizes in bytes, each rounded down
	// to 1 MiB, laid out back to back from 1 MiB) into the backing file
	// before attaching, and asks the kernel to scan it (LO_FLAGS_PARTSCAN).
	Partitions []int64
	// ReadOnly attaches the device read-only (LO_FLAGS_READ_ONLY): every
	// open of it for writing fails with EROFS or EACCES. The flag goes
	// with the device's detach.
	ReadOnly bool
}

// New creates a sparse backing file of size bytes (in /dev/shm when it is a
// writable tmpfs, else in t.TempDir()), attaches it to a free loop device and
// registers a cleanup that detaches the device and removes the file.
func New(t testing.TB, size int64) *Device {
	t.Helper()
	return NewWithOptions(t, size, Options{})
}

// NewWithOptions is New with a partition table (see Options).
func NewWithOptions(t testing.TB, size int64, opts Options) *Device {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("loopdev: loop devices need root; skipping")
	}
	ctl, err := os.OpenFile("/dev/loop-control", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("loopdev: loop devices unavailable: %v", err)
	}
	defer ctl.Close()

	backing := backingPath(t)
	f, err := os.OpenFile(backing, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatalf("loopdev: create backing file: %v", err)
	}
	t.Cleanup(func() { os.Remove(backing) })
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatalf("loopdev: size backing file: %v", err)
	}
	var flags uint32 = unix.LO_FLAGS_AUTOCLEAR
	if opts.ReadOnly {
		flags |= unix.LO_FLAGS_READ_ONLY
	}
	var parts []part
	if len(opts.Partitions) > 0 {
		if parts, err = layout(size, opts.Partitions); err != nil {
			t.Fatalf("loopdev: %v", err)
		}
		if err := writeMBR(f, parts); err != nil {
			t.Fatalf("loopdev: %v", err)
		}
		flags |= unix.LO_FLAGS_PARTSCAN
	}

	d := &Device{Backing: backing, Size: size}
	for attempt := 0; ; attempt++ {
		n, err := unix.IoctlRetInt(int(ctl.Fd()), unix.LOOP_CTL_GET_FREE)
		if err != nil {
			t.Skipf("loopdev: LOOP_CTL_GET_FREE: %v", err)
		}
		path := fmt.Sprintf("/dev/loop%d", n)
		dev, err := openNode(path)
		if err != nil {
			t.Skipf("loopdev: open %s: %v", path, err)
		}
		cfg := unix.LoopConfig{Fd: uint32(f.Fd())}
		cfg.Info.Flags = flags
		copy(cfg.Info.File_name[:], backing)
		err = unix.IoctlLoopConfigure(int(dev.Fd()), &cfg)
		if err == nil {
			d.Path, d.Number, d.dev = path, n, dev
			break
		}
		dev.Close()
		// EBUSY: another process took this device between GET_FREE and
		// CONFIGURE; ask for the next free one.
		if errors.Is(err, unix.EBUSY) && attempt < 50 {
			continue
		}
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.ENOTTY) || errors.Is(err, unix.EINVAL) {
			t.Skipf("loopdev: LOOP_CONFIGURE on %s: %v", path, err)
		}
		t.Fatalf("loopdev: LOOP_CONFIGURE on %s: %v", path, err)
	}
	t.Cleanup(d.detach)
	if len(parts) > 0 {
		if err := addPartitions(d.dev, filepath.Base(d.Path), parts); err != nil {
			t.Fatalf("loopdev: %s: %v", d.Path, err)
		}
		for i := range parts {
			waitNode(t, d.Partition(i+1))
		}
	}
	return d
}

// Partition returns the node of partition i (1-based), e.g. /dev/loop3p1.
func (d *Device) Partition(i int) string {
	return fmt.Sprintf("%sp%d", d.Path, i)
}

// Hash returns the SHA-256 of the whole device, read through the device node.
func (d *Device) Hash(t testing.TB) [32]byte {
	t.Helper()
	f, err := os.Open(d.Path)
	if err != nil {
		t.Fatalf("loopdev: open %s: %v", d.Path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatalf("loopdev: read %s: %v", d.Path, err)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

// detach drops the device: LOOP_CLR_FD (which, while a mount still holds
// the device, only sets autoclear) and then closes the fd this helper held.
func (d *Device) detach() {
	if d.dev == nil {
		return
	}
	_ = unix.IoctlSetInt(int(d.dev.Fd()), unix.LOOP_CLR_FD, 0)
	d.dev.Close()
	d.dev = nil
}

// backingPath picks a unique backing file name in /dev/shm, or in
// t.TempDir() when /dev/shm is not usable.
func backingPath(t testing.TB) string {
	t.Helper()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() && unix.Access("/dev/shm", unix.W_OK) == nil {
		f, err := os.CreateTemp("/dev/shm", "gofio-loopdev-*.img")
		if err == nil {
			name := f.Name()
			f.Close()
			os.Remove(name)
			return name
		}
	}
	return filepath.Join(t.TempDir(), "loop.img")
}

// openNode opens a loop device node, waiting briefly for devtmpfs to create
// it after LOOP_CTL_GET_FREE added the device.
func openNode(path string) (*os.File, error) {
	var err error
	for i := 0; i < 100; i++ {
		var f *os.File
		f, err = os.OpenFile(path, os.O_RDWR, 0)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil, err
}

// waitNode waits for a partition node the kernel is creating after the
// partition scan.
func waitNode(t testing.TB, path string) {
	t.Helper()
	for i := 0; i < 300; i++ {
		if st, err := os.Stat(path); err == nil && st.Mode()&os.ModeDevice != 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("loopdev: partition node %s did not appear", path)
}
