package target

import (
	"testing"

	"github.com/gofio/gofio/jobfile"
)

// TestFileLocksShared checks whose locks are shared: the jobs of one job
// section (a job and its numjobs clones) have the same lock for a file,
// another section's job its own, and a job with lockfile=none none.
func TestFileLocksShared(t *testing.T) {
	ex := &jobfile.Job{LockFile: "exclusive"}
	ts := []*Target{{Path: "/scratch/f"}}
	var reg LockRegistry
	a, a1, b := NewFileLocks(ex, ts, 0, &reg), NewFileLocks(ex, ts, 0, &reg), NewFileLocks(ex, ts, 2, &reg)
	if a == nil || a1 == nil || a.locks[0] != a1.locks[0] {
		t.Errorf("a's clone does not share a's lock")
	}
	if b == nil || b.locks[0] == a.locks[0] {
		t.Errorf("b shares a's lock or has none")
	}
	if c := NewFileLocks(&jobfile.Job{LockFile: "none"}, ts, 3, &reg); c != nil {
		t.Errorf("lockfile=none has locks")
	}
}
