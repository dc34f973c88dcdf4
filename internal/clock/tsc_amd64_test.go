package clock

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTSCHopRestoresAffinity checks that the cross-CPU test leaves the
// thread's CPU mask as it found it.
func TestTSCHopRestoresAffinity(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var before, after unix.CPUSet
	if err := unix.SchedGetaffinity(0, &before); err != nil {
		t.Skip(err)
	}
	ok := tscMonotonicAcrossCPUs(2)
	if err := unix.SchedGetaffinity(0, &after); err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Errorf("mask %v after the test (agreed %v), was %v", after, ok, before)
	}
}

// TestTSCHopRestoresNarrowedAffinity checks the same for a thread pinned
// to one CPU (a job's cpus_allowed), which the test moves over the
// process's CPUs all the same.
func TestTSCHopRestoresNarrowedAffinity(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var orig, one, after unix.CPUSet
	if err := unix.SchedGetaffinity(0, &orig); err != nil {
		t.Skip(err)
	}
	defer func() { _ = unix.SchedSetaffinity(0, &orig) }()
	for c := 0; c < len(orig)*64; c++ {
		if orig.IsSet(c) {
			one.Set(c)
			break
		}
	}
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		t.Skip(err)
	}
	tscMonotonicAcrossCPUs(2)
	if err := unix.SchedGetaffinity(0, &after); err != nil {
		t.Fatal(err)
	}
	if after != one {
		t.Errorf("mask %v after the test, was pinned to %v", after, one)
	}
}
