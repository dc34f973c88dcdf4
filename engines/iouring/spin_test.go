package iouring

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/uring"
)

// openSpin opens an sqthread_poll=1 engine as run opens it (Setup.OwnP),
// through k, on a locked thread; it is closed at the end of the test.
func openSpin(t testing.TB, k uring.Kernel, fds []int, depth int) (*Engine, [][]byte) {
	t.Helper()
	job := newJob()
	job.SQThreadPoll = true
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	bufs := slotBufs(t, depth)
	eng, err := OpenOn(k)(engines.Setup{Job: job, Files: fds, Bufs: bufs, Depth: depth, OwnP: true})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	e := eng.(*Engine)
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e, bufs
}

// TestSpinReaps checks which engines busy-poll the CQ ring in Reap: those
// with SQPOLL or its stand-in, with a P of their own, and not the
// stand-in with IOPOLL, whose completions need an enter.
func TestSpinReaps(t *testing.T) {
	tests := []struct {
		sqpoll, stand, iopoll, ownP, want bool
	}{
		{sqpoll: true, ownP: true, want: true},
		{sqpoll: true, iopoll: true, ownP: true, want: true},
		{stand: true, ownP: true, want: true},
		{stand: true, iopoll: true, ownP: true, want: false},
		{sqpoll: true, ownP: false, want: false},
		{stand: true, ownP: false, want: false},
		{ownP: true, want: false},
	}
	for _, tt := range tests {
		if got := spinReaps(tt.sqpoll, tt.stand, tt.iopoll, tt.ownP); got != tt.want {
			t.Errorf("spinReaps(sqpoll %v, stand-in %v, iopoll %v, own P %v) = %v, want %v",
				tt.sqpoll, tt.stand, tt.iopoll, tt.ownP, got, tt.want)
		}
	}
}

// TestReapSpinsUnderSQPoll reads a file under sqthread_poll=1, with the
// kernel's SQPOLL thread and with the stand-in: every Reap that waits
// busy-polls the CQ ring, as fio's getevents does there, so the job's
// thread never enters the kernel to wait for a completion.
func TestReapSpinsUnderSQPoll(t *testing.T) {
	for _, tt := range []struct {
		name string
		k    uring.Kernel
	}{{"kernel SQPOLL", uring.Kernel{}}, {"stand-in", refuseSQPoll()}} {
		t.Run(tt.name, func(t *testing.T) {
			const blocks, depth = 256, 4
			e, bufs := openSpin(t, tt.k, []int{testFile(t, blocks)}, depth)
			if !e.spin {
				t.Fatalf("the engine does not spin (SQPOLL %v, stand-in %v)", e.sqpoll, e.poller != nil)
			}
			readAll(t, e, bufs, blocks)
			if st := e.ring.Stats(); st.WaitEnters != 0 {
				t.Errorf("%d enters with GETEVENTS (of %d enters); want none", st.WaitEnters, st.Enters)
			}
		})
	}
}

// TestReapTimeoutSpinning: a spinning ReapTimeout with nothing in flight
// returns nothing once its time is up, without entering the kernel, as
// run's io_timeout and open-loop waits need.
func TestReapTimeoutSpinning(t *testing.T) {
	e, _ := openSpin(t, uring.Kernel{}, []int{testFile(t, 1)}, 1)
	if !e.CanReapTimeout() {
		t.Fatal("a spinning engine says it cannot reap with a time limit")
	}
	out := make([]engines.Completion, 1)
	const d = 20 * time.Millisecond
	start := time.Now()
	n, err := e.ReapTimeout(out, 1, d)
	took := time.Since(start)
	if err != nil || n != 0 {
		t.Fatalf("ReapTimeout = %d, %v; want 0, nil", n, err)
	}
	// The upper bound only catches a spin that never looks at the clock.
	if took < d || took > d+5*time.Second {
		t.Errorf("ReapTimeout(%v) returned after %v", d, took)
	}
	if st := e.ring.Stats(); st.WaitEnters != 0 {
		t.Errorf("%d enters with GETEVENTS; want none", st.WaitEnters)
	}
}

// TestReapSpinStandInFails: the stand-in's error ends a spinning Reap
// that waits for a completion that cannot come, as it ends a sleeping one.
func TestReapSpinStandInFails(t *testing.T) {
	e, bufs := openSpin(t, refuseSQPoll(), []int{testFile(t, 1)}, 1)
	if e.poller == nil || !e.spin {
		t.Fatal("no spinning stand-in")
	}
	boom := errors.New("stand-in failed")
	e.poller.fail(boom)
	if err := e.Queue(0, &engines.Request{Op: engines.OpRead, Buf: bufs[0]}); err != nil {
		t.Fatal(err)
	}
	e.ring.FlushSQ() // published, never submitted: the stand-in is dead
	// A spin that missed the error would never return (the test binary's
	// -timeout then fails it).
	start := time.Now()
	if _, err := e.Reap(make([]engines.Completion, 1), 1); !errors.Is(err, boom) {
		t.Fatalf("Reap = %v, want the stand-in's error", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Reap took %v to see the stand-in's error", took)
	}
	e.poller.err.Store(nil) // Close would return it
}

// TestReapSpinFlushesOverflow overflows the CQ ring of an SQPOLL engine
// with NOPs, empties the ring and spins for the CQEs held in the kernel's
// overflow list: the spin enters once with GETEVENTS, as liburing does
// when sq_flags says CQ_OVERFLOW, and finds them.
func TestReapSpinFlushesOverflow(t *testing.T) {
	e, _ := openSpin(t, uring.Kernel{}, []int{testFile(t, 1)}, 4)
	if !e.sqpoll {
		t.Skip("the kernel refused SQPOLL: the stand-in has no overflow of its own to flush")
	}
	cq := e.ring.CQEntries()
	nops := func(n uint32) {
		for i := uint32(0); i < n; i++ {
			sqe, err := e.getSQE()
			if err != nil {
				t.Fatal(err)
			}
			sqe.PrepareNop()
			sqe.SetData64(uint64(i % 4))
		}
		if _, err := e.submitRing(); err != nil {
			t.Fatal(err)
		}
	}
	for sent := uint32(0); sent < cq+4; {
		k := min(e.ring.SQSpaceLeft(), cq+4-sent)
		nops(k)
		sent += k
		for e.ring.SQPending() > 0 {
			runtime.Gosched()
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for !e.ring.CQHasOverflow() {
		if time.Now().After(deadline) {
			t.Skipf("no CQ overflow after %d NOPs on a %d-entry CQ (ready %d)", cq+4, cq, e.ring.CQReady())
		}
		runtime.Gosched()
	}
	e.ring.CQAdvance(e.ring.CQReady())
	ok, err := e.spinCQ(1, 5*time.Second)
	if err != nil || !ok {
		t.Fatalf("spin over an overflowed ring: ready %v, %v; ring holds %d", ok, err, e.ring.CQReady())
	}
	if st := e.ring.Stats(); st.OverflowFlushes == 0 {
		t.Errorf("found the CQEs without flushing the overflow: stats %+v", st)
	}
}

// TestReapSpinAllocs: a spinning Reap allocates nothing.
func TestReapSpinAllocs(t *testing.T) {
	const depth = 4
	e, bufs := openSpin(t, uring.Kernel{}, []int{testFile(t, 16)}, depth)
	allocs := roundAllocs(e, bufs, depth)
	if allocs != 0 {
		t.Fatalf("%v allocations per Queue/Submit/Reap round", allocs)
	}
}
