package run

import (
	"testing"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/null"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// reapRecorder wraps an engine and remembers the largest harvest.
type reapRecorder struct {
	engines.Engine
	most int
}

func (r *reapRecorder) Reap(out []engines.Completion, min int) (int, error) {
	n, err := r.Engine.Reap(out, min)
	r.most = max(r.most, n)
	return n, err
}

// reapRun runs 1024 random reads at depth 16, submitted 16 at a time, on
// the null engine under another name (so fio's null rules do not apply),
// with the given tw_reap and completion batch limits, and returns the
// largest reap and the result.
func reapRun(t *testing.T, reap string, completeMin, completeMax int) (int, *report.JobResult) {
	t.Helper()
	rec := &reapRecorder{}
	engs := map[string]engines.Opener{"rec": func(s engines.Setup) (engines.Engine, error) {
		e, err := null.Open(s)
		rec.Engine = e
		return rec, err
	}}
	j := nullJob(t, 1024, 16, false)
	j.IOEngine = "rec"
	j.IODepthBatchSubmit = 16
	j.IODepthBatchCompleteMin, j.IODepthBatchCompleteMax = completeMin, completeMax
	j.TWReap = reap
	r := mustRun(t, []*jobfile.Job{j}, Options{Engines: engs}).Jobs[0]
	if r.TWWait.N != 1024 || r.Dirs[0].Clat.N != 1024 {
		t.Errorf("tw_reap=%s: %d tw wait and %d clat samples, want one per I/O (1024)", reap, r.TWWait.N, r.Dirs[0].Clat.N)
	}
	return rec.most, r
}

// TestHarvestTakesEveryCQE checks that under tw_reap=all a harvest is the
// whole CQ, not iodepth_batch_complete_max of it: 16 requests submitted
// at once are harvested at once although fio's default max is 1.
func TestHarvestTakesEveryCQE(t *testing.T) {
	if most, _ := reapRun(t, "all", 1, 0); most != 16 {
		t.Errorf("largest harvest %d CQEs, want all 16 in flight", most)
	}
}

// TestReapAsFio checks that under tw_reap=fio a reap takes at most
// iodepth_batch_complete_max CQEs (fio's default: min 1, so max 1), and at
// least the min when the min is above the max, as fio's td_io_getevents;
// the null engine's completions are all ready, so every reap is full.
func TestReapAsFio(t *testing.T) {
	for _, c := range []struct{ min, max, want int }{{1, 0, 1}, {4, 0, 4}, {2, 8, 8}, {8, 4, 8}} {
		most, r := reapRun(t, "fio", c.min, c.max)
		if most != c.want {
			t.Errorf("iodepth_batch_complete_min=%d max=%d: largest reap %d CQEs, want %d", c.min, c.max, most, c.want)
		}
		if m := r.InFlightMean(); m < 1 || m > 16 {
			t.Errorf("iodepth_batch_complete_min=%d max=%d: mean in flight %.2f, want within 1..16", c.min, c.max, m)
		}
	}
}

// TestCompletionWaitsBehindHeavyUnderFIFO runs the patch's timeline on the
// null engine with a clock that ticks once per reading: every request
// completes at its submit and the harvest after the heavy item that
// submitted it finds the CQE while the other slots' heavy items are still
// queued. Under FIFO the completion runs after them (tw wait > 0 for every
// completion); under priority the first completion of each harvest runs
// next, with tw wait 0.
func TestCompletionWaitsBehindHeavyUnderFIFO(t *testing.T) {
	for _, prio := range []bool{true, false} {
		j := nullJob(t, 4096, 8, prio)
		j.TWReap = "all"
		clock := &fakeClock{step: 1}
		r := mustRun(t, []*jobfile.Job{j}, clock.opts()).Jobs[0]
		if r.TWWait.N != 4096 {
			t.Fatalf("priority=%v: %d tw wait samples, want 4096", prio, r.TWWait.N)
		}
		t.Logf("priority=%v: tw wait min %d mean %.1f max %d ticks", prio, r.TWWait.Min, r.TWWait.Mean, r.TWWait.Max)
		if prio && r.TWWait.Min != 0 {
			t.Errorf("priority: shortest tw wait %d ticks, want 0 (a harvest's first completion runs next)", r.TWWait.Min)
		}
		// The other 7 slots' heavy items were queued ahead of it, and each
		// reads the clock at least once.
		if !prio && r.TWWait.Min < 7 {
			t.Errorf("fifo: shortest tw wait %d ticks, want >= 7 (behind the 7 queued heavy items)", r.TWWait.Min)
		}
	}
}
