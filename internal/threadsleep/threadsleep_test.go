package threadsleep

import (
	"os"
	"os/signal"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/clock"
)

// TestSleepNeverEarly: a sleep ends no sooner than asked, also when a
// signal reaches the sleeping thread a quarter of the way (the wait
// resumes towards its end), and a wait of 0 or less returns at once.
func TestSleepNeverEarly(t *testing.T) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, unix.SIGUSR1)
	defer signal.Stop(sig)
	const d = 40 * time.Millisecond
	done := make(chan int64)
	tid := make(chan int)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid <- unix.Gettid()
		begin := clock.Nanotime()
		Sleep(d)
		done <- clock.Nanotime() - begin
	}()
	id := <-tid
	time.Sleep(d / 4)
	if err := unix.Tgkill(unix.Getpid(), id, unix.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	if got := time.Duration(<-done); got < d {
		t.Errorf("Sleep(%v) with a signal at %v took %v: want at least %v", d, d/4, got, d)
	}
	select {
	case <-sig:
	case <-time.After(10 * time.Second):
		t.Error("the signal never arrived")
	}
	for _, d := range []time.Duration{0, -time.Second} {
		begin := clock.Nanotime()
		Sleep(d)
		if got := time.Duration(clock.Nanotime() - begin); got > 100*time.Millisecond {
			t.Errorf("Sleep(%v) took %v, want an immediate return", d, got)
		}
	}
}

// TestPreciseRestores: Precise gives the calling thread a timer slack of
// Slack, and its restore puts the thread's previous slack back.
func TestPreciseRestores(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	slack := func() int {
		v, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
		if err != nil {
			t.Skipf("PR_GET_TIMERSLACK: %v", err)
		}
		return v
	}
	before := slack()
	restore := Precise()
	if got := slack(); got != Slack {
		t.Errorf("timer slack %d ns under Precise, want %d", got, Slack)
	}
	restore()
	if got := slack(); got != before {
		t.Errorf("timer slack %d ns after restore, want the thread's %d", got, before)
	}
}
