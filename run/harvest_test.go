package run

import (
	"testing"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/null"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// reapRecorder wraps an engine and remembers the largest reap but the
// last (the job's final reap takes everything left in flight).
type reapRecorder struct {
	engines.Engine
	most, last int
}

func (r *reapRecorder) Reap(out []engines.Completion, min int) (int, error) {
	n, err := r.Engine.Reap(out, min)
	if n > 0 {
		r.most = max(r.most, r.last)
		r.last = n
	}
	return n, err
}

// reapRun runs 1024 random reads at depth 16, submitted 16 at a time, on
// the null engine under another name (so fio's null rules do not apply),
// with the given tw_reap and completion batch limits, and returns the
// largest reap but the final one, and the result.
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
	// A clock that ticks once per reading: the in-flight mean is then a
	// mean over the loop's own steps, not over wall time, which a
	// preemption of the test while nothing is in flight can fill (mean
	// 0.15 at load 9 in a clean-clone CI run).
	clock := &fakeClock{step: 1}
	opts := clock.opts()
	opts.Engines = engs
	r := mustRun(t, []*jobfile.Job{j}, opts).Jobs[0]
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

// TestMapsCountedAsFio runs 4096 reads and counts the submit, complete and
// IO depths maps where the loop submits, reaps and commits, and compares
// them with what fio 3.33 printed for the same jobs (size=16m, bs=4k; its
// JSON percentages converted back to counts). The io_uring cases run on
// the null engine under another name, whose completions are all there
// when a reap asks, so every reap takes what fio's does.
func TestMapsCountedAsFio(t *testing.T) {
	tests := []struct {
		name                       string
		engine                     string
		depth, batch, cmin, cmax   int
		depthMap, submit, complete [7]uint64
	}{
		// --ioengine=io_uring --iodepth=16 --iodepth_batch_submit=8
		// --iodepth_batch_complete_min=4: IO depths 8=0.2% 16=99.8%,
		// submit 4=99.8% 8=0.2%, complete 4=99.9% (1021) 16=0.1% (1).
		{"io_uring batched", "uringlike", 16, 8, 4, 4,
			[7]uint64{3: 8, 4: 4088}, [7]uint64{1: 1020, 2: 2}, [7]uint64{1: 1021, 3: 1}},
		// fio's defaults at iodepth=16: 1, 2, 4, 8 once each while the
		// queue fills, then 16; the final reap takes the last 15.
		{"io_uring defaults", "uringlike", 16, 1, 1, 1,
			[7]uint64{0: 1, 1: 2, 2: 4, 3: 8, 4: 4081}, [7]uint64{1: 4096}, [7]uint64{1: 4081, 3: 1}},
		// --ioengine=null, batched: 8=100% everywhere (null returns every
		// committed event and refuses to queue while they are pending).
		{"null batched", "null", 16, 8, 4, 4,
			[7]uint64{3: 4096}, [7]uint64{2: 512}, [7]uint64{2: 512}},
		// --ioengine=null at iodepth=16: one I/O at a time, depth 1.
		{"null defaults", "null", 16, 1, 1, 1,
			[7]uint64{0: 4096}, [7]uint64{1: 4096}, [7]uint64{1: 4096}},
	}
	engs := map[string]engines.Opener{"uringlike": null.Open, "null": null.Open}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := nullJob(t, 4096, tt.depth, true)
			j.IOEngine = tt.engine
			j.IODepthBatchSubmit = tt.batch
			j.IODepthBatchCompleteMin, j.IODepthBatchCompleteMax = tt.cmin, tt.cmax
			// A clock that ticks once per reading: the in-flight mean is then a
			// mean over the loop's own steps, not over wall time, which a
			// preemption of the test while nothing is in flight can fill (mean
			// 0.15 at load 9 in a clean-clone CI run).
			clock := &fakeClock{step: 1}
			opts := clock.opts()
			opts.Engines = engs
			r := mustRun(t, []*jobfile.Job{j}, opts).Jobs[0]
			if r.IODepth != tt.depthMap {
				t.Errorf("IO depths %v, want %v", r.IODepth, tt.depthMap)
			}
			if r.Submit != tt.submit {
				t.Errorf("submit %v, want %v", r.Submit, tt.submit)
			}
			if r.Complete != tt.complete {
				t.Errorf("complete %v, want %v", r.Complete, tt.complete)
			}
		})
	}
}

// TestInFlightIsLittlesLaw checks the in-flight measure against the clat
// it must pair with: when every reap takes one CQE, each I/O counts in
// flight from its submit stamp to its reap stamp, which is its clat, so
// the area is the sum of the clats (the final reap's later completions
// read the clock a few ticks after it); and fio's null rules (no queueing
// while completions are pending) keep at most one I/O in flight at
// iodepth=16, as fio's null engine does.
func TestInFlightIsLittlesLaw(t *testing.T) {
	clock := &fakeClock{step: 1}
	opts := clock.opts()
	opts.Engines = map[string]engines.Opener{"uringlike": null.Open, "null": null.Open}
	j := nullJob(t, 4096, 16, true)
	j.IOEngine = "uringlike"
	r := mustRun(t, []*jobfile.Job{j}, opts).Jobs[0]
	clats := r.Dirs[0].Clat.Mean * float64(r.Dirs[0].Clat.N)
	t.Logf("in-flight area %d ticks over %d, sum of clats %.0f, mean in flight %.3f", r.InFlightArea, r.InFlightTime, clats, r.InFlightMean())
	if area := float64(r.InFlightArea); area > clats || area < clats*0.99 {
		t.Errorf("in-flight area %.0f ticks, want the sum of the clats (%.0f) or up to 1%% less", area, clats)
	}
	if m := r.InFlightMean(); m < 15 || m > 16 {
		t.Errorf("mean in flight %.2f at iodepth=16, want 15 to 16", m)
	}
	j = nullJob(t, 4096, 16, true)
	if m := mustRun(t, []*jobfile.Job{j}, opts).Jobs[0].InFlightMean(); m <= 0 || m > 1 {
		t.Errorf("null at iodepth=16: mean in flight %.2f, want at most 1 (fio's null engine runs one at a time)", m)
	}
}
