package run

import (
	"runtime"
	"testing"
)

// TestReserveProcs checks that GOMAXPROCS grows to one P per job plus one,
// never shrinks, and is left alone past maxReservedProcs.
func TestReserveProcs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	tests := []struct {
		jobs  int
		ok    bool
		procs int // GOMAXPROCS afterwards
	}{
		{1, true, 2},                       // already enough: unchanged
		{5, true, 6},                       // grows to jobs+1
		{3, true, 6},                       // never shrinks
		{maxReservedProcs, false, 6},       // past the bound: left alone
		{maxReservedProcs - 1, true, 1024}, // at the bound
	}
	for _, tt := range tests {
		if ok := reserveProcs(tt.jobs); ok != tt.ok {
			t.Errorf("reserveProcs(%d) = %v, want %v", tt.jobs, ok, tt.ok)
		}
		if got := runtime.GOMAXPROCS(0); got != tt.procs {
			t.Errorf("after reserveProcs(%d): GOMAXPROCS %d, want %d", tt.jobs, got, tt.procs)
		}
	}
}
