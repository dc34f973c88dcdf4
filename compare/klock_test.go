package compare

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/gofio/gofio/internal/klock"
	"github.com/gofio/gofio/report"
)

// klockRun is fakeRun with kernel lock contention in every job: the
// priority side waits 20 ns an I/O (40 + the call number under FIFO),
// over 100 I/Os; the run numbered unavail could not trace.
func klockRun(f *fakeRun, unavail int) RunFunc {
	return func(ctx context.Context, sets []string) (*report.Result, error) {
		res, err := f.run(ctx, sets)
		if err != nil {
			return res, err
		}
		n := len(f.calls)
		j := res.Jobs[0]
		if n == unavail {
			j.KernelLocks = &klock.Locks{Reason: "no lock tracepoints"}
			return res, nil
		}
		wait := uint64(20)
		if !j.Job.TWPriority {
			wait = 40 + uint64(n)
		}
		l := &klock.Locks{Available: true, IOs: 100, CPUNs: 1_000_000}
		l.AddSite(klock.Site{Name: "io_wq_enqueue", Subsystem: klock.SubIOWQ, Count: 10, WaitNs: wait * 100, SpinNs: wait * 100})
		j.KernelLocks = l
		return res, nil
	}
}

// TestRunKernelLocks: each side of a row gets its runs' lock contention
// merged and their per-repeat waits, a run that could not trace adds
// nothing, and Judge gives the row a verdict on the wait per I/O.
func TestRunKernelLocks(t *testing.T) {
	f := &fakeRun{}
	ab := DefaultAB
	c, err := Run(context.Background(), Plan(nil, &ab, 5), &ab, klockRun(f, 2), nil)
	if err != nil {
		t.Fatal(err)
	}
	Judge(c, "")
	r := c.Rows[0]
	n, o := r.New.KLock, r.Old.KLock
	if !n.Measured() || !o.Measured() || n.WaitNsPerIO != 20 || len(n.Repeats)+len(o.Repeats) != 9 {
		t.Fatalf("sides: new %+v old %+v", n, o)
	}
	if n.ContentionsPerIO != 0.1 || n.IOWQShare != 1 || n.Sites[0].Name != "io_wq_enqueue" {
		t.Fatalf("new side: %+v", n)
	}
	if s := r.KLockStats; s == nil || s.Metric != report.KLockMetric || s.Verdict != report.VerdictFaster ||
		report.KLockVerdict(s) != "less contention" {
		t.Fatalf("verdict: %+v", r.KLockStats)
	}
	plain, err := Run(context.Background(), Plan(nil, &ab, 1), &ab, (&fakeRun{}).run, nil)
	if err != nil {
		t.Fatal(err)
	}
	Judge(plain, "")
	if plain.HasKLock() || plain.Rows[0].KLockStats != nil {
		t.Fatal("an untraced run has kernel locks")
	}
}

// TestRoundsKernelLocks: a comparison in rounds judges each row's lock
// wait per I/O paired round by round (the signed-rank test), once and
// ungated, whether or not the latency is gated; a round one side could
// not trace is left out of the pairs.
func TestRoundsKernelLocks(t *testing.T) {
	for _, gated := range []bool{false, true} {
		f := &fakeRun{}
		d := Design{Rows: 1, MinRounds: 12, GateMetric: report.GateAvg, Gated: gated, ThresholdPct: 5}
		rs := Rounds{Design: d, Rand: rand.New(rand.NewPCG(1, 1))}
		c, err := rs.Run(context.Background(), nil, &DefaultAB, klockRun(f, 3), nil)
		if err != nil {
			t.Fatal(err)
		}
		r := c.Rows[0]
		s := r.KLockStats
		// 12 rounds, the third run (one side of round 2) untraced: 11 pairs.
		if s == nil || !s.Paired || s.Metric != report.KLockMetric || s.Verdict != report.VerdictFaster || !s.HasInterval() ||
			s.NewN != 11 || s.OldN != 11 {
			t.Fatalf("gated %v: lock verdict %+v (new %d, old %d traced rounds)", gated, s, len(r.New.KLock.Repeats), len(r.Old.KLock.Repeats))
		}
	}
}
