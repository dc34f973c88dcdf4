package run

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/aclements/go-moremath/stats"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// fixedServiceEngine is an engine whose every request takes exactly
// service ns of a fake clock, the loop's own (Options.now). Submit hands
// each request to the server at the clock's time; the request completes
// service later, or, with one server (fifo), service after the request
// before it completed if that is later. A synchronous engine runs the
// request inside Submit, moving the clock on by its service, as psync's
// pread does; an asynchronous one moves the clock on when a Reap waits
// for a completion that is not due yet, to its time, or, in ReapTimeout,
// to the end of the time limit if that comes first, as io_uring's timed
// wait does.
type fixedServiceEngine struct {
	clock    *fakeClock
	service  int64
	sync     bool
	fifo     bool
	lens     []int32  // per slot: the length of the request queued in it
	queued   []uint32 // queued, not yet submitted
	flight   []flying // submitted, in the order they complete
	lastDone int64
}

// flying is a submitted request: its slot and when it completes.
type flying struct {
	slot uint32
	done int64
}

func (e *fixedServiceEngine) Queue(slot uint32, r *engines.Request) error {
	e.lens[slot] = int32(len(r.Buf))
	e.queued = append(e.queued, slot)
	return nil
}

func (e *fixedServiceEngine) Submit() (int, error) {
	n := len(e.queued)
	for _, slot := range e.queued {
		start := e.clock.t.Load()
		if e.fifo {
			start = max(start, e.lastDone)
		}
		e.lastDone = start + e.service
		if e.sync {
			e.clock.t.Store(e.lastDone)
		}
		e.flight = append(e.flight, flying{slot, e.lastDone})
	}
	e.queued = e.queued[:0]
	return n, nil
}

func (e *fixedServiceEngine) Reap(out []engines.Completion, want int) (int, error) {
	return e.ReapTimeout(out, want, -1)
}

// ReapTimeout waits, on the fake clock, until want requests have completed
// or limit ns have passed (no limit when negative), then returns what has
// completed.
func (e *fixedServiceEngine) ReapTimeout(out []engines.Completion, want int, limit time.Duration) (int, error) {
	now := e.clock.t.Load()
	if want > 0 && len(e.flight) > 0 {
		due := e.flight[min(want, len(e.flight))-1].done
		if limit >= 0 {
			due = min(due, now+int64(limit))
		}
		now = max(now, due)
		e.clock.t.Store(now)
	}
	k := 0
	for k < len(out) && k < len(e.flight) && e.flight[k].done <= now {
		out[k] = engines.Completion{Slot: e.flight[k].slot, Res: e.lens[e.flight[k].slot]}
		k++
	}
	e.flight = e.flight[k:]
	return k, nil
}

func (e *fixedServiceEngine) CanReapTimeout() bool { return !e.sync }
func (e *fixedServiceEngine) SyncIO() bool         { return e.sync }
func (e *fixedServiceEngine) Close() error         { return nil }

// md1Run is one open-loop run against a fixedServiceEngine: the engine
// fio's job names (psync or io_uring, whose facts the loop follows), the
// engine's own kind, the depth, the rate and the seed of its Poisson
// times.
type md1Run struct {
	engine      string
	sync, fifo  bool
	depth, iops int
	seed        int
}

// run runs r for n I/Os' worth of time at a fixed service of service ns,
// reading one file in dir, and returns the job's result.
func (r md1Run) run(t *testing.T, dir string, service int64, n int) *report.JobResult {
	t.Helper()
	runtime := time.Duration(n) * time.Second / time.Duration(r.iops)
	text := fmt.Sprintf("[md1]\nioengine=%s\nfilename=%s\nrw=randread\nsize=1m\niodepth=%d\nopen_loop=1\nrate_iops=%d\nrate_process=poisson\nrandseed=%d\ntime_based=1\nruntime=%dms\n",
		r.engine, filepath.Join(dir, "md1"), r.depth, r.iops, r.seed, runtime.Milliseconds())
	clock := &fakeClock{}
	opts := clock.opts()
	opts.Engines = map[string]engines.Opener{r.engine: func(s engines.Setup) (engines.Engine, error) {
		return &fixedServiceEngine{clock: clock, service: service, sync: r.sync, fifo: r.fifo, lens: make([]int32, s.Depth)}, nil
	}}
	return mustRun(t, parseJobs(t, dir, text), opts).Jobs[0]
}

