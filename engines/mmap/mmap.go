// Package mmap is gofio's mmap I/O engine, fio's engines/mmap.c: each
// file is mapped whole (MAP_SHARED; MAP_PRIVATE with thp=1, as fio), a
// read copies from the mapping into the buffer and a write copies the
// other way; fsync, fdatasync and sync_file_range are msync(MS_SYNC) of the mapping. With
// direct=1 every read and write is followed by msync(MS_SYNC) and
// madvise(MADV_DONTNEED) of its range, fio's stand-in for O_DIRECT.
//
// A file is mapped at its first I/O, up to its size then; an I/O beyond
// the end of the file fails with EINVAL rather than touching pages past
// EOF. A fault on the mapping (the file shrank under the job) fails the
// I/O with EIO instead of crashing gofio. Like fio's, the engine is
// synchronous: the run core runs it at depth 1.
package mmap

import (
	"errors"
	"runtime/debug"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/blockdev"
)

// Engine copies to and from file mappings.
type Engine struct {
	engines.Sync
	files  []int
	maps   [][]byte // mapping per file, nil until its first I/O
	prot   int
	flags  int
	thp    bool
	direct bool
	trim   engines.Trimmer
}

// Open returns an mmap engine for s.
func Open(s engines.Setup) (engines.Engine, error) {
	e := &Engine{
		files: s.Files,
		maps:  make([][]byte, len(s.Files)),
		prot:  unix.PROT_READ,
		flags: unix.MAP_SHARED,
	}
	var err error
	if e.Sync, err = engines.NewSync("mmap", s.Depth, len(s.Files), true, e.do); err != nil {
		return nil, err
	}
	if j := s.Job; j != nil {
		if j.RW.HasWrite() {
			e.prot |= unix.PROT_WRITE
		}
		if o, ok := j.EngineConfig().(*Options); ok && o.THP {
			e.thp, e.flags = true, unix.MAP_PRIVATE
		}
		e.direct = j.Direct
	}
	return e, nil
}

// do runs one request and returns its result or a negative errno.
func (e *Engine) do(r *engines.Request) (res int32) {
	if r.Op == engines.OpTrim {
		// fio's mmap engine trims the file with BLKDISCARD
		// (do_io_u_trim), not through the mapping.
		return e.trim.Do(e.files[r.File], r)
	}
	m, errno := e.mapping(r.File)
	if errno != 0 {
		return -int32(errno)
	}
	switch r.Op {
	case engines.OpFsync, engines.OpFdatasync, engines.OpSyncFileRange:
		if err := unix.Msync(m, unix.MS_SYNC); err != nil {
			return -int32(engines.Errno(err))
		}
		return 0
	}
	end := r.Offset + uint64(len(r.Buf))
	if end > uint64(len(m)) {
		return -int32(unix.EINVAL)
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			res = -int32(unix.EIO) // SIGBUS: the file shrank under the mapping
		}
	}()
	region := m[r.Offset:end]
	if r.Op == engines.OpWrite {
		copy(region, r.Buf)
	} else {
		copy(r.Buf, region)
	}
	if e.direct {
		if err := unix.Msync(pageAligned(m, r.Offset, end), unix.MS_SYNC); err != nil {
			return -int32(engines.Errno(err))
		}
		if err := unix.Madvise(pageAligned(m, r.Offset, end), unix.MADV_DONTNEED); err != nil {
			return -int32(engines.Errno(err))
		}
	}
	return int32(len(r.Buf))
}

// pageAligned returns m[off:end] widened to whole pages, as msync and
// madvise want an aligned start.
func pageAligned(m []byte, off, end uint64) []byte {
	page := uint64(unix.Getpagesize())
	lo := off &^ (page - 1)
	hi := (end + page - 1) &^ (page - 1)
	if hi > uint64(len(m)) {
		hi = uint64(len(m))
	}
	return m[lo:hi]
}

// mapping returns file i's mapping, mapping it on first use.
func (e *Engine) mapping(i int) ([]byte, unix.Errno) {
	if m := e.maps[i]; m != nil {
		return m, 0
	}
	size, err := blockdev.Size(e.files[i])
	if err != nil {
		return nil, engines.Errno(err)
	}
	if size == 0 {
		return nil, unix.EINVAL
	}
	m, err := unix.Mmap(e.files[i], 0, int(size), e.prot, e.flags)
	if err != nil {
		return nil, engines.Errno(err)
	}
	if e.thp {
		_ = unix.Madvise(m, unix.MADV_HUGEPAGE) // advisory, as in fio
	}
	e.maps[i] = m
	return m, 0
}

// Close unmaps every file.
func (e *Engine) Close() error {
	var errs []error
	for i, m := range e.maps {
		if m != nil {
			errs = append(errs, unix.Munmap(m))
			e.maps[i] = nil
		}
	}
	return errors.Join(errs...)
}
