// Package canary measures the runner itself with fixed work, so that a
// result carries, beside the job's figures, figures that only the runner
// can move: a CPU item (dependent integer arithmetic), a memory item (a
// pointer chase through a buffer larger than a core's caches) and, passed
// in by the caller, a burst of I/O on the null engine through gofio's own
// event loop. A run reads the canary before and after its job (Record);
// compare judges whether it moved between runs.
//
// Its rules: the work of every item is fixed, never scaled to the
// machine, so that a slower runner reads slower; each figure is wall time
// per unit of work, as the job's latency and IOPS are; the items run in
// turn, rep by rep, so that a change of the machine meanwhile falls on all
// of them; and a reading costs well under a second (Reading.CostMs says
// what it took).
package canary

import (
	"context"
	"fmt"
	"time"
)

// The standard items' names, as Reading.Figures keys them.
const (
	ItemCPU  = "cpu"  // ns per round of the CPU item
	ItemMem  = "mem"  // ns per load of the memory item
	ItemNull = "null" // ns per I/O of the null-engine burst
)

// Item is one fixed work item: Run does the work once and returns its
// figure, wall nanoseconds per unit of work.
type Item struct {
	Name string
	Run  func(ctx context.Context) (float64, error)
}

// Reading is one reading of the canary: each item's figures, rep by rep.
type Reading struct {
	At time.Time `json:"at"`
	// Figures holds each item's per-rep figures (ns per unit), by item
	// name.
	Figures map[string][]float64 `json:"figures"`
	// CostMs is the wall time the reading took, milliseconds.
	CostMs float64 `json:"cost_ms"`
}

// Record is a run's canary: a reading before its first job and one after
// its last.
type Record struct {
	Before *Reading `json:"before"`
	After  *Reading `json:"after"`
}

// Pooled returns item's figures of both readings, before then after.
func (r *Record) Pooled(item string) []float64 {
	var out []float64
	for _, rd := range []*Reading{r.Before, r.After} {
		if rd != nil {
			out = append(out, rd.Figures[item]...)
		}
	}
	return out
}

// Reps is how many times a reading runs each item; MinReps how many it
// runs at least when it overruns Budget.
const (
	Reps    = 5
	MinReps = 3
)

// Budget is the wall time after which a reading that has MinReps of every
// item stops: on a quiet machine a reading takes well under it (five reps
// of about 14 ms), and a busy one, which slows the fixed work several-fold,
// still costs the run well under a second in all.
const Budget = 200 * time.Millisecond

// Runner reads the canary: Items, Reps times each, in turn.
type Runner struct {
	Items []Item
	Reps  int // 0 means Reps
	// Budget is the wall time after which a reading stops at MinReps;
	// 0 means Budget, < 0 no limit.
	Budget time.Duration
}

// Read takes one reading: Reps rounds of every item, or as many as fit
// in the budget once MinReps rounds are done.
func (r *Runner) Read(ctx context.Context) (*Reading, error) {
	start := time.Now()
	reps := r.Reps
	if reps <= 0 {
		reps = Reps
	}
	budget := r.Budget
	if budget == 0 {
		budget = Budget
	}
	rd := &Reading{At: start.UTC(), Figures: map[string][]float64{}}
	for i := 0; i < reps; i++ {
		if i >= MinReps && budget > 0 && time.Since(start) > budget {
			break
		}
		for _, it := range r.Items {
			v, err := it.Run(ctx)
			if err != nil {
				return nil, fmt.Errorf("canary %s: %w", it.Name, err)
			}
			rd.Figures[it.Name] = append(rd.Figures[it.Name], v)
		}
	}
	rd.CostMs = float64(time.Since(start).Microseconds()) / 1000
	return rd, nil
}

// CPURounds is the CPU item's fixed work: rounds of a dependent
// xorshift-multiply step, about 7 ms on a 3 GHz core: longer than a
// scheduler time slice, so that a rep shares its core with whatever else
// runs there rather than fitting between its turns.
const CPURounds = 1 << 21

// CPUItem is the CPU item: CPURounds rounds of dependent integer
// arithmetic, which no core can overlap, timed; its figure is ns per
// round.
func CPUItem() Item {
	var sink uint64
	return Item{Name: ItemCPU, Run: func(context.Context) (float64, error) {
		start := time.Now()
		x := sink | 1
		for i := 0; i < CPURounds; i++ {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			x = x*0x9E3779B97F4A7C15 + 1
		}
		d := time.Since(start)
		sink = x
		return float64(d.Nanoseconds()) / CPURounds, nil
	}}
}

// MemBytes is the memory item's buffer, larger than the L2 cache of any
// current core and most of a shared L3's slice; MemLoads the loads of one
// rep.
const (
	MemBytes = 8 << 20
	MemLoads = 1 << 14
)

// MemItem is the memory item: MemLoads dependent loads that follow one
// cycle through a MemBytes buffer, timed; its figure is ns per load. The
// cycle is a full-period linear congruential sequence, i -> (a·i + c) mod
// n, so every load's address is the value the last one read: no prefetcher
// can run ahead of it, every run chases the same cycle, and the buffer is
// filled in one sequential pass on the first rep.
func MemItem() Item {
	var next []uint32
	var at uint32
	return Item{Name: ItemMem, Run: func(context.Context) (float64, error) {
		if next == nil {
			next = cycle(MemBytes / 4)
		}
		start := time.Now()
		p := at
		for i := 0; i < MemLoads; i++ {
			p = next[p]
		}
		d := time.Since(start)
		at = p
		return float64(d.Nanoseconds()) / MemLoads, nil
	}}
}

// cycle returns next[i] = (a·i + c) mod n for n a power of two, with a ≡ 1
// (mod 4) and c odd: by the Hull–Dobell theorem that map has full period,
// so following it from any index visits all n before returning. a is
// about n·0.618, so consecutive loads land far apart.
func cycle(n int) []uint32 {
	a := uint64(float64(n)*0.6180339887)&^3 | 1
	const c = 12345
	p := make([]uint32, n)
	for i := range p {
		p[i] = uint32((a*uint64(i) + c) & uint64(n-1))
	}
	return p
}
