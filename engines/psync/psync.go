// Package psync is gofio's family of synchronous engines that make one
// system call per request: fio's engines/sync.c, psync (pread/pwrite),
// sync (lseek + read/write), vsync (lseek + readv/writev), pvsync
// (preadv/pwritev) and pvsync2 (preadv2/pwritev2 with hipri,
// hipri_percentage, nowait and uncached); and fio's falloc (fallocate: a
// read keeps the size, a write may extend, a trim punches a hole) and
// ftruncate (a write truncates the file to its offset; a read or a trim
// is EINVAL). fsync, fdatasync and sync_file_range are the system calls
// of their names on every variant. The sync family trims as fio does, with BLKDISCARD: a trim
// of a regular file fails with ENOTTY.
// falloc and ftruncate count a request that succeeds as its full length,
// as fio does. Each request runs inside Submit, one at a time. Like fio's FIO_SYNCIO
// engines they are synchronous: the run core caps their depth at 1 and
// records no slat.
//
// The vectored variants pass one iovec per request. fio's vsync can merge
// contiguous requests into one readv/writev when iodepth_batch lets
// several queue; at the depth of 1 gofio runs sync engines at, fio does
// not merge either.
package psync

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
)

// Variant selects the system calls an Engine makes.
type Variant int

// The sync family, by fio engine name.
const (
	PSync     Variant = iota // pread/pwrite
	Sync                     // lseek (when not already there) + read/write
	VSync                    // lseek + readv/writev
	PVSync                   // preadv/pwritev
	PVSync2                  // preadv2/pwritev2 with RWF_* flags
	Falloc                   // fallocate
	Ftruncate                // ftruncate
)

// Engine runs requests with the system calls of its variant.
type Engine struct {
	engines.Sync
	variant Variant
	files   []int
	lastPos []int64 // sync: file position after the last read/write, -1 unknown
	iov     unix.Iovec
	trim    engines.Trimmer
	sfr     int // sync_file_range= flags

	// pvsync2.
	flags    int    // RWF_NOWAIT, RWF_DONTCACHE
	hipriPct uint64 // share of reads and writes with RWF_HIPRI, 0 none
	rnd      uint64
}

// Open returns a psync engine for s.
func Open(s engines.Setup) (engines.Engine, error) { return open(s, PSync) }

// Opener returns the opener of variant v.
func Opener(v Variant) engines.Opener {
	return func(s engines.Setup) (engines.Engine, error) { return open(s, v) }
}

func open(s engines.Setup, v Variant) (engines.Engine, error) {
	e := &Engine{
		variant: v,
		files:   s.Files,
		lastPos: make([]int64, len(s.Files)),
		rnd:     0x9e3779b97f4a7c15,
	}
	var err error
	if e.Sync, err = engines.NewSync("psync", s.Depth, len(s.Files), true, e.do); err != nil {
		return nil, err
	}
	for i := range e.lastPos {
		e.lastPos[i] = -1
	}
	if s.Job != nil {
		e.sfr = int(s.Job.SyncFileRange)
	}
	if j := s.Job; j != nil && v == PVSync2 {
		if j.NoWait {
			e.flags |= unix.RWF_NOWAIT
		}
		if j.Uncached && !j.Direct {
			e.flags |= unix.RWF_DONTCACHE // fio 3.33's RWF_UNCACHED; its 0x40 is RWF_ATOMIC since Linux 6.11
		}
		if j.Hipri {
			e.hipriPct = uint64(optionsOf(j).HipriPercentage)
		}
	}
	return e, nil
}

