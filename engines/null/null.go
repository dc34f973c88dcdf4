// Package null is gofio's null I/O engine: every request completes at
// Submit without touching a file, so a run measures gofio's own overhead.
// It corresponds to fio's ioengine=null and is compared with it.
package null

import (
	"errors"
	"fmt"

	"github.com/gofio/gofio/engines"
)

// Engine completes requests instantly. A read or write completes with its
// full length, a sync with 0.
type Engine struct {
	res     []int32  // result per slot, set at Queue
	queued  []uint32 // slots queued since the last Submit
	nq      int
	done    engines.DoneQueue
	submits uint64
	waits   uint64
	sync    bool // iodepth=1: synchronous, as fio's null sets FIO_SYNCIO
}

// ErrBusy is returned by Queue when every slot is already queued.
var ErrBusy = errors.New("null: queue full")

// Open returns a null engine for s.Depth slots.
func Open(s engines.Setup) (engines.Engine, error) {
	if s.Depth <= 0 {
		return nil, fmt.Errorf("null: depth %d, need at least 1", s.Depth)
	}
	return &Engine{
		res:    make([]int32, s.Depth),
		queued: make([]uint32, s.Depth),
		done:   engines.NewDoneQueue(s.Depth),
		sync:   s.Depth == 1,
	}, nil
}

// SyncIO reports whether the engine is synchronous: at iodepth=1 fio's
// null engine completes every request in its queue hook (FIO_SYNCIO), so
// it takes no submission latency.
func (e *Engine) SyncIO() bool { return e.sync }

// Queue records r in slot.
func (e *Engine) Queue(slot uint32, r *engines.Request) error {
	if e.nq+e.done.Len() >= len(e.queued) {
		return ErrBusy
	}
	if int(slot) >= len(e.res) {
		return fmt.Errorf("null: slot %d out of range (depth %d)", slot, len(e.res))
	}
	switch r.Op {
	case engines.OpFsync, engines.OpFdatasync, engines.OpSyncFileRange:
		e.res[slot] = 0
	default:
		e.res[slot] = int32(len(r.Buf))
	}
	e.queued[e.nq] = slot
	e.nq++
	return nil
}

// Submit completes every queued request.
func (e *Engine) Submit() (int, error) {
	n := e.nq
	for i := 0; i < n; i++ {
		s := e.queued[i]
		e.done.Push(engines.Completion{Slot: s, Res: e.res[s]})
	}
	e.nq = 0
	if n > 0 {
		e.submits++
	}
	return n, nil
}

// Reap copies up to len(out) completions into out. It never blocks: every
// submitted request is already complete, so min only counts as a wait.
func (e *Engine) Reap(out []engines.Completion, min int) (int, error) {
	if min > 0 {
		e.waits++
	}
	return e.done.Pop(out), nil
}

// Close releases nothing; it exists for the interface.
func (e *Engine) Close() error { return nil }

// Stats returns the submit and wait call counts.
func (e *Engine) Stats() engines.Stats {
	return engines.Stats{SubmitCalls: e.submits, WaitCalls: e.waits}
}
