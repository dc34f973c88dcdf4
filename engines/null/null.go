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
// full length, a sync with 0. Its ring holds, in order from head, the
// completions of submitted requests not yet reaped, then those of the
// requests queued since the last Submit: Queue writes a request's
// completion in place, Submit only moves the boundary.
type Engine struct {
	ring    []engines.Completion
	head    int // oldest submitted completion
	done    int // submitted, not yet reaped
	nq      int // queued after them, not yet submitted
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
	return &Engine{ring: make([]engines.Completion, s.Depth), sync: s.Depth == 1}, nil
}

// SyncIO reports whether the engine is synchronous: at iodepth=1 fio's
// null engine completes every request in its queue hook (FIO_SYNCIO), so
// it takes no submission latency.
func (e *Engine) SyncIO() bool { return e.sync }

// Queue records r in slot.
func (e *Engine) Queue(slot uint32, r *engines.Request) error {
	if e.nq+e.done >= len(e.ring) {
		return ErrBusy
	}
	if int(slot) >= len(e.ring) {
		return fmt.Errorf("null: slot %d out of range (depth %d)", slot, len(e.ring))
	}
	res := int32(len(r.Buf))
	switch r.Op {
	case engines.OpFsync, engines.OpFdatasync, engines.OpSyncFileRange:
		res = 0
	}
	i := e.head + e.done + e.nq // each below len(e.ring), the sum below twice it: no division
	if i >= len(e.ring) {
		i -= len(e.ring)
	}
	e.ring[i] = engines.Completion{Slot: slot, Res: res}
	e.nq++
	return nil
}

// Submit completes every queued request.
func (e *Engine) Submit() (int, error) {
	n := e.nq
	e.done += n
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
	n := 0
	for ; n < len(out) && e.done > 0; n++ {
		out[n] = e.ring[e.head]
		e.head++
		if e.head == len(e.ring) {
			e.head = 0
		}
		e.done--
	}
	return n, nil
}

// Close releases nothing; it exists for the interface.
func (e *Engine) Close() error { return nil }

// Stats returns the submit and wait call counts.
func (e *Engine) Stats() engines.Stats {
	return engines.Stats{SubmitCalls: e.submits, WaitCalls: e.waits}
}
