// Package uringcmd is the part of fio's io_uring_cmd engine (NVMe
// passthrough commands through io_uring, on /dev/ngXnY) that gofio runs:
// the check fio 3.33 makes of each target before its job starts
// (engines/nvme.c's fio_nvme_get_info): a character device whose NVMe
// namespace id NVME_IOCTL_ID reads. A job on anything else fails with
// fio's message. gofio does not build NVMe commands (no big-SQE ring, no
// NVMe read/write command set), so it opens the engine on no target:
// run refuses a job on a real namespace before any I/O.
package uringcmd

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
)

// ErrNotCharDevice is fio's refusal of a target that is not a character
// device, in fio's words.
var ErrNotCharDevice = errors.New("ioengine io_uring_cmd only works with nvme ns generic char devices (/dev/ngXnY)")

// ErrNoCommands says why the engine opens on no target.
var ErrNoCommands = errors.New("gofio does not build NVMe passthrough commands (ioengine=io_uring_cmd); run ioengine=io_uring on the namespace's block device (/dev/nvmeXnY)")

// nvmeIoctlID is NVME_IOCTL_ID, _IO('N', 0x40): the namespace id of the
// device the descriptor is open on.
const nvmeIoctlID = 'N'<<8 | 0x40

// Namespace returns the NVMe namespace id of the device at path, as fio's
// fio_nvme_get_info finds it: ErrNotCharDevice for anything but a
// character device (a missing file included), and the ioctl's errno,
// wrapped with fio's "failed to fetch namespace-id", for a character
// device that is not an NVMe namespace.
func Namespace(path string) (int, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return 0, ErrNotCharDevice
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("open: %w", err)
	}
	defer f.Close()
	id, _, errno := unix.Syscall(unix.SYS_IOCTL, f.Fd(), nvmeIoctlID, 0)
	if errno != 0 {
		return 0, fmt.Errorf("failed to fetch namespace-id: %w", errno)
	}
	return int(id), nil
}

// Open refuses to run: planning has already refused every target this
// engine could reach (Namespace), so it is never called in a run.
func Open(engines.Setup) (engines.Engine, error) { return nil, ErrNoCommands }
