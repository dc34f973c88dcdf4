package blockdev

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Size returns the size in bytes of the file or block device open on fd:
// BLKGETSIZE64 for a block device, st_size for anything else.
func Size(fd int) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, fmt.Errorf("size: fstat: %w", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return uint64(st.Size), nil
	}
	var n uint64
	// x/sys gained IoctlGetUint64 only in a release that needs Go 1.26;
	// the raw ioctl keeps gofio's Go floor below that (docs/install.md).
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.BLKGETSIZE64, uintptr(unsafe.Pointer(&n))); e != 0 {
		return 0, fmt.Errorf("size: BLKGETSIZE64: %w", e)
	}
	return n, nil
}

// LogicalBlockSize returns the logical sector size (BLKSSZGET) of the block
// device open on fd: the alignment O_DIRECT I/O to it needs.
func LogicalBlockSize(fd int) (int, error) {
	n, err := unix.IoctlGetInt(fd, unix.BLKSSZGET)
	if err != nil {
		return 0, fmt.Errorf("logical block size: BLKSSZGET: %w", err)
	}
	return n, nil
}

// IsBlockDevice reports whether fd refers to a block device.
func IsBlockDevice(fd int) (bool, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false, fmt.Errorf("fstat: %w", err)
	}
	return st.Mode&unix.S_IFMT == unix.S_IFBLK, nil
}
