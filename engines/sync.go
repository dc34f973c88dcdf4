package engines

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// Sync is the scaffold of a synchronous engine, one that performs each
// request inside Submit (fio's FIO_SYNCIO engines: the sync family, mmap,
// falloc, the metadata engines, cpuio, exec...). It keeps a copy of each
// queued request, runs the queued ones in order at Submit through do, and
// hands their results out at Reap, which never blocks. Engines embed it,
// made by NewSync, and add their own state and Close.
type Sync struct {
	name    string // the engine's name, for errors
	files   int    // how many files Request.File may index
	trim    bool   // trims are accepted (passed to do)
	do      func(r *Request) int32
	reqs    []Request // copy of the queued request per slot
	queued  []uint32
	nq      int
	done    DoneQueue
	submits uint64
}

// NewSync returns the scaffold of the synchronous engine name with depth
// slots over files files; do performs one request and returns its result
// (bytes moved, or a negative errno). Trims are refused at Queue with
// errors.ErrUnsupported unless trim is set.
func NewSync(name string, depth, files int, trim bool, do func(r *Request) int32) (Sync, error) {
	if depth <= 0 {
		return Sync{}, fmt.Errorf("%s: depth %d, need at least 1", name, depth)
	}
	return Sync{name: name, files: files, trim: trim, do: do,
		reqs: make([]Request, depth), queued: make([]uint32, depth), done: NewDoneQueue(depth)}, nil
}

// SyncIO reports that requests complete inside Submit, so the run core
// stamps the issue time before Submit and caps the depth at 1, as fio
// does for its FIO_SYNCIO engines.
func (s *Sync) SyncIO() bool { return true }

// Queue records r in slot; the request runs at Submit.
func (s *Sync) Queue(slot uint32, r *Request) error {
	if s.nq+s.done.Len() >= len(s.queued) {
		return fmt.Errorf("%s: %w", s.name, ErrQueueFull)
	}
	if int(slot) >= len(s.reqs) {
		return fmt.Errorf("%s: slot %d out of range (depth %d)", s.name, slot, len(s.reqs))
	}
	if r.File < 0 || r.File >= s.files {
		return fmt.Errorf("%s: file index %d out of range (%d files)", s.name, r.File, s.files)
	}
	if r.Op == OpTrim && !s.trim {
		return fmt.Errorf("%s: trim: %w", s.name, errors.ErrUnsupported)
	}
	s.reqs[slot] = *r
	s.queued[s.nq] = slot
	s.nq++
	return nil
}

// Submit performs every queued request, in order, and returns how many ran.
func (s *Sync) Submit() (int, error) {
	n := s.nq
	for i := 0; i < n; i++ {
		slot := s.queued[i]
		s.done.Push(Completion{Slot: slot, Res: s.do(&s.reqs[slot])})
	}
	s.nq = 0
	if n > 0 {
		s.submits++
	}
	return n, nil
}

// Reap copies up to len(out) completions into out. Submitted requests are
// already complete, so it never blocks.
func (s *Sync) Reap(out []Completion, min int) (int, error) {
	return s.done.Pop(out), nil
}

// Stats returns the submit call count (one per batch of requests).
func (s *Sync) Stats() Stats { return Stats{SubmitCalls: s.submits} }

// SyncFileRange runs r, an OpSyncFileRange, on fd with the
// sync_file_range= flags, as fio's do_sync_file_range: no call when
// nothing was written since the last sync. It returns 0 or the negated
// errno.
func SyncFileRange(fd int, r *Request, flags int) int32 {
	if r.SyncLen == 0 {
		return 0
	}
	if err := unix.SyncFileRange(fd, int64(r.Offset), int64(r.SyncLen), flags); err != nil {
		return -int32(Errno(err))
	}
	return 0
}

// ErrQueueFull is returned by Queue when every slot is already queued.
var ErrQueueFull = errors.New("queue full")

// Errno returns the errno an engine reports for err: the unix.Errno it
// wraps, or EIO when it wraps none.
func Errno(err error) unix.Errno {
	var errno unix.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return unix.EIO
}
