package compare

import (
	"context"
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