// TestOpenLoopMD1Exact checks open_loop=1 against queueing theory on a
// target whose service time is exactly D on the loop's own clock: an
// injected engine on a fake clock, so that nothing but the loop's
// scheduling sets the figures. Poisson intended times served one at a
// time (iodepth=1, psync's way) make an M/D/1 queue: at utilisation rho
// its mean wait is rho/(2 mu (1-rho)) with mu = 1/D, and by PASTA a share
// rho of the I/Os find the server busy, which the loop counts as late.
//
// At each rho of 0.3, 0.5 and 0.8 the job runs K = 20 times for 20,000
// I/Os each with seeds 1..K, independent replications: the mean of
// their mean waits must lie within t(K-1, 0.9995) = 3.88 of their
// standard errors of M/D/1's value (a two-sided 99.9% interval), and so
// must the late share of rho. A replication's mean wait has a standard
// deviation of 2.1%, 2.5% and 5.3% of the value at the three rhos
// (simulated: 200 replications of the Lindley recursion), so the
// tolerance is about 2%, 2.5% and 4.5% of it (measured: 5.4, 15.7 and
// 75 us of 214, 500 and 2,000); the bias of starting empty is 0.02%,
// 0.1% and 0.2%, far inside it. The run is deterministic: the seeds fix
// it, and it takes about a second.
//
// The other ways the loop serves an open-loop job must give the very
// same queue, so their figures must equal the psync run's for seed 1 to
// the nanosecond: an asynchronous engine at iodepth=1 (blocking reaps),
// and a single-server engine at iodepth=4 (the loop's timed reaps
// between intended times, and late I/Os queued in the engine), whose late
// I/Os are only those that found all four slots busy.
func TestOpenLoopMD1Exact(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 600,000 I/Os on a fake clock")
	}
	const (
		service = int64(time.Millisecond)
		n       = 20000
		k       = 20
	)
	tq := stats.InvCDF(stats.TDist{V: k - 1})(1 - 0.001/2)
	dir := t.TempDir()
	for _, rho := range []float64{0.3, 0.5, 0.8} {
		iops := int(math.Round(rho * 1e9 / float64(service)))
		want := rho * float64(service) / (2 * (1 - rho))
		var waits, lates []float64
		var first *report.JobResult
		for seed := 1; seed <= k; seed++ {
			r := md1Run{engine: "psync", sync: true, depth: 1, iops: iops, seed: seed}.run(t, dir, service, n)
			ds, ol := &r.Dirs[jobfile.DirRead], &r.OpenLoop.Dirs[jobfile.DirRead]
			if ds.Lat.Min != uint64(service) || ds.Lat.Max != uint64(service) || ol.Response.N != ds.Lat.N || ds.Lat.N < n*9/10 {
				t.Fatalf("rho %.1f seed %d: %d I/Os of %d..%d ns, %d responses; want about %d of exactly %d ns, a response each",
					rho, seed, ds.Lat.N, ds.Lat.Min, ds.Lat.Max, ol.Response.N, n, service)
			}
			waits = append(waits, ol.Response.Mean-float64(service))
			lates = append(lates, float64(ol.Late)/float64(ds.Lat.N))
			if seed == 1 {
				first = r
			}
		}
		wait, waitSE := meanSE(waits)
		late, lateSE := meanSE(lates)
		t.Logf("rho %.1f: mean wait %.1f us (M/D/1 %.1f us, tolerance %.1f us), late %.4f (tolerance %.4f)",
			rho, wait/1e3, want/1e3, tq*waitSE/1e3, late, tq*lateSE)
		if math.Abs(wait-want) > tq*waitSE {
			t.Errorf("rho %.1f: mean wait %.1f us over %d runs (standard error %.1f us), M/D/1 gives %.1f us", rho, wait/1e3, k, waitSE/1e3, want/1e3)
		}
		if math.Abs(late-rho) > tq*lateSE {
			t.Errorf("rho %.1f: %.4f of the I/Os found the server busy over %d runs (standard error %.4f), want rho", rho, late, k, lateSE)
		}
		sameQueue(t, rho, first, dir, service, n, iops)
	}
}

// sameQueue runs seed 1 of rho's M/D/1 queue through an asynchronous
// engine at iodepth=1 and a single server at iodepth=4, and checks that
// their response latencies equal psync's (first) to the nanosecond, and
// the late I/Os at iodepth=1.
func sameQueue(t *testing.T, rho float64, first *report.JobResult, dir string, service int64, n, iops int) {
	t.Helper()
	want := &first.OpenLoop.Dirs[jobfile.DirRead]
	for _, r := range []md1Run{
		{engine: "io_uring", depth: 1, iops: iops, seed: 1},
		{engine: "io_uring", fifo: true, depth: 4, iops: iops, seed: 1},
	} {
		got := &r.run(t, dir, service, n).OpenLoop.Dirs[jobfile.DirRead]
		if got.Response.N != want.Response.N || got.Response.Mean != want.Response.Mean || got.Response.Max != want.Response.Max {
			t.Errorf("rho %.1f %s iodepth=%d: %d responses, mean %.1f ns, max %d ns; psync's %d, %.1f ns, %d ns",
				rho, r.engine, r.depth, got.Response.N, got.Response.Mean, got.Response.Max, want.Response.N, want.Response.Mean, want.Response.Max)
		}
		if r.depth == 1 && got.Late != want.Late || r.depth > 1 && got.Late >= want.Late {
			t.Errorf("rho %.1f %s iodepth=%d: %d late, psync %d: want as many at iodepth=1, fewer at 4", rho, r.engine, r.depth, got.Late, want.Late)
		}
	}
}

// meanSE returns the mean of xs and its standard error.
func meanSE(xs []float64) (mean, se float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1) / float64(len(xs)))
}
