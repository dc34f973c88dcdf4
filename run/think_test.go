package run

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gofio/gofio/jobfile"
)

// thinkClock is a fakeClock that also records the sleeps of one length.
type thinkClock struct {
	fakeClock
	mu     sync.Mutex
	pauses []time.Duration // sleeps of the think length, at the fake time they began
	think  time.Duration
}

func (c *thinkClock) sleep(d time.Duration) {
	if d == c.think {
		c.mu.Lock()
		c.pauses = append(c.pauses, time.Duration(c.t.Load()))
		c.mu.Unlock()
	}
	c.fakeClock.sleep(d)
}

// runThink runs job text on a fake clock that moves 1 µs per reading and
// by each sleep, and returns the read I/Os and when each pause of think
// began (from the clock's zero).
func runThink(t *testing.T, text string, think time.Duration) (uint64, []time.Duration) {
	t.Helper()
	c := &thinkClock{fakeClock: fakeClock{step: int64(time.Microsecond)}, think: think}
	res := mustRun(t, parseJobs(t, t.TempDir(), text), Options{now: c.now, sleep: c.sleep})
	return res.Jobs[0].Dirs[jobfile.DirRead].TotalIOs, c.pauses
}

// TestThinkIOTime checks thinktime_iotime as fio's handle_thinktime: the
// first pause once thinktime_iotime plus thinktime has passed since the
// start, the next ones that long after the previous pause began; with
// thinktime_blocks unset the blocks do not count, with it set they do
// too.
func TestThinkIOTime(t *testing.T) {
	const job = "[j]\nioengine=null\nsize=1g\ntime_based\nruntime=2\nthinktime=100ms\nthinktime_iotime=500ms\nrate_iops=1000\n"
	n, pauses := runThink(t, job, 100*time.Millisecond)
	if len(pauses) != 3 {
		t.Fatalf("%d pauses at %v, want 3 (at 0.6, 1.2 and 1.8 s)", len(pauses), pauses)
	}
	for i, p := range pauses {
		want := time.Duration(i+1) * 600 * time.Millisecond
		if p < want || p > want+5*time.Millisecond {
			t.Errorf("pause %d at %v, want %v", i, p, want)
		}
	}
	// The rate catches up after each pause (rate_ignore_thinktime=0).
	if n < 1990 || n > 2001 {
		t.Errorf("%d I/Os in 2 s at 1000 IOPS, want about 2000 (the rate catches up)", n)
	}
	// thinktime_blocks=300 pauses every 300 I/Os as well (each pause,
	// whatever its reason, restarts the I/O time).
	_, pauses = runThink(t, job+"thinktime_blocks=300\n", 100*time.Millisecond)
	if len(pauses) < 5 {
		t.Errorf("with thinktime_blocks=300: %d pauses at %v, want one every 300 I/Os", len(pauses), pauses)
	}
	for i := 1; i < len(pauses); i++ {
		if gap := pauses[i] - pauses[i-1]; gap > 400*time.Millisecond+10*time.Millisecond {
			t.Errorf("with thinktime_blocks=300: pauses %v and %v are %v apart, more than 300 I/Os at 1000 IOPS and the 100 ms pause", pauses[i-1], pauses[i], gap)
		}
	}
}

// TestRateIgnoreThinktime checks that rate_ignore_thinktime moves the
// rate schedule on by each pause (less one I/O), so a rated job does not
// catch up afterwards: about the rate times the time spent issuing.
func TestRateIgnoreThinktime(t *testing.T) {
	for _, c := range []struct {
		rate     string
		min, max uint64
	}{
		// fio 3.33 with the same options: 2994, 2593 and 2659 I/Os
		// (4 MiB/s is 1024 IOPS of 4k).
		{"rate_iops=1000\nrate_ignore_thinktime=0\n", 2990, 3001},
		{"rate_iops=1000\nrate_ignore_thinktime=1\n", 2595, 2605},
		{"rate=4m\nrate_ignore_thinktime=1\n", 2655, 2670},
	} {
		t.Run(fmt.Sprint(c.rate), func(t *testing.T) {
			n, pauses := runThink(t, "[j]\nioengine=null\nbs=4k\nsize=1g\ntime_based\nruntime=3\nthinktime=200ms\nthinktime_iotime=1\n"+c.rate, 200*time.Millisecond)
			if len(pauses) != 2 {
				t.Errorf("%d pauses at %v, want 2 (at 1.2 and 2.4 s)", len(pauses), pauses)
			}
			if n < c.min || n > c.max {
				t.Errorf("%d I/Os, want %d..%d", n, c.min, c.max)
			}
		})
	}
}

// TestSkipRate checks fio's arithmetic: the bytes of the pause at the
// rate, less one block when the pause is at least one block's time.
func TestSkipRate(t *testing.T) {
	for _, c := range []struct {
		paused time.Duration
		want   int64
	}{
		{200 * time.Millisecond, int64(200*time.Millisecond) - int64(time.Millisecond)}, // 1000 IOPS of 4k: one block is 1 ms
		{500 * time.Microsecond, int64(500 * time.Microsecond)},                         // shorter than a block: nothing taken off
		{500 * time.Nanosecond, 0}, // under a microsecond: fio's total is 0
	} {
		l := &loop{job: &jobfile.Job{BS: [jobfile.NumDirs]uint64{4096, 4096, 4096}, RateIOPS: [jobfile.NumDirs]uint64{1000}}}
		l.skipRate(jobfile.DirRead, int64(c.paused))
		if l.nextIssue[jobfile.DirRead] != c.want {
			t.Errorf("pause %v: schedule moved %d ns, want %d", c.paused, l.nextIssue[jobfile.DirRead], c.want)
		}
	}
}
