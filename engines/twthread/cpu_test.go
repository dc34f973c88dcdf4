package twthread

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHoldCPU: the SQPOLL goroutines of two jobs are pinned to two
// different CPUs of the thread's allowed set, the highest first, and a
// CPU given back is taken again; a thread allowed one CPU pins nothing.
func TestHoldCPU(t *testing.T) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	if set.Count() < 2 {
		t.Skipf("the test process may run on %d CPU; pinning needs two", set.Count())
	}
	highest := -1
	for cpu := 0; cpu < len(set)*64; cpu++ {
		if set.IsSet(cpu) {
			highest = cpu
		}
	}
	a, okA := holdCPU()
	b, okB := holdCPU()
	if !okA || !okB || a != highest || b == a || !set.IsSet(b) {
		t.Fatalf("held %d (%v) and %d (%v), want %d, then another allowed CPU", a, okA, b, okB, highest)
	}
	releaseCPU(a)
	c, ok := holdCPU()
	if !ok || c != a {
		t.Fatalf("after giving %d back, held %d (%v)", a, c, ok)
	}
	releaseCPU(b)
	releaseCPU(c)

	// Allowed one CPU, a thread's goroutine is not pinned.
	done := make(chan string)
	go func() {
		runtimeLockedOne(t, highest, func() {
			if cpu, ok := holdCPU(); ok {
				releaseCPU(cpu)
				done <- "pinned to one of one CPU"
				return
			}
			done <- ""
		})
	}()
	if msg := <-done; msg != "" {
		t.Fatal(msg)
	}
}

// runtimeLockedOne runs f on a locked OS thread allowed only cpu; the
// thread is discarded afterwards (never unlocked), so that no other
// goroutine inherits its affinity.
func runtimeLockedOne(t *testing.T, cpu int, f func()) {
	runtime.LockOSThread()
	var one unix.CPUSet
	one.Set(cpu)
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		t.Error(err)
		return
	}
	f()
}
