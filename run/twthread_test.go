package run

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/null"
	"github.com/gofio/gofio/engines/twthread"
	"github.com/gofio/gofio/jobfile"
)

// twJob is a sqthread_poll=1 "io_uring" job that the tests run on the null
// engine, so that the SQPOLL goroutine drives an engine that completes at
// submit.
func twJob(t *testing.T, n uint64, depth int, prio bool, list string) (*jobfile.Job, Options) {
	j := nullJob(t, n, depth, prio)
	j.IOEngine = "io_uring"
	j.SQThreadPoll = true
	j.TWThread = "goroutine"
	j.TWList = list
	return j, Options{Engines: map[string]engines.Opener{"io_uring": null.Open}}
}

// TestTWThreadAccountsEveryIO runs the SQPOLL goroutine under both
// policies and both hand-off lists: every I/O is submitted by the
// goroutine, posted back once and accounted once, with slat, clat, lat and
// tw wait for each, and lat = slat + clat per sample.
func TestTWThreadAccountsEveryIO(t *testing.T) {
	for _, list := range []string{"locked", "lockfree"} {
		for _, prio := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/priority=%v", list, prio), func(t *testing.T) {
				const n = 20000
				j, opts := twJob(t, n, 64, prio, list)
				var bad, samples int
				opts.sample = func(_ jobfile.Dir, slat, clat, lat int64) {
					samples++
					if slat < 0 || slat+clat != lat {
						bad++
					}
				}
				r := mustRun(t, []*jobfile.Job{j}, opts).Jobs[0]
				ds := &r.Dirs[jobfile.DirRead]
				if ds.TotalIOs != n || ds.Clat.N != n || ds.Lat.N != n || ds.Slat.N != n || r.TWWait.N != n || samples != n {
					t.Errorf("ios %d clat %d lat %d slat %d tw wait %d samples %d, want %d each",
						ds.TotalIOs, ds.Clat.N, ds.Lat.N, ds.Slat.N, r.TWWait.N, samples, n)
				}
				if bad != 0 {
					t.Errorf("%d samples with lat != slat + clat", bad)
				}
				found := false
				for _, note := range r.EngineNotes {
					// ", pinned to CPU N" after "thread" where the process may
					// run on two CPUs or more.
					found = found || strings.HasPrefix(note, "tw_thread=goroutine: a gofio goroutine played the SQ thread") &&
						strings.HasSuffix(note, ", submissions and completions ran as task work (tw_list="+list+")")
				}
				if !found {
					t.Errorf("engine notes %q lack the tw_thread note", r.EngineNotes)
				}
			})
		}
	}
}

// TestTWThreadOnlyWhenAsked checks which jobs get the SQPOLL goroutine.
func TestTWThreadOnlyWhenAsked(t *testing.T) {
	for _, tt := range []struct {
		engine  string
		sqpoll  bool
		mode    string
		compare bool
		want    bool
	}{
		{"io_uring", true, "auto", true, true},
		{"io_uring", true, "auto", false, false}, // kernel SQPOLL, comparable with fio
		{"io_uring", true, "kernel", true, false},
		{"io_uring", true, "goroutine", false, true},
		{"io_uring", false, "goroutine", true, false}, // no SQ thread to play
		{"null", true, "goroutine", true, false},
	} {
		j := &jobfile.Job{IOEngine: tt.engine, SQThreadPoll: tt.sqpoll, TWThread: tt.mode}
		if got := twthread.Use(j, tt.compare); got != tt.want {
			t.Errorf("%s sqthread_poll=%v tw_thread=%s compare=%v: %v, want %v", tt.engine, tt.sqpoll, tt.mode, tt.compare, got, tt.want)
		}
	}
}

// TestTWThreadZeroAllocsPerIO extends the allocation test to the SQPOLL
// goroutine: its hand-offs, parking and task-work queue allocate nothing
// per I/O, with either list.
func TestTWThreadZeroAllocsPerIO(t *testing.T) {
	for _, list := range []string{"locked", "lockfree"} {
		allocs := func(n uint64) float64 {
			return testing.AllocsPerRun(3, func() {
				j, opts := twJob(t, n, 64, false, list)
				if _, err := Run(context.Background(), []*jobfile.Job{j}, opts); err != nil {
					t.Fatal(err)
				}
			})
		}
		small, big := allocs(1<<8), allocs(1<<14)
		if big > small+16 {
			small, big = min(small, allocs(1<<8)), min(big, allocs(1<<14))
		}
		t.Logf("tw_list=%s: %.0f allocs for 256 I/Os, %.0f for 16k", list, small, big)
		if big > small+16 {
			t.Errorf("tw_list=%s: %.0f allocs for 16k I/Os vs %.0f for 256: the hot path allocates", list, big, small)
		}
	}
}
