// Package psync is gofio's psync I/O engine: pread(2) and pwrite(2), one
// request at a time, done inside Submit. Like fio's psync it is a
// synchronous engine: the run core caps its depth at 1 and records no slat.
package psync

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
)

// Engine runs requests with pread/pwrite/fsync/fdatasync.
type Engine struct {
	files   []int
	reqs    []engines.Request // copy of the queued request per slot
	queued  []uint32
	nq      int
	done    engines.DoneQueue
	submits uint64
}

// ErrBusy is returned by Queue when every slot is already queued.
var ErrBusy = errors.New("psync: queue full")

// Open returns a psync engine for s.
func Open(s engines.Setup) (engines.Engine, error) {
	if s.Depth <= 0 {
		return nil, fmt.Errorf("psync: depth %d, need at least 1", s.Depth)
	}
	return &Engine{
		files:  s.Files,
		reqs:   make([]engines.Request, s.Depth),
		queued: make([]uint32, s.Depth),
		done:   engines.NewDoneQueue(s.Depth),
	}, nil
}

// SyncIO reports that requests complete inside Submit, so the run core
// stamps the issue time before Submit, as fio does for its sync engines.
func (e *Engine) SyncIO() bool { return true }

// Queue records r in slot; the I/O happens at Submit.
func (e *Engine) Queue(slot uint32, r *engines.Request) error {
	if e.nq+e.done.Len() >= len(e.queued) {
		return ErrBusy
	}
	if int(slot) >= len(e.reqs) {
		return fmt.Errorf("psync: slot %d out of range (depth %d)", slot, len(e.reqs))
	}
	if r.File < 0 || r.File >= len(e.files) {
		return fmt.Errorf("psync: file index %d out of range (%d files)", r.File, len(e.files))
	}
	if r.Op == engines.OpTrim {
		return fmt.Errorf("psync: trim: %w", errors.ErrUnsupported)
	}
	e.reqs[slot] = *r
	e.queued[e.nq] = slot
	e.nq++
	return nil
}

// Submit performs every queued request, in order, and returns how many ran.
func (e *Engine) Submit() (int, error) {
	n := e.nq
	for i := 0; i < n; i++ {
		s := e.queued[i]
		e.done.Push(engines.Completion{Slot: s, Res: e.do(&e.reqs[s])})
	}
	e.nq = 0
	if n > 0 {
		e.submits++
	}
	return n, nil
}

func (e *Engine) do(r *engines.Request) int32 {
	fd := e.files[r.File]
	var n int
	var err error
	switch r.Op {
	case engines.OpRead:
		n, err = unix.Pread(fd, r.Buf, int64(r.Offset))
	case engines.OpWrite:
		n, err = unix.Pwrite(fd, r.Buf, int64(r.Offset))
	case engines.OpFsync:
		err = unix.Fsync(fd)
	case engines.OpFdatasync:
		err = unix.Fdatasync(fd)
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

// Reap copies up to len(out) completions into out. Submitted requests are
// already complete, so it never blocks.
func (e *Engine) Reap(out []engines.Completion, min int) (int, error) {
	return e.done.Pop(out), nil
}

// Close releases nothing: the files are the caller's.
func (e *Engine) Close() error { return nil }

// Stats returns the submit call count (one per batch of pread/pwrite).
func (e *Engine) Stats() engines.Stats { return engines.Stats{SubmitCalls: e.submits} }
