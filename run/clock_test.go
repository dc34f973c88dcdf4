package run

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/null"
	"github.com/gofio/gofio/jobfile"
)

// fakeClock advances by step on every reading and by d on every sleep,
// so time-dependent behaviour is deterministic.
type fakeClock struct {
	t     atomic.Int64
	step  int64
	slept atomic.Int64
}

func (c *fakeClock) now() int64 { return c.t.Add(c.step) }

func (c *fakeClock) sleep(d time.Duration) {
	c.slept.Add(int64(d))
	c.t.Add(int64(d))
}

func (c *fakeClock) opts() Options { return Options{now: c.now, sleep: c.sleep} }

func TestPriorityShortensTWWait(t *testing.T) {
	// With every clock reading one tick apart, completion items that
	// queue behind heavy items (fifo) wait longer than completions run
	// first (priority), and their clat grows by the same amount.
	var wait, clat [2]float64
	for i, prio := range []bool{true, false} {
		j := nullJob(t, 4096, 32, prio)
		j.TWReap = "all" // the policy orders work only in gofio's task-work model
		clock := &fakeClock{step: 1}
		r := mustRun(t, []*jobfile.Job{j}, clock.opts()).Jobs[0]
		wait[i], clat[i] = r.TWWait.Mean, r.Dirs[0].Clat.Mean
		if r.TWWait.N != 4096 {
			t.Fatalf("priority=%v: %d tw wait samples, want 4096", prio, r.TWWait.N)
		}
	}
	t.Logf("tw wait priority %.1f fifo %.1f ticks; clat %.1f vs %.1f", wait[0], wait[1], clat[0], clat[1])
	if !(wait[0] < wait[1]) || !(clat[0] < clat[1]) {
		t.Errorf("priority tw wait %.1f / clat %.1f not below fifo %.1f / %.1f", wait[0], clat[0], wait[1], clat[1])
	}
}

func TestTimeBasedRampAndSamples(t *testing.T) {
	j := nullJob(t, 0, 8, true)
	j.NumberIOs = 0
	j.TimeBased = true
	j.Runtime = 2 * time.Second
	j.RampTime = time.Second
	clock := &fakeClock{step: int64(50 * time.Microsecond)}
	r := mustRun(t, []*jobfile.Job{j}, clock.opts()).Jobs[0]
	ds := r.Dirs[0]
	if ds.Runtime < 2*time.Second || ds.Runtime > 2*time.Second+10*time.Millisecond {
		t.Errorf("runtime %v after a 1 s ramp, want 2 s", ds.Runtime)
	}
	if r.Elapsed < 3*time.Second {
		t.Errorf("elapsed %v, want ramp + runtime = 3 s", r.Elapsed)
	}
	// The I/Os in flight when the ramp ends (0 to 8 of them) add their
	// clat after the reset but not their total_ios, as in fio.
	if ds.Clat.N < ds.TotalIOs || ds.Clat.N > ds.TotalIOs+8 || histCount(&ds.ClatHist) != ds.Clat.N {
		t.Errorf("after ramp: %d I/Os but %d clat samples (%d in the histogram), want 0 to 8 more", ds.TotalIOs, ds.Clat.N, histCount(&ds.ClatHist))
	}
	// Unlike fio's (DIFFERENCES.md), each of them adds its bytes and its
	// clat, none its slat.
	if ds.IOBytes != ds.Clat.N*4096 || ds.Slat.N != ds.TotalIOs {
		t.Errorf("after ramp: %d bytes, %d clat and %d slat samples for %d I/Os; want 4096 bytes per clat sample and a slat per I/O", ds.IOBytes, ds.Clat.N, ds.Slat.N, ds.TotalIOs)
	}
	// The ramp's I/O is not counted: about 2 of the 3 seconds are.
	issued := uint64(3 * time.Second / (50 * time.Microsecond))
	if ds.TotalIOs == 0 || ds.TotalIOs > issued*3/4 {
		t.Errorf("%d I/Os counted; the ramp's were not reset", ds.TotalIOs)
	}
	// bwavgtime=500 ms over 2 s: samples at 500, 1000 and 1500 ms; the
	// window that closes at the runtime, during the drain, gives none, as
	// in fio, whose helper thread no longer finds the job running.
	if ds.BW.N != 3 || ds.IOPS.N != ds.BW.N || len(ds.BWSamples) != int(ds.BW.N) {
		t.Errorf("%d bw and %d iops samples (%d logged), want 3", ds.BW.N, ds.IOPS.N, len(ds.BWSamples))
	}
}

