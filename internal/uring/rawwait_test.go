package uring

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRawWaitable checks which sleeping enters may take the raw path after
// SetRawWaits.
func TestRawWaitable(t *testing.T) {
	tests := []struct {
		name                      string
		ringFlags, toSubmit, flag uint32
		want                      bool
	}{
		// Plain waits sleep in io_cqring_wait, which a signal interrupts.
		{"wait", 0, 0, EnterGetEvents, true},
		{"submit and wait", SetupDeferTaskrun | SetupSingleIssuer, 1, EnterGetEvents, true},
		{"sqpoll wait", SetupSQPoll, 0, EnterGetEvents, true},
		// A long submit keeps the hand-off, wait or not.
		{"long submit and wait", 0, maxNoWaitSubmit + 1, EnterGetEvents, false},
		// Timed waits last as long as the caller asked.
		{"ext arg", 0, 0, EnterGetEvents | EnterExtArg, false},
		// SQ_WAIT waits for the SQPOLL thread.
		{"sq wait", SetupSQPoll, 0, EnterSQWait, false},
		// IOPOLL spins on the device.
		{"iopoll wait", SetupIOPoll, 0, EnterGetEvents, false},
	}
	for _, tt := range tests {
		if got := rawWaitable(tt.ringFlags, tt.toSubmit, tt.flag); got != tt.want {
			t.Errorf("%s: rawWaitable = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestRawWaitsLetOthersRun blocks a ring's owner in a raw wait for a pipe
// read that only this test's main goroutine can complete, with GOMAXPROCS
// 1, so the waiting goroutine holds the only P. The main goroutine must
// still get to run, and a garbage collection (which stops every goroutine)
// must finish while the wait is pending: the runtime's preemption signal
// interrupts the wait with EINTR. A 10 s TIMEOUT on the same ring bounds
// the test if it does not: the wait then ends on its own, before the pipe
// is written, and the test fails instead of hanging.
func TestRawWaitsLetOthersRun(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])

	type result struct {
		cqe   CompletionQueueEvent
		stats Stats
		err   error
	}
	var waiting atomic.Bool
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var res result
		defer func() { done <- res }()
		r, err := CreateRing(4)
		if err != nil {
			res.err = err
			return
		}
		defer r.QueueExit()
		r.SetRawWaits(true)
		buf := make([]byte, 1)
		ts := unix.NsecToTimespec(int64(10 * time.Second))
		sqe := r.GetSQE()
		sqe.PrepareRead(p[0], buf, ^uint64(0))
		sqe.SetData64(1)
		sqe = r.GetSQE()
		sqe.PrepareTimeout(&ts, 1, 0)
		sqe.SetData64(2)
		if _, err := r.Submit(); err != nil {
			res.err = err
			return
		}
		waiting.Store(true)
		cqe, err := r.WaitCQE()
		runtime.KeepAlive(&ts)
		runtime.KeepAlive(buf)
		if err == nil {
			res.cqe = *cqe
		}
		res.stats, res.err = r.Stats(), err
	}()
	for !waiting.Load() {
		runtime.Gosched()
	}
	runtime.GC()
	select {
	case res := <-done:
		t.Fatalf("the wait ended before the pipe was written (user data %d, res %d, err %v): the waiting goroutine kept the only P",
			res.cqe.UserData, res.cqe.Res, res.err)
	default:
	}
	if _, err := unix.Write(p[1], []byte{'x'}); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	if res.cqe.UserData != 1 || res.cqe.Res != 1 {
		t.Errorf("first CQE: user data %d, res %d; want the pipe read (1) of 1 byte", res.cqe.UserData, res.cqe.Res)
	}
	if res.stats.RawWaitEnters == 0 {
		t.Errorf("no raw wait counted: %+v", res.stats)
	}
}
