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
// engine is synchronous. Set up, it prints fio's line naming its mode, load
// and cycle on Setup.Info.
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
	engines.Sync
	load  int           // cpuload, percent
	cycle time.Duration // the last burn cycle
	qsort []int32       // cpumode=qsort's data, nil for noop
	now   func() time.Time
}

// Open returns a cpuio engine for the job's cpuload, cpuchunks and cpumode.
func Open(s engines.Setup) (engines.Engine, error) {
	j := s.Job
	if j == nil || optionsOf(j).CPULoad <= 0 {
		return nil, errors.New("cpuio: cpu thread needs rate (cpuload=)")
	}
	o := optionsOf(j)
	e := &Engine{load: min(o.CPULoad, 100), cycle: time.Duration(o.CPUChunks) * time.Microsecond, now: time.Now}
	var err error
	if e.Sync, err = engines.NewSync("cpuio", s.Depth, max(len(s.Files), 1), true, e.do); err != nil {
		return nil, err
	}
	if o.CPUMode == "qsort" {
		// fio's entropy: the multiply-with-carry generator from its seeds.
		e.qsort = make([]int32, qsortSize)
		w, z := uint32(521288629), uint32(362436069)
		for i := range e.qsort {
			z = 36969*(z&65535) + (z >> 16)
			w = 18000*(w&65535) + (w >> 16)
			e.qsort[i] = int32((z << 16) + w)
		}
	}
	if s.Info != nil {
		// fio's noop_init and qsort_init print it once the engine is set up.
		fmt.Fprintf(s.Info, "%s (%s): ioengine=cpuio, cpuload=%d, cpucycle=%d\n", j.Name, cmp.Or(o.CPUMode, "noop"), o.CPULoad, o.CPUChunks)
	}
	return e, nil
}

// ThinkTime returns the pause after a cycle: cycle x (100-load)/load.
func (e *Engine) ThinkTime() time.Duration {
	return e.cycle * time.Duration(100-e.load) / time.Duration(e.load)
}

// do burns one cycle for a read or write; a sync completes at once.
func (e *Engine) do(r *engines.Request) int32 {
	if r.Op.IsSync() {
		return 0
	}
	if e.qsort != nil {
		e.sortCycle()
	} else {
		e.spin()
	}
	return int32(len(r.Buf))
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

// Close releases the qsort data.
func (e *Engine) Close() error {
	e.qsort = nil
	return nil
}