func TestRateIOPSAndStartDelay(t *testing.T) {
	j := nullJob(t, 0, 4, true)
	j.NumberIOs = 0
	j.TimeBased = true
	j.Runtime = 2 * time.Second
	j.RateIOPS[jobfile.DirRead] = 100
	j.StartDelay = 300 * time.Millisecond
	clock := &fakeClock{step: int64(time.Microsecond)}
	r := mustRun(t, []*jobfile.Job{j}, clock.opts()).Jobs[0]
	if n := r.Dirs[0].TotalIOs; n < 190 || n > 210 {
		t.Errorf("rate_iops=100 for 2 s gave %d I/Os, want about 200", n)
	}
	if clock.slept.Load() < int64(300*time.Millisecond) {
		t.Errorf("slept %v, want at least the 300 ms startdelay", time.Duration(clock.slept.Load()))
	}
}

func TestCPUsAllowedPinsJobThread(t *testing.T) {
	var got atomic.Int64
	got.Store(-1)
	engs := map[string]engines.Opener{"pin": func(s engines.Setup) (engines.Engine, error) {
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(0, &set); err == nil {
			got.Store(int64(set.Count()))
			if !set.IsSet(0) {
				got.Store(-2)
			}
		}
		return null.Open(s)
	}}
	j := nullJob(t, 64, 1, true)
	j.IOEngine = "pin"
	j.CPUsAllowed = []int{0}
	mustRun(t, []*jobfile.Job{j}, Options{Engines: engs})
	if got.Load() != 1 {
		t.Errorf("engine opened on a thread allowed %d CPUs, want only CPU 0", got.Load())
	}
}

// TestClockReadsPerIO pins the clock budget of the event loop on the null
// engine with one I/O per submit and per reap: one reading for the heavy
// item (start), one per submit batch (issue), one per harvest, whose stamp
// the next task-work item reuses instead of reading again. Three per I/O,
// under either policy, as fio's start, issue and completion stamps.
func TestClockReadsPerIO(t *testing.T) {
	const n = 4096
	for _, c := range []struct {
		depth int
		prio  bool
		reap  string
	}{
		{1, true, "fio"},   // one slot: heavy, submit, reap, completion
		{16, true, "fio"},  // a reap when no slot is free, its completions first
		{1, true, "all"},   // one slot: heavy, submit, harvest, completion
		{16, true, "all"},  // completions run first, right after their harvest
		{16, false, "all"}, // fifo: the next heavy item runs after the harvest
	} {
		clock := &fakeClock{step: 1}
		j := nullJob(t, n, c.depth, c.prio)
		j.TWReap = c.reap
		r := mustRun(t, []*jobfile.Job{j}, clock.opts()).Jobs[0]
		if r.Dirs[0].TotalIOs != n {
			t.Fatalf("depth %d priority=%v: %d I/Os, want %d", c.depth, c.prio, r.Dirs[0].TotalIOs, n)
		}
		// Setup, the end of the run and the fifo completions that run
		// back to back (one reading each, no harvest between) add a few
		// readings per depth, never per I/O.
		reads := clock.t.Load()
		if limit := int64(3*n + 2*c.depth + 16); reads > limit {
			t.Errorf("depth %d priority=%v tw_reap=%s: %d clock readings for %d I/Os (%.2f per I/O), want at most %d",
				c.depth, c.prio, c.reap, reads, n, float64(reads)/n, limit)
		}
	}
}

