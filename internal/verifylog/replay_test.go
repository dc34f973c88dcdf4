package verifylog

import (
	"strings"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

// TestReplayPathPerClone checks fio's get_name_by_idx: clone N of a job
// with read_iolog=a:b replays the N-th log, round robin, and only one
// job may read standard input.
func TestReplayPathPerClone(t *testing.T) {
	for i, want := range []string{"a.log", "b.log", "a.log"} {
		j := &jobfile.Job{Name: "r", SubjobNumber: i}
		j.IOLog.Read = "a.log:b.log"
		if got := ReplayPath(j); got != want {
			t.Errorf("clone %d replays %s, want %s", i, got, want)
		}
	}
	a, b := &jobfile.Job{Name: "a"}, &jobfile.Job{Name: "b"}
	a.IOLog.Read, b.IOLog.Read = "-", "-"
	if err := CheckReplayStdin([]*jobfile.Job{a}); err != nil {
		t.Errorf("one stdin reader refused: %v", err)
	}
	if err := CheckReplayStdin([]*jobfile.Job{a, b}); err == nil || !strings.Contains(err.Error(), "only one user of stdin") {
		t.Errorf("two stdin readers: %v", err)
	}
}
