// Package mmap is gofio's mmap I/O engine, fio's engines/mmap.c: each
// file is mapped whole (MAP_SHARED; MAP_PRIVATE with thp=1, as fio), a
// read copies from the mapping into the buffer and a write copies the
// other way; fsync and fdatasync are msync(MS_SYNC) of the mapping. With
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
	"fmt"
	"runtime/debug"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/blockdev"
)

// Engine copies to and from file mappings.
type Engine struct {
	files   []int
	maps    [][]byte // mapping per file, nil until its first I/O
	prot    int
	flags   int
	thp     bool
	direct  bool
	reqs    []engines.Request
	queued  []uint32
	nq      int
	done    engines.DoneQueue
	submits uint64
}

// ErrBusy is returned by Queue when every slot is already queued.
var ErrBusy = errors.New("mmap: queue full")

// Open returns an mmap engine for s.
func Open(s engines.Setup) (engines.Engine, error) {
	if s.Depth <= 0 {
		return nil, fmt.Errorf("mmap: depth %d, need at least 1", s.Depth)
	}
	e := &Engine{
		files:  s.Files,
		maps:   make([][]byte, len(s.Files)),
		prot:   unix.PROT_READ,
		flags:  unix.MAP_SHARED,
		reqs:   make([]engines.Request, s.Depth),
		queued: make([]uint32, s.Depth),
		done:   engines.NewDoneQueue(s.Depth),
	}
	if j := s.Job; j != nil {
		if j.RW.HasWrite() {
			e.prot |= unix.PROT_WRITE
		}
		if j.THP {
			e.thp, e.flags = true, unix.MAP_PRIVATE
		}
		e.direct = j.Direct
	}
	return e, nil
}

// SyncIO reports that requests complete inside Submit.
func (e *Engine) SyncIO() bool { return true }

// Queue records r in slot; the copy happens at Submit.
func (e *Engine) Queue(slot uint32, r *engines.Request) error {
	if e.nq+e.done.Len() >= len(e.queued) {
		return ErrBusy
	}
	if int(slot) >= len(e.reqs) {
		return fmt.Errorf("mmap: slot %d out of range (depth %d)", slot, len(e.reqs))
	}
	if r.File < 0 || r.File >= len(e.files) {
		return fmt.Errorf("mmap: file index %d out of range (%d files)", r.File, len(e.files))
	}
	if r.Op == engines.OpTrim {
		return fmt.Errorf("mmap: trim: %w", errors.ErrUnsupported)
	}
	e.reqs[slot] = *r
	e.queued[e.nq] = slot
	e.nq++
	return nil
}

// Submit performs every queued request, in order.
func (e *Engine) Submit() (int, error) {
	n := e.nq
	if n == 0 {
		return 0, nil
	}
	old := debug.SetPanicOnFault(true)
	for i := 0; i < n; i++ {
		s := e.queued[i]
		e.done.Push(engines.Completion{Slot: s, Res: e.do(&e.reqs[s])})
	}
	debug.SetPanicOnFault(old)
	e.nq = 0
	e.submits++
	return n, nil
}

// do runs one request and returns its result or a negative errno.
func (e *Engine) do(r *engines.Request) (res int32) {
	m, errno := e.mapping(r.File)
	if errno != 0 {
		return -int32(errno)
	}
	switch r.Op {
	case engines.OpFsync, engines.OpFdatasync:
		if err := unix.Msync(m, unix.MS_SYNC); err != nil {
			return -int32(errnoOf(err))
		}
		return 0
	}
	end := r.Offset + uint64(len(r.Buf))
	if end > uint64(len(m)) {
		return -int32(unix.EINVAL)
	}
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
			return -int32(errnoOf(err))
		}
		if err := unix.Madvise(pageAligned(m, r.Offset, end), unix.MADV_DONTNEED); err != nil {
			return -int32(errnoOf(err))
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
		return nil, errnoOf(err)
	}
	if size == 0 {
		return nil, unix.EINVAL
	}
	m, err := unix.Mmap(e.files[i], 0, int(size), e.prot, e.flags)
	if err != nil {
		return nil, errnoOf(err)
	}
	if e.thp {
		_ = unix.Madvise(m, unix.MADV_HUGEPAGE) // advisory, as in fio
	}
	e.maps[i] = m
	return m, 0
}

func errnoOf(err error) unix.Errno {
	var errno unix.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return unix.EIO
}

// Reap copies up to len(out) completions into out; it never blocks.
func (e *Engine) Reap(out []engines.Completion, min int) (int, error) {
	return e.done.Pop(out), nil
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

// Stats returns the submit call count.
func (e *Engine) Stats() engines.Stats { return engines.Stats{SubmitCalls: e.submits} }
