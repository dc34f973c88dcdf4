package ktrace

import (
	"testing"

	"github.com/gofio/gofio/internal/kstage"
)

// TestReapAllocatesNothing reaps joined records, with and without an
// OnJoin hook, and checks that a reap allocates nothing and counts the
// I/O's stages.
func TestReapAllocatesNothing(t *testing.T) {
	for _, hook := range []bool{false, true} {
		st := &kstage.KernelStages{Available: true}
		s := &shared{recs: make([]record, 4), cnt: &counters{}, st: st}
		var seen [kstage.NumStages]uint64
		if hook {
			s.onJoin = func(_ Reap, d *[kstage.NumStages]uint64) { seen = *d }
		}
		allocs := testing.AllocsPerRun(100, func() {
			s.recs[2] = record{Submit: 110, Bio: 120, Issue: 130, Done: 140, CQE: 150, State: stateJoined}
			s.reap(2, 100, 160)
		})
		if allocs != 0 {
			t.Errorf("hook %v: %.1f allocations a reap, want 0", hook, allocs)
		}
		if st.Joined != 101 || st.Stages[0].Mean != 10 || st.Stages[5].Mean != 10 {
			t.Errorf("hook %v: joined %d, enter mean %v, reap mean %v; want 101, 10, 10", hook, st.Joined, st.Stages[0].Mean, st.Stages[5].Mean)
		}
		if hook && seen != [kstage.NumStages]uint64{10, 10, 10, 10, 10, 10} {
			t.Errorf("OnJoin saw %v", seen)
		}
	}
}
