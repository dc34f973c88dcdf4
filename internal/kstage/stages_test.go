package kstage

import (
	"testing"

	"github.com/gofio/gofio/internal/fiostat"
)

// TestMerge checks that merging two jobs adds their counts and histograms,
// and that a group is available when a member was.
func TestMerge(t *testing.T) {
	k := &KernelStages{Available: true, Traced: 5}
	for i := uint64(1); i <= 4; i++ {
		d := [NumStages]uint64{1000 * i, 2000 * i, 3000 * i, 4000 * i, 5000 * i, 6000 * i}
		k.Add(&d)
	}
	k.Unjoined[LossIOWQ] = 1
	m := &KernelStages{Reason: "not root"}
	m.Merge(k)
	m.Merge(k)
	if !m.Available || m.Reason != "" || m.Traced != 10 || m.Joined != 8 || m.Unjoined[LossIOWQ] != 2 || m.Stages[Reap].N != 8 || m.Hists[Reap][fiostat.HistIndex(6000)] != 2 {
		t.Fatalf("merged: traced %d joined %d", m.Traced, m.Joined)
	}
	if m.JoinRate() != 0.8 {
		t.Fatalf("join rate %v, want 0.8", m.JoinRate())
	}
}