func (e *Engine) do(r *engines.Request) int32 {
	fd := e.files[r.File]
	var n int
	var err error
	switch {
	case r.Op == engines.OpFsync:
		err = unix.Fsync(fd)
	case r.Op == engines.OpFdatasync:
		err = unix.Fdatasync(fd)
	case r.Op == engines.OpSyncFileRange:
		return engines.SyncFileRange(fd, r, e.sfr)
	case e.variant == Falloc:
		mode := uint32(0) // a write allocates and may extend the file
		switch r.Op {
		case engines.OpRead:
			mode = unix.FALLOC_FL_KEEP_SIZE
		case engines.OpTrim:
			mode = unix.FALLOC_FL_PUNCH_HOLE | unix.FALLOC_FL_KEEP_SIZE
		}
		err = unix.Fallocate(fd, mode, int64(r.Offset), int64(len(r.Buf)))
		n = len(r.Buf)
	case e.variant == Ftruncate:
		err = unix.EINVAL
		if r.Op == engines.OpWrite {
			err = unix.Ftruncate(fd, int64(r.Offset))
			n = len(r.Buf)
		}
	case r.Op == engines.OpTrim:
		// fio's sync family trims with BLKDISCARD (do_io_u_trim).
		return e.trim.Do(fd, r)
	case r.Op == engines.OpRead || r.Op == engines.OpWrite:
		n, err = e.rw(r, fd)
	default:
		err = unix.EOPNOTSUPP
	}
	if err != nil {
		var errno unix.Errno
		if errors.As(err, &errno) {
			return -int32(errno)
		}
		return -int32(unix.EIO)
	}
	return int32(n)
}

// rw reads or writes r.Buf at r.Offset with the variant's system calls.
func (e *Engine) rw(r *engines.Request, fd int) (int, error) {
	write := r.Op == engines.OpWrite
	off := int64(r.Offset)
	switch e.variant {
	case PSync:
		if write {
			return unix.Pwrite(fd, r.Buf, off)
		}
		return unix.Pread(fd, r.Buf, off)
	case Sync:
		// fio's sync engine skips the lseek when the file is already
		// at the offset.
		if e.lastPos[r.File] != off {
			if _, err := unix.Seek(fd, off, 0); err != nil {
				e.lastPos[r.File] = -1
				return 0, err
			}
		}
		var n int
		var err error
		if write {
			n, err = unix.Write(fd, r.Buf)
		} else {
			n, err = unix.Read(fd, r.Buf)
		}
		e.lastPos[r.File] = -1
		if err == nil {
			e.lastPos[r.File] = off + int64(n)
		}
		return n, err
	case VSync:
		if _, err := unix.Seek(fd, off, 0); err != nil {
			return 0, err
		}
		nr := uintptr(unix.SYS_READV)
		if write {
			nr = unix.SYS_WRITEV
		}
		return e.vec(nr, fd, r.Buf, 0, 0, false)
	case PVSync:
		nr := uintptr(unix.SYS_PREADV)
		if write {
			nr = unix.SYS_PWRITEV
		}
		return e.vec(nr, fd, r.Buf, off, 0, true)
	default:
		flags := e.flags
		if e.hipriPct > 0 && e.roll() < e.hipriPct {
			flags |= unix.RWF_HIPRI
		}
		nr := uintptr(unix.SYS_PREADV2)
		if write {
			nr = unix.SYS_PWRITEV2
		}
		return e.vec(nr, fd, r.Buf, off, flags, true)
	}
}

// vec makes a readv-family system call on one iovec over buf; with at
// set, off is the position (the low and high words of preadv's pos, the
// high one 0 on a 64-bit kernel) and flags preadv2's flags. The iovec
// lives in the engine, so no call allocates.
func (e *Engine) vec(nr uintptr, fd int, buf []byte, off int64, flags int, at bool) (int, error) {
	e.iov.Base = nil
	if len(buf) > 0 {
		e.iov.Base = &buf[0]
	}
	e.iov.SetLen(len(buf))
	var n uintptr
	var errno unix.Errno
	if at {
		n, _, errno = unix.Syscall6(nr, uintptr(fd), uintptr(unsafe.Pointer(&e.iov)), 1, uintptr(off), 0, uintptr(flags))
	} else {
		n, _, errno = unix.Syscall(nr, uintptr(fd), uintptr(unsafe.Pointer(&e.iov)), 1)
	}
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// roll returns a number in [0, 100) for hipri_percentage (xorshift64*).
func (e *Engine) roll() uint64 {
	e.rnd ^= e.rnd >> 12
	e.rnd ^= e.rnd << 25
	e.rnd ^= e.rnd >> 27
	return (e.rnd * 2685821657736338717) % 100
}

// Close releases nothing: the files are the caller's.
func (e *Engine) Close() error { return nil }
