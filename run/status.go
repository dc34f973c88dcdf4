package run

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// This file is --status-interval: every interval the run core hands
// Options.OnStatus a Result of every job so far, cumulative, as fio's
// __show_running_run_stats does. A running job's loop copies its own
// JobResult when asked (at its next progress publish, about every 10 ms
// while it does I/O), so the copy is taken on the thread that owns it; a
// job that ended contributes its final result.

// jobSnapshot is one job's part of a status report.
type jobSnapshot struct {
	want  atomic.Bool // the status goroutine asks for a copy
	ended atomic.Bool // the job's result is final
	mu    sync.Mutex
	res   *report.JobResult // the latest copy, nil before the first
	// steady is the job's steady-state window as of the last check
	// (steady.Watch), nil without steadystate.
	steady atomic.Pointer[report.SteadyState]
}

// snapshot copies the job's result so far, with its run time up to now,
// when one was asked for.
func (l *loop) snapshot() {
	s := l.snap
	if s == nil || !s.want.Load() {
		return
	}
	now := l.clock()
	c := *l.res
	c.Elapsed = time.Duration(now - l.started)
	c.SteadyState = s.steady.Load()
	run := runtimeMsec(now - l.statsStart)
	c.JobRuntime = run
	for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
		if l.gen.Uses(d) {
			c.Dirs[d].Runtime = run
		}
	}
	s.mu.Lock()
	s.res = &c
	s.mu.Unlock()
	s.want.Store(false)
}

// statusLoop calls opts.OnStatus every opts.StatusInterval with the
// cumulative results so far, until done is closed.
func statusLoop(opts *Options, runs []*jobRun, base report.Result, genesis time.Time, done <-chan struct{}) {
	every(opts.StatusInterval, done, func() {
		for _, jr := range runs {
			if !jr.snap.ended.Load() {
				jr.snap.want.Store(true)
			}
		}
		// Give the loops a moment to answer; one that is asleep (rate,
		// thinktime) is reported as of its last copy.
		deadline := time.Now().Add(50 * time.Millisecond)
		for time.Now().Before(deadline) {
			pending := false
			for _, jr := range runs {
				pending = pending || (jr.snap.want.Load() && !jr.snap.ended.Load())
			}
			if !pending {
				break
			}
			time.Sleep(time.Millisecond)
		}
		r := base
		r.Jobs = nil
		r.End = time.Now()
		r.Elapsed = time.Since(genesis)
		for _, jr := range runs {
			s := &jr.snap
			switch {
			case s.ended.Load():
				r.Jobs = append(r.Jobs, jr.res)
			default:
				s.mu.Lock()
				if s.res != nil {
					r.Jobs = append(r.Jobs, withOldestIO(s.res, jr.prog))
				}
				s.mu.Unlock()
			}
		}
		if len(r.Jobs) > 0 {
			opts.OnStatus(&r)
		}
	})
}

// withOldestIO returns res, or under io_timeout, once the job's oldest I/O
// in flight is more than a second old, a copy of it with a note saying how
// old: a job stuck in the kernel cannot refresh its own copy, so the
// status report shows the stall before the timeout ends it.
func withOldestIO(res *report.JobResult, p *report.Progress) *report.JobResult {
	age := time.Duration(p.OldestIO.Load())
	if age <= time.Second {
		return res
	}
	c := *res
	c.EngineNotes = append(slices.Clone(res.EngineNotes), fmt.Sprintf("oldest I/O in flight: %.1fs", age.Seconds()))
	return &c
}

// every calls f every period until done is closed: the run's watchers'
// loop (status, hung I/O).
func every(period time.Duration, done <-chan struct{}, f func()) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		f()
	}
}