// TestCPUsAllowedSplitPinsEachJob runs two clones with
// cpus_allowed=0-1 and cpus_allowed_policy=split: each job thread is
// allowed exactly one CPU, a different one.
func TestCPUsAllowedSplitPinsEachJob(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs 2 CPUs")
	}
	var mu sync.Mutex
	got := map[int][]int{}
	engs := map[string]engines.Opener{"pin": func(s engines.Setup) (engines.Engine, error) {
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(0, &set); err != nil {
			return nil, err
		}
		var cpus []int
		for c := 0; c < 2; c++ {
			if set.IsSet(c) {
				cpus = append(cpus, c)
			}
		}
		mu.Lock()
		got[s.Job.SubjobNumber] = cpus
		mu.Unlock()
		return null.Open(s)
	}}
	var jobs []*jobfile.Job
	for k := 0; k < 2; k++ {
		j := nullJob(t, 64, 1, true)
		j.IOEngine = "pin"
		j.SubjobNumber = k
		j.CPUsAllowed = []int{0, 1}
		j.CPUsAllowedPolicy = "split"
		jobs = append(jobs, j)
	}
	mustRun(t, jobs, Options{Engines: engs})
	if fmt.Sprint(got[0]) != "[0]" || fmt.Sprint(got[1]) != "[1]" {
		t.Errorf("job threads allowed %v; want job 0 on CPU 0 and job 1 on CPU 1", got)
	}
}

// TestNiceJobThread runs a job with nice=5 on an engine that reads its
// thread's nice value when it opens: 5 more than the test's, as fio's
// nice(5) at the start of thread_main; the test's own thread keeps its
// value.
func TestNiceJobThread(t *testing.T) {
	before, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got atomic.Int64
	engs := map[string]engines.Opener{"nice": func(s engines.Setup) (engines.Engine, error) {
		if raw, err := unix.Getpriority(unix.PRIO_PROCESS, 0); err == nil {
			got.Store(int64(20 - raw))
		}
		return null.Open(s)
	}}
	j := nullJob(t, 64, 1, true)
	j.IOEngine = "nice"
	j.Nice = 5
	mustRun(t, []*jobfile.Job{j}, Options{Engines: engs})
	if want := int64(20-before) + 5; got.Load() != want && !(want > 19 && got.Load() == 19) {
		t.Errorf("engine opened at nice %d, want %d", got.Load(), want)
	}
	if after, _ := unix.Getpriority(unix.PRIO_PROCESS, 0); after != before {
		t.Errorf("the test's thread went from %d to %d", 20-before, 20-after)
	}
}

// lockEngine is the null engine reading the process's locked memory
// (VmLck) at its first Queue, while the job runs.
type lockEngine struct {
	engines.Engine
	vmLck *atomic.Int64
}

func (e *lockEngine) Queue(slot uint32, r *engines.Request) error {
	if e.vmLck.Load() < 0 {
		status, _ := os.ReadFile("/proc/self/status")
		for _, l := range strings.Split(string(status), "\n") {
			if f := strings.Fields(l); len(f) == 3 && f[0] == "VmLck:" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				e.vmLck.Store(kb)
			}
		}
	}
	return e.Engine.Queue(slot, r)
}

// TestLockMem runs a job with lockmem=8m: 8 MiB more of the process is
// locked while the job runs (fio's fio_pin_memory), and none after.
func TestLockMem(t *testing.T) {
	var vmLck atomic.Int64
	vmLck.Store(-1)
	engs := map[string]engines.Opener{"lock": func(s engines.Setup) (engines.Engine, error) {
		e, err := null.Open(s)
		return &lockEngine{Engine: e, vmLck: &vmLck}, err
	}}
	j := nullJob(t, 64, 1, true)
	j.IOEngine = "lock"
	j.LockMem = 8 << 20
	mustRun(t, []*jobfile.Job{j}, Options{Engines: engs})
	if got := vmLck.Load(); got < 8<<10 {
		t.Errorf("VmLck while the job ran: %d kB, want at least 8192", got)
	}
}
