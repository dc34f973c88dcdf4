package run

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/null"
	"github.com/gofio/gofio/jobfile"
)

// depthEngine is the null engine whose completions arrive only on a
// blocking reap, all at once, after 100 us of fake time per I/O in flight:
// the deeper the queue, the slower each I/O. It records the deepest queue
// it saw.
type depthEngine struct {
	engines.Engine
	clock             *fakeClock
	inflight, deepest int
	depths            []int // the depth of each harvest
}

func (e *depthEngine) Submit() (int, error) {
	n, err := e.Engine.Submit()
	e.inflight += n
	e.deepest = max(e.deepest, e.inflight)
	return n, err
}

func (e *depthEngine) Reap(out []engines.Completion, min int) (int, error) {
	if min == 0 {
		return 0, nil
	}
	n, err := e.Engine.Reap(out, min)
	e.clock.t.Add(int64(n) * int64(100*time.Microsecond))
	e.depths = append(e.depths, n)
	e.inflight -= n
	return n, err
}

// TestLatencyTargetFindsDepth runs the search on an engine where depth d
// takes d*100 us: a 450 us target settles on depth 4 of 16, the loop
// really runs 8 deep while it searches and no deeper than 4 in its final
// window, and the job ends there, long before its runtime.
func TestLatencyTargetFindsDepth(t *testing.T) {
	clock := &fakeClock{step: 1}
	var eng *depthEngine
	engs := map[string]engines.Opener{"depth": func(s engines.Setup) (engines.Engine, error) {
		e, err := null.Open(s)
		eng = &depthEngine{Engine: e, clock: clock}
		return eng, err
	}}
	j := testJob(t.TempDir(), "lat", jobfile.RWRandRead, "depth")
	setDepth(j, 16)
	j.Size = 64 << 20
	j.TimeBased = true
	j.Runtime = 10 * time.Second
	// Percentile 99: with 100, as in fio, every I/O of the first harvest
	// 8 deep would lower the depth once more, down to a failure at 1.
	j.LatencyTarget = jobfile.LatencyTarget{Target: 450 * time.Microsecond, Window: 10 * time.Millisecond, Percentile: 99}
	// The engine's model is a harvest of everything in flight.
	j.TWReap = "all"
	opts := clock.opts()
	opts.Engines = engs
	var warn strings.Builder
	opts.Warn = &warn
	res, err := Run(context.Background(), []*jobfile.Job{j}, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Jobs[0]
	if warn.Len() > 0 {
		t.Log(warn.String())
	}
	if r.Error != 0 || r.LatencyDepth != 4 {
		t.Fatalf("error %d (%s), latency depth %d; want 0 and 4", r.Error, r.ErrorText, r.LatencyDepth)
	}
	if eng.deepest != 8 {
		t.Errorf("deepest queue %d, want 8 (the search tried 8)", eng.deepest)
	}
	if last := eng.depths[len(eng.depths)-1]; last > 4 {
		t.Errorf("last harvest %d deep, want at most 4", last)
	}
	if r.Elapsed >= j.Runtime {
		t.Errorf("elapsed %v: the job did not end at the settled depth", r.Elapsed)
	}
	// The final window's statistics only: every I/O at depth 4, about
	// 10 ms / 400 us harvests of 4.
	ios := r.Dirs[0].TotalIOs
	if ios < 80 || ios > 120 || r.Dirs[0].Lat.Max > uint64(450*time.Microsecond) {
		t.Errorf("final window: %d I/Os, max latency %d ns; want about 100, all within the target", ios, r.Dirs[0].Lat.Max)
	}
}

// TestLatencyTargetMissAtDepthOne: with latency_percentile=100 an I/O over
// the target at depth 1 fails the job with fio's ETIMEDOUT.
func TestLatencyTargetMissAtDepthOne(t *testing.T) {
	clock := &fakeClock{step: 1}
	engs := map[string]engines.Opener{"depth": func(s engines.Setup) (engines.Engine, error) {
		e, err := null.Open(s)
		return &depthEngine{Engine: e, clock: clock}, err
	}}
	j := testJob(t.TempDir(), "lat", jobfile.RWRandRead, "depth")
	setDepth(j, 4)
	j.LatencyTarget = jobfile.LatencyTarget{Target: 50 * time.Microsecond, Window: time.Millisecond, Percentile: 100}
	opts := clock.opts()
	opts.Engines = engs
	res, err := Run(context.Background(), []*jobfile.Job{j}, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Jobs[0]
	if r.Error != 110 || r.ErrorText != "func=max latency exceeded, error=Connection timed out" || r.LatencyDepth != 1 {
		t.Errorf("error %d %q, depth %d; want 110, fio's text, depth 1", r.Error, r.ErrorText, r.LatencyDepth)
	}
}

// TestLatencyDepthFromIOLoop checks that a job reports its latency depth
// (fio's latency_qd, set when do_io starts) only once it reaches its I/O
// loop, as fio: a job failing its setup (here its buffers: mem=mmap: on a
// path in no directory) or skipping its I/O (a failed exec_prerun)
// reports none, and, as root, one that nobody (uid=) may not open, which
// fio finds at the first I/O, reports its depth.
func TestLatencyDepthFromIOLoop(t *testing.T) {
	dir := t.TempDir()
	ok := testJob(dir, "ok", jobfile.RWRandRead, "null")
	setDepth(ok, 4)
	setup := testJob(dir, "setup", jobfile.RWRandRead, "null")
	setup.Mem, setup.MemFile = "mmap", filepath.Join(dir, "missing", "buf.mm")
	skip := testJob(dir, "skip", jobfile.RWRandRead, "null")
	skip.ExecPrerun = "false"
	t.Chdir(dir) // exec_prerun's output goes to ./skip.prerun.txt
	cases := []struct {
		j         *jobfile.Job
		failed    bool
		wantDepth int
	}{{ok, false, 4}, {setup, true, 0}, {skip, false, 0}}
	if os.Geteuid() == 0 {
		// t.TempDir's directories are root's alone: nobody cannot open
		// the file root lays out.
		open := testJob(dir, "open", jobfile.RWRead, "psync")
		open.UID, open.UIDSet, open.GID, open.GIDSet = 65534, true, 65534, true
		cases = append(cases, struct {
			j         *jobfile.Job
			failed    bool
			wantDepth int
		}{open, true, 1})
	}
	for _, c := range cases {
		res, err := Run(context.Background(), []*jobfile.Job{c.j}, Options{Warn: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		r := res.Jobs[0]
		if (r.Error != 0) != c.failed || r.LatencyDepth != c.wantDepth {
			t.Errorf("job %s: error %d (%s), latency depth %d; want failed %v, depth %d", c.j.Name, r.Error, r.ErrorText, r.LatencyDepth, c.failed, c.wantDepth)
		}
	}
}
