package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/iouring"
	"github.com/gofio/gofio/internal/uring"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// TestSQPollClatSane runs a depth-1 O_DIRECT random read on /dev/shm with
// and without sqthread_poll. fio 3.33 reports clat under SQPOLL as the time
// since the job started, so its median is about half the run; gofio stamps
// every SQE it publishes, so clat <= lat holds for every sample, slat is
// omitted (as in fio 3.36), and the median clat is a small fraction of the
// run: with 8192 I/Os one after another, under 1/16 of the direction's
// runtime by a wide margin however loaded the machine is. (An earlier form
// compared the SQPOLL median with the plain one, a timing ratio that failed
// under -race on a busy machine.)
func TestSQPollClatSane(t *testing.T) {
	uringOK(t)
	dir, err := os.MkdirTemp("/dev/shm", "gofio-sqpoll-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })

	const ios = 8 << 20 / 4096 * 4
	for _, sqpoll := range []bool{false, true} {
		j := testJob(dir, "sq", jobfile.RWRandRead, "io_uring")
		j.Filenames = []string{filepath.Join(dir, "sq.dat")}
		j.Size = 8 << 20
		j.Loops = 4
		j.Direct = true
		j.SQThreadPoll = sqpoll
		j.RegisterFiles = sqpoll
		check := &sampleCheck{}
		res := mustRun(t, []*jobfile.Job{j}, Options{sample: check.add})
		d := &res.Jobs[0].Dirs[jobfile.DirRead]
		if len(check.bad) > 0 {
			t.Fatalf("sqthread_poll=%v: %d bad samples, first: %s", sqpoll, len(check.bad), check.bad[0])
		}
		if check.n[jobfile.DirRead] != ios || d.Clat.N != ios {
			t.Fatalf("sqthread_poll=%v: %d samples, %d clat values, want %d", sqpoll, check.n[jobfile.DirRead], d.Clat.N, ios)
		}
		if sqpoll && d.Slat.N != 0 {
			t.Errorf("sqthread_poll: %d slat samples, want none (slat is omitted as in fio 3.36)", d.Slat.N)
		}
		vals, _, _ := report.Percentiles(&d.ClatHist, d.Clat.N, []float64{50})
		if limit := uint64(d.Runtime.Nanoseconds()) / 16; vals[0] > limit {
			t.Errorf("sqthread_poll=%v: median clat %d ns over 1/16 of the %v run: clat is counting from the wrong start",
				sqpoll, vals[0], d.Runtime)
		}
	}
}

// TestSQPollIOWQThreads: under sqthread_poll the kernel's SQ thread
// submits, so the io-wq workers that force_async sends the reads to are
// named after it (iou-wrk-SQTID), not after the job thread; the job's CPU
// breakdown still counts them as its io-wq workers, beside its SQ thread.
func TestSQPollIOWQThreads(t *testing.T) {
	uringOK(t)
	dir, err := os.MkdirTemp("/dev/shm", "gofio-sqpoll-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	j := testJob(dir, "sqwq", jobfile.RWRandRead, "io_uring")
	j.Size = 8 << 20
	j.Direct = true
	j.SQThreadPoll = true
	j.ForceAsync = 1
	setDepth(j, 8)
	res := mustRun(t, []*jobfile.Job{j}, Options{})
	kinds := map[string]int{}
	for _, th := range res.Jobs[0].Threads {
		kinds[th.Kind]++
	}
	// A ring closed just before (a probe, an earlier test on this thread)
	// may leave its SQ thread lingering under the same name.
	if kinds["sqpoll"] == 0 || kinds["iowq"] == 0 {
		t.Fatalf("threads by kind %v: %+v", kinds, res.Jobs[0].Threads)
	}
}

// TestCancelStopsSpinningSQPoll: a run stopped (a signal's context
// cancel) while its sqthread_poll=1 job's thread busy-polls the CQ ring
// ends as a sleeping reaper's would: the spin returns with the CQEs in
// flight, the loop sees the stop, drains and reports, on the kernel's
// SQPOLL and on the stand-in for a refused one.
func TestCancelStopsSpinningSQPoll(t *testing.T) {
	uringOK(t)
	refuse := uring.Kernel{Setup: func(n uint32, p *uring.Params) (int, error) {
		if p.Flags&uring.SetupSQPoll != 0 {
			return -1, unix.EPERM
		}
		return uring.SysSetup(n, p)
	}}
	for _, tt := range []struct {
		name string
		k    uring.Kernel
	}{{"kernel", uring.Kernel{}}, {"stand-in", refuse}} {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := os.MkdirTemp("/dev/shm", "gofio-sqpoll-")
			if err != nil {
				t.Skipf("no /dev/shm: %v", err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			j := testJob(dir, "spin", jobfile.RWRandRead, "io_uring")
			j.Size = 8 << 20
			j.Direct = true
			j.SQThreadPoll, j.RegisterFiles = true, true
			j.TimeBased = true
			j.Runtime = 1 << 40 // only the cancel ends it
			setDepth(j, 16)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stopped time.Time
			done := make(chan struct{})
			opts := Options{Engines: map[string]engines.Opener{"io_uring": iouring.OpenOn(tt.k)},
				OnProgress: func(p []*report.Progress) {
					go func() {
						defer close(done)
						for p[0].IOs[0].Load() < 1000 {
							time.Sleep(time.Millisecond)
						}
						stopped = time.Now()
						cancel()
					}()
				}}
			res, err := Run(ctx, []*jobfile.Job{j}, opts)
			<-done
			took := time.Since(stopped)
			if err != nil {
				t.Fatal(err)
			}
			r := res.Jobs[0]
			if res.Signal != "interrupt" || r.Error != 0 || r.Dirs[0].TotalIOs == 0 {
				t.Fatalf("signal %q, error %d %q, %d I/Os; want a partial result", res.Signal, r.Error, r.ErrorText, r.Dirs[0].TotalIOs)
			}
			if r.Dirs[0].Clat.N != r.Dirs[0].TotalIOs {
				t.Errorf("%d issued, %d completed: in-flight I/O was not drained", r.Dirs[0].TotalIOs, r.Dirs[0].Clat.N)
			}
			if notes := strings.Join(r.EngineNotes, "; "); strings.Contains(notes, "refused SQPOLL") != (tt.name == "stand-in") {
				t.Errorf("notes %q: want the stand-in's only where the kernel refused SQPOLL", notes)
			}
			// Generous for a loaded CI machine; a spin that missed the
			// stop would run until the test binary's timeout.
			if took > 10*time.Second {
				t.Errorf("the run ended %v after the cancel", took)
			}
		})
	}
}
