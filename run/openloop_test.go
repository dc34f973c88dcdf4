package run

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/gofio/gofio/internal/faultfs"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// openLoopJob runs a psync open-loop job reading the faultfs file x at
// iops I/Os a second for runtime, and returns its result.
func openLoopJob(t *testing.T, x *faultfs.FS, iops int, process string, runtime time.Duration) *report.JobResult {
	t.Helper()
	text := fmt.Sprintf("[ol]\nioengine=psync\nfilename=%s\nrw=randread\nsize=4m\nopen_loop=1\nrate_iops=%d\nrate_process=%s\ntime_based=1\nruntime=%dms\n",
		x.Path(), iops, process, runtime.Milliseconds())
	res := mustRun(t, parseJobs(t, t.TempDir(), text), Options{})
	return res.Jobs[0]
}

// TestOpenLoopMD1 checks open_loop=1 against queueing theory on a target
// of known service time: a FUSE file whose every read sleeps 2 ms, read
// by psync (one server) at Poisson intended times. That is an M/D/1
// queue. The service time is measured first, by a closed-loop run, and
// the rate set for rho = 0.4. Two checks:
//   - Poisson arrivals see the server busy a share rho of the time
//     (PASTA), whatever the service times: the share of I/Os counted late
//     must be rho within 0.1. This holds on a loaded machine too.
//   - The mean wait, response latency less service latency, must be
//     within 30% of the Pollaczek-Khinchine value lambda E[S^2]/(2(1-rho))
//     for the service time's measured mean and spread, which is M/D/1's
//     rho/(2 mu (1-rho)) for a fixed service time: about 1,200 I/Os at rho
//     0.4 leave a standard error of about 8% of the mean wait, and the
//     loop's own wake-up delay, counted in the wait, adds a few percent.
//     Where the machine is too loaded for a sleep of 2 ms to take a fixed
//     time (the service's squared coefficient of variation above 0.1:
//     rare stalls of tens of ms then make the mean wait), the test logs
//     the figures instead. TestOpenLoopMD1Exact checks the loop against
//     M/D/1 on every machine, with an injected engine of exact service
//     time on a fake clock.
func TestOpenLoopMD1(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 6 s of timed I/O")
	}
	x := faultfs.MountT(t, faultfs.Options{Size: 4 << 20})
	x.Delay(faultfs.Read, 2*time.Millisecond, 1)
	probe := parseJobs(t, t.TempDir(), fmt.Sprintf("[probe]\nioengine=psync\nfilename=%s\nrw=randread\nsize=4m\ntime_based=1\nruntime=500ms\n", x.Path()))
	service := mustRun(t, probe, Options{}).Jobs[0].Dirs[jobfile.DirRead].Lat.Mean
	iops := int(0.4 / (service / 1e9))
	r := openLoopJob(t, x, iops, "poisson", 6*time.Second)
	ds, ol := &r.Dirs[jobfile.DirRead], &r.OpenLoop.Dirs[jobfile.DirRead]
	if ol.Response.N != ds.Lat.N || ol.Response.N < 200 {
		t.Fatalf("%d response samples for %d I/Os: want one per I/O, at least 200", ol.Response.N, ds.Lat.N)
	}
	s := ds.Lat.Mean                                      // E[S], ns
	s2 := ds.Lat.Stddev()*ds.Lat.Stddev() + s*s           // E[S^2]
	lambda := float64(ds.TotalIOs) / ds.Runtime.Seconds() // per s
	rho := lambda * s / 1e9
	wait := ol.Response.Mean - s
	pk := lambda / 1e9 * s2 / (2 * (1 - rho))
	md1 := rho * s / (2 * (1 - rho))
	late := float64(ol.Late) / float64(ds.TotalIOs)
	t.Logf("probe %.3f ms; service %.3f ms (stdev %.3f), %.1f IOPS, rho %.3f: mean wait %.3f ms, Pollaczek-Khinchine %.3f ms, M/D/1 %.3f ms; late %.3f",
		service/1e6, s/1e6, ds.Lat.Stddev()/1e6, lambda, rho, wait/1e6, pk/1e6, md1/1e6, late)
	if rho >= 0.9 {
		t.Fatalf("rho %.2f: the service time moved from the probe's %.2f ms to %.2f ms", rho, service/1e6, s/1e6)
	}
	if math.Abs(late-rho) > 0.1 {
		t.Errorf("%.3f of the I/Os found the target busy, want rho %.3f", late, rho)
	}
	if cv2 := s2/(s*s) - 1; cv2 > 0.1 {
		t.Logf("mean wait not checked: the service time's spread (stdev %.2f ms of %.2f ms) is too wide for a fixed service time on this loaded machine", ds.Lat.Stddev()/1e6, s/1e6)
		return
	}
	if math.Abs(wait-pk)/pk > 0.3 {
		t.Errorf("mean wait %.3f ms, queueing theory gives %.3f ms (M/D/1 %.3f ms)", wait/1e6, pk/1e6, md1/1e6)
	}
}

