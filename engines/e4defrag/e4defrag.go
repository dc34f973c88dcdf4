// Package e4defrag is gofio's e4defrag engine, fio's engines/e4defrag.c:
// each write moves the extents of its range from a donor file into the
// job's file with the EXT4_IOC_MOVE_EXT ioctl, the online defragmenter's
// primitive, so the job measures ext4 defragmentation. Reads are EINVAL
// (moving extents changes the layout, so fio keeps read-only jobs off it).
//
// The donor file is donorname (required; inside directory= when the job
// has one), created and, without inplace=1, preallocated once over the
// job's range; with inplace=1 each write preallocates its own range and
// truncates the donor after the move, as fio does. A write whose extents
// moved only in part is a short I/O; one beyond the end of the file is
// EINVAL. It works only on ext4: elsewhere the ioctl fails with ENOTTY or
// EOPNOTSUPP, and the job fails with that error. Like fio's, the engine is
// synchronous.
package e4defrag

import (
	"errors"
	"fmt"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
)

// ioctlMoveExt is EXT4_IOC_MOVE_EXT, _IOWR('f', 15, struct move_extent).
const ioctlMoveExt = 0xc028660f

// moveExtent is struct move_extent of fs/ext4/ext4.h (40 bytes).
type moveExtent struct {
	reserved   uint32
	donorFd    uint32
	origStart  uint64 // logical block in the file
	donorStart uint64 // logical block in the donor
	len        uint64 // blocks to move
	movedLen   uint64 // blocks moved (out)
}

// Engine moves extents from a donor file.
type Engine struct {
	engines.Sync
	files   []int
	donor   int
	bsz     uint64 // the donor's st_blksize, ext4's block size
	inplace bool
}

// Open creates the donor file and, without inplace, preallocates it over
// [offset, offset+the largest file size).
func Open(s engines.Setup) (engines.Engine, error) {
	j := s.Job
	if j == nil || optionsOf(j).DonorName == "" {
		return nil, errors.New("e4defrag: the donorname= option is required")
	}
	name := optionsOf(j).DonorName
	if len(j.Directory) > 0 && !filepath.IsAbs(name) {
		name = filepath.Join(j.Directory[0], name)
	}
	fd, err := unix.Open(name, unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("e4defrag: open donor %s: %w", name, err)
	}
	e := &Engine{files: s.Files, donor: fd, inplace: optionsOf(j).InPlace}
	if e.Sync, err = engines.NewSync("e4defrag", s.Depth, len(s.Files), true, e.do); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if !e.inplace {
		size := j.FileSizeMax
		if size == 0 {
			size = j.Size
		}
		if size > j.Offset {
			if err := unix.Fallocate(fd, 0, int64(j.Offset), int64(size-j.Offset)); err != nil {
				unix.Close(fd)
				return nil, fmt.Errorf("e4defrag: preallocate donor %s: %w", name, err)
			}
		}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("e4defrag: stat donor: %w", err)
	}
	e.bsz = uint64(st.Blksize)
	return e, nil
}

func (e *Engine) do(r *engines.Request) int32 {
	switch r.Op {
	case engines.OpFsync:
		return errnoRes(unix.Fsync(e.files[r.File]))
	case engines.OpFdatasync:
		return errnoRes(unix.Fdatasync(e.files[r.File]))
	case engines.OpWrite:
	default:
		return -int32(unix.EINVAL)
	}
	length := uint64(len(r.Buf))
	if e.inplace {
		if err := unix.Fallocate(e.donor, 0, int64(r.Offset), int64(length)); err != nil {
			return errnoRes(err)
		}
	}
	me := moveExtent{donorFd: uint32(e.donor), origStart: r.Offset / e.bsz}
	me.donorStart = me.origStart
	me.len = (r.Offset+length+e.bsz-1)/e.bsz - me.origStart
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(e.files[r.File]), ioctlMoveExt, uintptr(unsafe.Pointer(&me)))
	if e.inplace {
		if err := unix.Ftruncate(e.donor, 0); err != nil && errno == 0 {
			errno = engines.Errno(err)
		}
	}
	if errno != 0 {
		return -int32(errno)
	}
	moved := me.movedLen * e.bsz
	if moved > length {
		moved = length
	}
	if moved == 0 {
		return -int32(unix.EINVAL) // beyond i_size
	}
	return int32(moved)
}

func errnoRes(err error) int32 {
	if err == nil {
		return 0
	}
	return -int32(engines.Errno(err))
}

// Close closes the donor file (it stays on disk, as fio leaves it).
func (e *Engine) Close() error {
	if e.donor < 0 {
		return nil
	}
	err := unix.Close(e.donor)
	e.donor = -1
	return err
}
