package uring

import (
	"errors"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDeferTaskrunWrongThread: a DEFER_TASKRUN ring created on one OS
// thread refuses GETEVENTS from another with EEXIST, and works from its own.
func TestDeferTaskrunWrongThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := newTestRing(t, 4, &Params{Flags: SetupSingleIssuer | SetupDeferTaskrun | SetupTaskrunFlag})
	r.GetSQE().PrepareNop()
	if _, err := r.Submit(); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error)
	go func() {
		runtime.LockOSThread() // a different thread: ours is locked to this test
		defer runtime.UnlockOSThread()
		errc <- r.GetEvents()
	}()
	if err := <-errc; !errors.Is(err, unix.EEXIST) {
		t.Fatalf("GETEVENTS from another thread: %v, want EEXIST", err)
	}
	if err := r.GetEvents(); err != nil {
		t.Fatalf("GETEVENTS from the owner: %v", err)
	}
	waitOne(t, r)
}

// TestDeferTaskrunCompletion reads a tmpfs file on a DEFER_TASKRUN ring:
// the completion only shows after the owner enters with GETEVENTS, which
// WaitCQE does.
func TestDeferTaskrunCompletion(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := newTestRing(t, 4, &Params{Flags: SetupSingleIssuer | SetupDeferTaskrun})
	f := shmFile(t, 8192, unix.O_DIRECT)
	buf := alignedBuf(t, 4096)
	r.GetSQE().PrepareRead(int(f.Fd()), buf, 0)
	if _, err := r.Submit(); err != nil {
		t.Fatal(err)
	}
	if c := waitOne(t, r); c.Res != 4096 {
		t.Fatalf("res %d", c.Res)
	}
}

// TestCQOverflow submits twice the CQ size of NOPs without reaping: the
// kernel keeps the excess on its overflow list (CQ_OVERFLOW), and reaping
// flushes them all, in order, with nothing dropped.
func TestCQOverflow(t *testing.T) {
	const n = 8
	r := newTestRing(t, n, &Params{Flags: SetupCQSize, CQEntries: n})
	for round := 0; round < 2; round++ {
		for i := 0; i < n; i++ {
			sqe := r.GetSQE()
			sqe.PrepareNop()
			sqe.SetData64(uint64(round*n + i))
		}
		if got, err := r.Submit(); err != nil || got != n {
			t.Fatalf("submit = %d, %v", got, err)
		}
	}
	if !r.CQHasOverflow() {
		t.Fatal("CQ_OVERFLOW not set with 16 CQEs for an 8-entry CQ")
	}
	for want := uint64(0); want < 2*n; want++ {
		cqe, err := r.PeekCQE()
		if err != nil {
			t.Fatalf("CQE %d: %v", want, err)
		}
		if cqe.UserData != want {
			t.Fatalf("CQE %d has user data %d", want, cqe.UserData)
		}
		r.CQESeen(cqe)
	}
	st := r.Stats()
	if st.OverflowFlushes == 0 || st.DroppedReports != 0 || r.CQOverflowCount() != 0 {
		t.Fatalf("stats %+v, dropped %d", st, r.CQOverflowCount())
	}
	if r.CQHasOverflow() {
		t.Fatal("CQ_OVERFLOW still set after reaping everything")
	}
}
