package openloop

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

// simulate runs n I/Os with Poisson intended times at rate lambda (per
// ns) through a timetable of depth slots served by depth servers of fixed
// service time s (ns), as a synchronous engine (depth 1) or an
// asynchronous one serves them: a free slot waits for the next intended
// time, a busy one takes it as soon as it is free. It returns the
// timetable's figures.
func simulate(t *testing.T, depth, n int, lambda, s float64, seed uint64) *Stats {
	t.Helper()
	tt := New(&jobfile.Job{OpenLoop: true}, depth)
	rng := rand.New(rand.NewPCG(seed, 1))
	free := make([]float64, depth) // when each slot's server is next free
	due := 0.0
	for k := 0; k < n; k++ {
		due += rng.ExpFloat64() / lambda
		// The slot that frees first takes the I/O.
		si := 0
		for i := range free {
			if free[i] < free[si] {
				si = i
			}
		}
		now := free[si]
		if now < due {
			tt.Wait(uint32(si)) // free before the I/O is due: it waits
			now = due
		}
		tt.Issue(uint32(si), jobfile.DirRead, int64(due), int64(now))
		free[si] = now + s
		tt.Complete(uint32(si), jobfile.DirRead, int64(free[si]))
	}
	return tt.Stats
}

// TestMD1Wait: one slot, Poisson intended times and a fixed service time
// make an M/D/1 queue, whose mean wait is rho/(2 mu (1-rho)) and whose
// share of I/Os that wait is rho. The response latency less the service
// time must give that mean within 5% (200,000 I/Os: the standard error of
// the mean wait is about 1% at rho 0.5 and 2% at rho 0.8), and the late
// share rho within 1.5 points.
func TestMD1Wait(t *testing.T) {
	const s = 1e6 // 1 ms service
	for _, rho := range []float64{0.3, 0.5, 0.8} {
		st := simulate(t, 1, 200000, rho/s, s, uint64(rho*100))
		d := &st.Dirs[jobfile.DirRead]
		wait := d.Response.Mean - s
		mu := 1 / s
		want := rho / (2 * mu * (1 - rho))
		if math.Abs(wait-want)/want > 0.05 {
			t.Errorf("rho %.1f: mean wait %.0f ns, M/D/1 gives %.0f ns", rho, wait, want)
		}
		late := float64(d.Late) / float64(d.Response.N)
		if math.Abs(late-rho) > 0.015 {
			t.Errorf("rho %.1f: %.3f of I/Os late, want rho", rho, late)
		}
		t.Logf("rho %.1f: mean wait %.0f ns (M/D/1 %.0f), late %.3f", rho, wait, want, late)
	}
}

// TestOverloadGrows: offered twice what one slot serves, the wait grows
// with every I/O (half the I/Os' service time each), none is dropped and
// every I/O after the first is late.
func TestOverloadGrows(t *testing.T) {
	const s, n = 1e6, 1000
	st := simulate(t, 1, n, 2/s, s, 7)
	d := &st.Dirs[jobfile.DirRead]
	if d.Response.N != n {
		t.Fatalf("%d responses, want %d: none dropped", d.Response.N, n)
	}
	// The k-th I/O waits about k*s/2: the mean is about n*s/4.
	if d.Response.Mean < 5*s || math.Abs(d.Response.Mean-n*s/4)/(n*s/4) > 0.2 {
		t.Errorf("mean response %.0f ns, want about %.0f", d.Response.Mean, n*s/4)
	}
	if d.Late < n*9/10 {
		t.Errorf("%d of %d late, want nearly all", d.Late, n)
	}
}

// TestDepthBoundsWaits: with as many slots as the offered load needs, no
// I/O is late and each response is its service time.
func TestDepthBoundsWaits(t *testing.T) {
	const s = 1e6
	tt := New(&jobfile.Job{OpenLoop: true}, 4)
	// Four I/Os due at once, four free slots: none late.
	for si := uint32(0); si < 4; si++ {
		tt.Issue(si, jobfile.DirWrite, 100, 100+int64(si))
	}
	// A fifth due at 200 finds every slot busy; slot 0 frees at 100+s.
	tt.Issue(0, jobfile.DirWrite, 200, 100+s)
	d := &tt.Stats.Dirs[jobfile.DirWrite]
	if d.Late != 1 || d.LateBy.Mean != s-100 {
		t.Errorf("late %d by %.0f, want 1 by %d", d.Late, d.LateBy.Mean, int64(s-100))
	}
	tt.Complete(0, jobfile.DirWrite, 100+2*s)
	if d.Response.Mean != 2*s-100 {
		t.Errorf("response %.0f, want %d: from the intended time", d.Response.Mean, int64(2*s-100))
	}
}

// TestLoopBehindIsNotLate: an I/O that goes out late because its slot
// issued the previous one only after this one's time (the loop slept
// past it) is not the target's doing: not counted late.
func TestLoopBehindIsNotLate(t *testing.T) {
	tt := New(&jobfile.Job{OpenLoop: true}, 1)
	tt.Issue(0, jobfile.DirRead, 0, 0)
	tt.Complete(0, jobfile.DirRead, 10)
	tt.Wait(0)
	tt.Issue(0, jobfile.DirRead, 100, 700) // overslept: due at 100, issued at 700
	tt.Complete(0, jobfile.DirRead, 710)
	tt.Issue(0, jobfile.DirRead, 200, 710) // due while the slot slept, not busy
	if l := tt.Stats.Dirs[jobfile.DirRead].Late; l != 0 {
		t.Errorf("%d late, want 0", l)
	}
}

// TestMergeAndReset: group_reporting adds the figures, the end of the ramp
// zeroes them.
func TestMergeAndReset(t *testing.T) {
	a := simulate(t, 1, 100, 2e-6, 1e6, 1)
	var m Stats
	m.Merge(a)
	m.Merge(a)
	if m.Dirs[0].Response.N != 200 || m.Dirs[0].Late != 2*a.Dirs[0].Late {
		t.Errorf("merged %d responses, %d late", m.Dirs[0].Response.N, m.Dirs[0].Late)
	}
	m.Merge(nil)
	tt := New(&jobfile.Job{OpenLoop: true}, 1)
	tt.Stats.Merge(a)
	tt.ResetStats()
	if tt.Stats.Dirs[0].Response.N != 0 {
		t.Error("ResetStats left figures")
	}
	if New(&jobfile.Job{}, 1) != nil {
		t.Error("a closed-loop job has a timetable")
	}
}
