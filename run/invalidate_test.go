package run

import (
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/jobfile"
)

// TestInvalidateEveryPass checks that invalidate=1 drops the page cache of
// a buffered file when the job opens it and again at the start of every
// further pass, as fio's do_io loop does, and never with direct=1 or
// invalidate=0.
func TestInvalidateEveryPass(t *testing.T) {
	var drops atomic.Int64
	fadvise := func(fd int, off, n int64, advice int) error {
		drops.Add(1)
		return unix.Fadvise(fd, off, n, advice)
	}

	tests := []struct {
		name       string
		invalidate bool
		direct     bool
		loops      int
		want       int64
	}{
		{"one pass: drop at open only", true, false, 1, 1},
		{"three passes: at open, then as passes 2 and 3 start", true, false, 3, 3},
		{"invalidate=0 never drops", false, false, 3, 0},
		{"direct=1 drops at open only", true, true, 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			drops.Store(0)
			j := testJob(t.TempDir(), "inv", jobfile.RWRandRead, "psync")
			j.Invalidate, j.Direct, j.Loops = tt.invalidate, tt.direct, tt.loops
			mustRun(t, []*jobfile.Job{j}, Options{fadvise: fadvise})
			if got := drops.Load(); got != tt.want {
				t.Errorf("page cache drops = %d, want %d", got, tt.want)
			}
		})
	}
}