// TestOpenLoopOverload: offered twice what the target serves, the I/Os
// queue on the timetable, none is dropped, and the response latency is
// many times the service latency, which fio's lat reports alone.
func TestOpenLoopOverload(t *testing.T) {
	x := faultfs.MountT(t, faultfs.Options{Size: 4 << 20})
	x.Delay(faultfs.Read, 2*time.Millisecond, 1)
	r := openLoopJob(t, x, 1000, "linear", time.Second) // about 450 IOPS served
	ds, ol := &r.Dirs[jobfile.DirRead], &r.OpenLoop.Dirs[jobfile.DirRead]
	if ol.Response.N != ds.Lat.N || ol.Response.N == 0 {
		t.Fatalf("%d response samples for %d I/Os", ol.Response.N, ds.Lat.N)
	}
	if ol.Response.Mean < 5*ds.Lat.Mean {
		t.Errorf("response mean %.2f ms, service %.2f ms: want at least 5 times", ol.Response.Mean/1e6, ds.Lat.Mean/1e6)
	}
	if ol.Late < ds.TotalIOs/2 {
		t.Errorf("%d of %d I/Os late, want most", ol.Late, ds.TotalIOs)
	}
	t.Logf("response %.1f ms, service %.2f ms, late %d of %d", ol.Response.Mean/1e6, ds.Lat.Mean/1e6, ol.Late, ds.TotalIOs)
}

// TestOpenLoopDepth: an asynchronous engine offered twice what its
// slots serve keeps at most iodepth I/Os in flight, drops none, and
// counts most of them late.
func TestOpenLoopDepth(t *testing.T) {
	x := faultfs.MountT(t, faultfs.Options{Size: 4 << 20})
	x.Delay(faultfs.Read, 2*time.Millisecond, 1)
	text := fmt.Sprintf("[ol]\nioengine=io_uring\nfilename=%s\nrw=randread\nsize=4m\niodepth=4\nopen_loop=1\nrate_iops=4000\ntime_based=1\nruntime=1s\n", x.Path())
	res, err := runOnce(parseJobs(t, t.TempDir(), text)[0])
	if err != nil {
		t.Skipf("io_uring: %v", err)
	}
	r := res.Jobs[0]
	if r.Error != 0 {
		t.Skipf("io_uring: %s", r.ErrorText)
	}
	ds, ol := &r.Dirs[jobfile.DirRead], &r.OpenLoop.Dirs[jobfile.DirRead]
	if ol.Response.N != ds.Lat.N || ds.TotalIOs == 0 {
		t.Fatalf("%d response samples for %d I/Os (%d issued)", ol.Response.N, ds.Lat.N, ds.TotalIOs)
	}
	for b := 3; b < len(r.IODepth); b++ {
		if r.IODepth[b] != 0 {
			t.Errorf("depths %v: more than 4 in flight", r.IODepth)
		}
	}
	if ol.Late < ds.TotalIOs/2 || ol.Response.Mean < 5*ds.Lat.Mean {
		t.Errorf("%d of %d I/Os late, response %.1f ms, service %.2f ms: want most late and the response 5 times the service",
			ol.Late, ds.TotalIOs, ol.Response.Mean/1e6, ds.Lat.Mean/1e6)
	}
}

// TestZeroAllocsOpenLoop: the open-loop path (the timetable, its waits
// and the response latency) allocates nothing per I/O either: a run of
// 16k I/Os at 400,000 IOPS allocates no more than one of 1k.
func TestZeroAllocsOpenLoop(t *testing.T) {
	for _, depth := range []int{1, 8} {
		allocs := func(n uint64) float64 {
			return testing.AllocsPerRun(3, func() {
				j := nullJob(t, n, depth, true)
				j.OpenLoop, j.RateIOPS = true, [jobfile.NumDirs]uint64{400000, 400000, 400000}
				if _, err := Run(context.Background(), []*jobfile.Job{j}, Options{}); err != nil {
					t.Fatal(err)
				}
			})
		}
		small, big := allocs(1<<10), allocs(1<<14)
		t.Logf("depth %d: %.0f allocs for 1k I/Os, %.0f for 16k", depth, small, big)
		if big > small+16 {
			t.Errorf("depth %d: %.0f allocs for 16k I/Os vs %.0f for 1k: the open-loop path allocates", depth, big, small)
		}
	}
}
