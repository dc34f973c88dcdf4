package uring

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// reapSpin consumes n CQEs by peeking only (no enter), as an SQPOLL user
// that must not enter the kernel would.
func reapSpin(t *testing.T, r *Ring, n int) {
	t.Helper()
	out := make([]CompletionQueueEvent, n)
	got := 0
	deadline := time.Now().Add(10 * time.Second)
	for got < n {
		got += r.CopyCQEs(out[got:])
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d CQEs after 10 s", got, n)
		}
		runtime.Gosched()
	}
}

// TestSQPollNoEnterWhileAwake: the first submit wakes the fresh (sleeping)
// SQPOLL thread with one SQ_WAKEUP enter; with a 10 s idle time the thread
// then stays awake and 100 more batches need no io_uring_enter at all.
func TestSQPollNoEnterWhileAwake(t *testing.T) {
	r := newTestRing(t, 16, &Params{Flags: SetupSQPoll, SQThreadIdle: 10_000})
	if tid := r.SQPollTID(); tid == 0 {
		t.Error("no iou-sqp thread found in /proc/self/task")
	}
	r.GetSQE().PrepareNop()
	if n, err := r.Submit(); err != nil || n != 1 {
		t.Fatalf("first submit = %d, %v", n, err)
	}
	reapSpin(t, r, 1)
	before := r.Stats()
	for round := 0; round < 100; round++ {
		for i := 0; i < 8; i++ {
			r.GetSQE().PrepareNop()
		}
		// With SQPOLL, Submit returns what the kernel has not consumed yet
		// (liburing's rule: tail minus the kernel's head). The SQ thread
		// stores the new head only after the batch it took has run, and a
		// NOP batch posts its CQEs before that store: reapSpin can see all
		// 8 CQEs of the last round while the head still counts them as
		// pending. So anything from 0 (the thread took all 8 between the
		// tail store and the head load) to the ring's 16 entries is right;
		// what this test checks is that none of it entered the kernel.
		if n, err := r.Submit(); err != nil || n > 16 {
			t.Fatalf("submit = %d, %v", n, err)
		}
		reapSpin(t, r, 8)
	}
	if d := r.Stats().Enters - before.Enters; d != 0 {
		t.Fatalf("%d io_uring_enter calls while the SQPOLL thread was awake", d)
	}
}

// TestSQPollWakeup: with a 10 ms idle the thread sets NEED_WAKEUP and
// sleeps; the next Submit must enter with SQ_WAKEUP and its SQE completes.
func TestSQPollWakeup(t *testing.T) {
	r := newTestRing(t, 4, &Params{Flags: SetupSQPoll, SQThreadIdle: 10})
	for round := 0; round < 3; round++ {
		deadline := time.Now().Add(10 * time.Second)
		for !r.SQNeedsWakeup() {
			if time.Now().After(deadline) {
				t.Fatal("NEED_WAKEUP never set")
			}
			time.Sleep(time.Millisecond)
		}
		before := r.Stats().WakeupEnters
		r.GetSQE().PrepareNop()
		if _, err := r.Submit(); err != nil {
			t.Fatal(err)
		}
		if r.Stats().WakeupEnters != before+1 {
			t.Fatalf("round %d: submit to a sleeping thread made %d wakeup enters", round, r.Stats().WakeupEnters-before)
		}
		reapSpin(t, r, 1)
	}
}

// TestSQPollFullSQWait fills the SQ of an SQPOLL ring and uses SQRingWait
// until GetSQE has room again.
func TestSQPollFullSQWait(t *testing.T) {
	r := newTestRing(t, 2, &Params{Flags: SetupSQPoll, SQThreadIdle: 1000})
	total := 0
	for total < 64 {
		sqe := r.GetSQE()
		if sqe == nil {
			if _, err := r.Submit(); err != nil {
				t.Fatal(err)
			}
			if err := r.SQRingWait(); err != nil {
				t.Fatal(err)
			}
			reapSpin(t, r, int(r.CQReady()))
			continue
		}
		sqe.PrepareNop()
		total++
	}
	if _, err := r.Submit(); err != nil {
		t.Fatal(err)
	}
}

// TestSQPollAffinity pins the SQPOLL thread to CPU 0 (SQ_AFF).
func TestSQPollAffinity(t *testing.T) {
	r := newTestRing(t, 4, &Params{Flags: SetupSQPoll | SetupSQAff, SQThreadCPU: 0, SQThreadIdle: 10})
	if got := strings.Join(FlagNames(r.Flags()), "|"); got != "SQPOLL|SQ_AFF" {
		t.Fatalf("flags %s", got)
	}
}

// TestSQPollTIDTwoRings: two SQPOLL rings made by one thread have two SQ
// threads of the same name (iou-sqp-TID); SQPollTID tells them apart
// (from each ring's fdinfo), and each is a thread of this process by that
// name. A name would also find an earlier ring's thread still exiting on
// a thread reused.
func TestSQPollTIDTwoRings(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a := newTestRing(t, 4, &Params{Flags: SetupSQPoll, SQThreadIdle: 10})
	b := newTestRing(t, 4, &Params{Flags: SetupSQPoll, SQThreadIdle: 10})
	ta, tb := a.SQPollTID(), b.SQPollTID()
	if ta == 0 || tb == 0 || ta == tb || ta == unix.Gettid() {
		t.Fatalf("SQ threads %d and %d (this thread %d)", ta, tb, unix.Gettid())
	}
	for _, tid := range []int{ta, tb} {
		comm, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/comm")
		if want := "iou-sqp-" + strconv.Itoa(unix.Gettid()); err != nil || strings.TrimSpace(string(comm)) != want {
			t.Errorf("thread %d: %q, %v; want %s", tid, comm, err, want)
		}
	}
	if tid := newTestRing(t, 4, nil).SQPollTID(); tid != 0 {
		t.Errorf("a ring without SQPOLL: %d", tid)
	}
}
