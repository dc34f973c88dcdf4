// Package cpuio is gofio's cpuio engine, fio's engines/cpu.c: it moves no
// data and burns CPU. Each request is one burn cycle: with cpumode=noop a
// busy loop of cpuchunks microseconds, with cpumode=qsort four sorts of
// 256 Ki 32-bit integers (ascending, descending, by byte, descending), as
// fio's do_qsort. Between cycles the job thinks (sleeps) for
// cycle x (100 - cpuload) / cpuload, so the thread is busy cpuload% of the
// time; the qsort mode measures each cycle and sets the next think time
// from it, as fio does. ThinkTime gives the run core that pause.
//
// Like fio's FIO_NOIO engine the requests count as I/Os but move no bytes
// (the run core knows cpuio as such from jobfile's engine table), and the
// engine is synchronous.
package cpuio

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"
	"unsafe"

	"github.com/gofio/gofio/engines"
)

// qsortSize is the number of 32-bit integers fio's qsort mode sorts.
const qsortSize = 256 << 10

// Engine burns one cycle per request.
type Engine struct {
	load    int           // cpuload, percent
	cycle   time.Duration // the last burn cycle
	qsort   []int32       // cpumode=qsort's data, nil for noop
	now     func() time.Time
	queued  []uint32
	nq      int
	done    engines.DoneQueue
	lens    []int32
	submits uint64
}

// ErrBusy is returned by Queue when every slot is already queued.
var ErrBusy = errors.New("cpuio: queue full")

// Open returns a cpuio engine for the job's cpuload, cpuchunks and cpumode.
func Open(s engines.Setup) (engines.Engine, error) {
	if s.Depth <= 0 {
		return nil, fmt.Errorf("cpuio: depth %d, need at least 1", s.Depth)
	}
	j := s.Job
	if j == nil || j.CPULoad <= 0 {
		return nil, errors.New("cpuio: cpu thread needs rate (cpuload=)")
	}
	e := &Engine{load: min(j.CPULoad, 100), cycle: time.Duration(j.CPUChunks) * time.Microsecond, now: time.Now,
		queued: make([]uint32, s.Depth), done: engines.NewDoneQueue(s.Depth), lens: make([]int32, s.Depth)}
	if j.CPUMode == "qsort" {
		// fio's entropy: the multiply-with-carry generator from its seeds.
		e.qsort = make([]int32, qsortSize)
		w, z := uint32(521288629), uint32(362436069)
		for i := range e.qsort {
			z = 36969*(z&65535) + (z >> 16)
			w = 18000*(w&65535) + (w >> 16)
			e.qsort[i] = int32((z << 16) + w)
		}
	}
	return e, nil
}

// SyncIO reports that requests complete inside Submit.
func (e *Engine) SyncIO() bool { return true }

// ThinkTime returns the pause after a cycle: cycle x (100-load)/load.
func (e *Engine) ThinkTime() time.Duration {
	return e.cycle * time.Duration(100-e.load) / time.Duration(e.load)
}

// Queue records a request in slot; the burn happens at Submit.
func (e *Engine) Queue(slot uint32, r *engines.Request) error {
	if e.nq+e.done.Len() >= len(e.queued) {
		return ErrBusy
	}
	if int(slot) >= len(e.lens) {
		return fmt.Errorf("cpuio: slot %d out of range (depth %d)", slot, len(e.lens))
	}
	e.lens[slot] = int32(len(r.Buf))
	if r.Op == engines.OpFsync || r.Op == engines.OpFdatasync {
		e.lens[slot] = 0
	}
	e.queued[e.nq] = slot
	e.nq++
	return nil
}

// Submit burns one cycle per queued request.
func (e *Engine) Submit() (int, error) {
	n := e.nq
	for i := 0; i < n; i++ {
		if e.qsort != nil {
			e.sortCycle()
		} else {
			e.spin()
		}
		s := e.queued[i]
		e.done.Push(engines.Completion{Slot: s, Res: e.lens[s]})
	}
	e.nq = 0
	if n > 0 {
		e.submits++
	}
	return n, nil
}

// spin busy-waits for one cycle, as fio's usec_spin.
func (e *Engine) spin() {
	end := e.now().Add(e.cycle)
	for e.now().Before(end) {
	}
}

// sortCycle runs fio's four sorts and makes their time the cycle.
func (e *Engine) sortCycle() {
	start := e.now()
	d := e.qsort
	slices.Sort(d)
	slices.SortFunc(d, func(a, b int32) int { return cmp.Compare(b, a) })
	bytes := unsafe.Slice((*int8)(unsafe.Pointer(&d[0])), 4*len(d))
	slices.Sort(bytes) // fio re-orders the data by signed byte

	slices.SortFunc(d, func(a, b int32) int { return cmp.Compare(b, a) })
	e.cycle = e.now().Sub(start)
}

// Reap copies up to len(out) completions into out; it never blocks.
func (e *Engine) Reap(out []engines.Completion, min int) (int, error) {
	return e.done.Pop(out), nil
}

// Close releases the qsort data.
func (e *Engine) Close() error {
	e.qsort = nil
	return nil
}

// Stats returns the submit call count.
func (e *Engine) Stats() engines.Stats { return engines.Stats{SubmitCalls: e.submits} }
