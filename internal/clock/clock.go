package clock

import (
	"math"
	"math/bits"
	"sync"
	"time"
	_ "unsafe" // for go:linkname
)

// Nanotime is the runtime's monotonic clock (vDSO CLOCK_MONOTONIC, in ns
// from an arbitrary origin). It is what time.Since reads underneath, less
// the synctest bubble check and the Time arithmetic around it.
//
//go:linkname Nanotime runtime.nanotime
func Nanotime() int64

// TSC turns time stamp counter readings into nanoseconds, as fio's
// clocksource=cpu does: ns = baseNs + (tsc - baseTSC) * mult / 2^32. A
// vDSO clock_gettime costs about 23 ns of CPU on the KVM test VM and an
// RDTSC about 9; the loop reads the clock three times per I/O.
type TSC struct {
	baseTSC uint64
	baseNs  int64
	mult    uint64 // ns per tick, 32.32 fixed point
}

// Now returns the time in ns on the nanotime scale.
func (c *TSC) Now() int64 { return c.ns(rdtsc()) }

// Ticks reads the counter; FromTicks turns a reading into Now's ns. The
// two inline into a caller, so that a hot path pays for the RDTSC call
// alone.
func Ticks() uint64 { return rdtsc() }

// FromTicks converts a Ticks reading to ns on the nanotime scale.
func (c *TSC) FromTicks(tick uint64) int64 { return c.ns(tick) }

// ns converts a counter reading to ns. A reading below the base (another
// CPU's counter a few ticks behind) counts as the base; the 128-bit
// product does not overflow for centuries of ticks.
func (c *TSC) ns(tick uint64) int64 {
	d := tick - c.baseTSC
	if int64(d) < 0 {
		d = 0
	}
	hi, lo := bits.Mul64(d, c.mult)
	return c.baseNs + int64(hi<<32|lo>>32)
}

var (
	tscOnce sync.Once
	tscCal  *TSC // nil: use nanotime
)

// ProcessTSC returns the calibrated TSC clock, calibrating it on the first
// call (about 10 ms), or nil where the counter is not a usable clock: not
// amd64, no invariant TSC, counters that disagree between CPUs (where the
// kernel does not use the TSC as its clocksource), or a reading no cheaper
// than nanotime.
func ProcessTSC() *TSC {
	tscOnce.Do(func() {
		if tscUsable() {
			tscCal = calibrateTSC(10 * time.Millisecond)
		}
	})
	return tscCal
}

// tscPair reads nanotime and the counter together: of five tries, the one
// whose two nanotime readings around the counter lie closest, with the
// counter matched to their midpoint.
func tscPair() (ns int64, tick uint64) {
	best := int64(math.MaxInt64)
	for i := 0; i < 5; i++ {
		a := Nanotime()
		t := rdtsc()
		b := Nanotime()
		if b-a < best {
			best, ns, tick = b-a, a+(b-a)/2, t
		}
	}
	return ns, tick
}

// calibrateTSC measures the counter's rate against nanotime over span and
// returns the clock, or nil when the counter did not advance sensibly or
// is not cheaper to read than nanotime.
func calibrateTSC(span time.Duration) *TSC {
	if !tscCheaper() {
		return nil
	}
	n0, t0 := tscPair()
	time.Sleep(span)
	n1, t1 := tscPair()
	if t1 <= t0 || n1 <= n0 {
		return nil
	}
	mult := (uint64(n1-n0) << 32) / (t1 - t0)
	if mult == 0 {
		return nil
	}
	return &TSC{baseTSC: t1, baseNs: n1, mult: mult}
}

// tscCheaper reports whether reading the counter costs less than nanotime.
// Each is timed over 1000 reads, 7 times, and the fastest time of each is
// compared: a preemption or an interrupt only makes a trial slower, so one
// trial each (as before) chose nanotime in about 1 process start in 40 on
// an idle machine, and more often under load, which made the loop's cost
// per I/O bimodal (perfguard and compare-fio saw runs at twice the CPU).
func tscCheaper() bool {
	const n, trials = 1000, 7
	best := func(read func()) int64 {
		m := int64(math.MaxInt64)
		for t := 0; t < trials; t++ {
			a := Nanotime()
			for i := 0; i < n; i++ {
				read()
			}
			m = min(m, Nanotime()-a)
		}
		return m
	}
	return best(func() { _ = rdtsc() }) < best(func() { _ = Nanotime() })
}

// Func returns the clock of the SQPOLL goroutine's tw waits: fake when
// the run's is, else the calibrated TSC or nanotime. Its readings are only
// subtracted from each other on that goroutine.
func Func(fake func() int64) func() int64 {
	if fake != nil {
		return fake
	}
	if c := ProcessTSC(); c != nil {
		return c.Now
	}
	return Nanotime
}
