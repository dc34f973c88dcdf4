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
