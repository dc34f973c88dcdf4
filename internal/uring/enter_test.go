package uring

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestEnterMayBlock checks which io_uring_enter calls must go through the
// runtime's blocking syscall path and which may skip it.
func TestEnterMayBlock(t *testing.T) {
	tests := []struct {
		name                             string
		ringFlags, toSubmit, minComplete uint32
		flags, ready                     uint32
		want                             bool
	}{
		// Submit-only enters never sleep.
		{"submit one", 0, 1, 0, 0, 0, false},
		{"submit at the raw bound", 0, maxNoWaitSubmit, 0, 0, 0, false},
		// A long batch keeps the hand-off so other goroutines get the P.
		{"submit past the raw bound", 0, maxNoWaitSubmit + 1, 0, 0, 0, true},
		// Waking an SQPOLL thread is a wake_up, nothing more.
		{"sq wakeup", SetupSQPoll, 1, 0, EnterSQWakeup, 0, false},
		// SQ_WAIT sleeps until the thread frees a slot.
		{"sq wait", SetupSQPoll, 0, 0, EnterSQWait, 0, true},
		{"sq wait with wakeup", SetupSQPoll, 0, 0, EnterSQWait | EnterSQWakeup, 0, true},
		// GETEVENTS with min_complete 0 runs task work and flushes overflow.
		{"getevents min 0", SetupDeferTaskrun | SetupSingleIssuer, 0, 0, EnterGetEvents, 0, false},
		{"iopoll getevents min 0", SetupIOPoll, 0, 0, EnterGetEvents, 0, false},
		// A real wait on an empty CQ sleeps.
		{"wait one, none ready", 0, 0, 1, EnterGetEvents, 0, true},
		{"submit and wait one, none ready", 0, 1, 1, EnterGetEvents, 0, true},
		{"wait four, three ready", 0, 0, 4, EnterGetEvents, 3, true},
		// A wait the CQ already satisfies returns at once.
		{"wait one, one ready", 0, 1, 1, EnterGetEvents, 1, false},
		{"wait four, nine ready", 0, 0, 4, EnterGetEvents, 9, false},
		// IOPOLL waits spin on the device: always the blocking path.
		{"iopoll wait, ready", SetupIOPoll, 0, 1, EnterGetEvents, 5, true},
		// Timeouts (EXT_ARG) are waits by nature.
		{"ext arg", 0, 0, 1, EnterGetEvents | EnterExtArg, 5, true},
		// min_complete without GETEVENTS is ignored by the kernel.
		{"min without getevents", 0, 1, 8, 0, 0, false},
	}
	for _, tt := range tests {
		if got := enterMayBlock(tt.ringFlags, tt.toSubmit, tt.minComplete, tt.flags, tt.ready); got != tt.want {
			t.Errorf("%s: enterMayBlock = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// statsDelta returns what changed in the counters between two Stats.
func statsDelta(a, b Stats) Stats {
	return Stats{
		Enters:          b.Enters - a.Enters,
		SubmitEnters:    b.SubmitEnters - a.SubmitEnters,
		WaitEnters:      b.WaitEnters - a.WaitEnters,
		WakeupEnters:    b.WakeupEnters - a.WakeupEnters,
		OverflowFlushes: b.OverflowFlushes - a.OverflowFlushes,
		DroppedReports:  b.DroppedReports - a.DroppedReports,
		Retries:         b.Retries - a.Retries,
		NoWaitEnters:    b.NoWaitEnters - a.NoWaitEnters,
	}
}

// TestEnterPaths runs each public call once on a NOP ring and checks how
// many enters it made and which syscall path they took. A NOP completes
// inside the submitting enter, so its CQE is there when the enter returns.
func TestEnterPaths(t *testing.T) {
	tests := []struct {
		name string
		// prepared NOPs and completed NOPs left in the CQ before the call
		prepared, waiting int
		// skip puts SubmitAndWait's predictor in single-enter mode
		skip uint32
		call func(r *Ring) error
		want Stats
	}{
		// Batch 1: exactly one enter, on the raw path, and no wait flag.
		{"submit one", 1, 0, 0, func(r *Ring) error { _, err := r.Submit(); return err },
			Stats{Enters: 1, SubmitEnters: 1, NoWaitEnters: 1}},
		// A full 8-entry batch is under the raw bound too.
		{"submit eight", 8, 0, 0, func(r *Ring) error { _, err := r.Submit(); return err },
			Stats{Enters: 1, SubmitEnters: 1, NoWaitEnters: 1}},
		// Submit-and-wait split: the NOP completes inside the raw submit,
		// so no wait follows.
		{"submit and wait, split", 1, 0, 0, func(r *Ring) error { _, err := r.SubmitAndWait(1); return err },
			Stats{Enters: 1, SubmitEnters: 1, NoWaitEnters: 1}},
		{"submit eight and wait eight, split", 8, 0, 0, func(r *Ring) error { _, err := r.SubmitAndWait(8); return err },
			Stats{Enters: 1, SubmitEnters: 1, NoWaitEnters: 1}},
		// Single-enter mode on an empty CQ: the wait may sleep, blocking path.
		{"submit and wait, single enter", 1, 0, 5, func(r *Ring) error { _, err := r.SubmitAndWait(1); return err },
			Stats{Enters: 1, SubmitEnters: 1, WaitEnters: 1}},
		// The wait is already satisfied: one raw enter with GETEVENTS.
		{"submit and wait, CQ holds one", 1, 1, 5, func(r *Ring) error { _, err := r.SubmitAndWait(1); return err },
			Stats{Enters: 1, SubmitEnters: 1, WaitEnters: 1, NoWaitEnters: 1}},
		// GETEVENTS with min_complete 0 never sleeps.
		{"get events", 0, 0, 0, func(r *Ring) error { return r.GetEvents() },
			Stats{Enters: 1, WaitEnters: 1, NoWaitEnters: 1}},
		{"submit and get events", 1, 0, 0, func(r *Ring) error { _, err := r.SubmitAndGetEvents(); return err },
			Stats{Enters: 1, SubmitEnters: 1, WaitEnters: 1, NoWaitEnters: 1}},
		// A CQE already there: WaitCQE makes no syscall at all.
		{"wait cqe, CQ holds one", 0, 1, 0, func(r *Ring) error { _, err := r.WaitCQE(); return err },
			Stats{}},
		// Nothing to submit and nothing to flush: no syscall.
		{"submit nothing", 0, 0, 0, func(r *Ring) error { _, err := r.Submit(); return err },
			Stats{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTestRing(t, 8, nil)
			for i := 0; i < tt.waiting; i++ {
				r.GetSQE().PrepareNop()
			}
			if tt.waiting > 0 {
				if n, err := r.Submit(); err != nil || n != uint(tt.waiting) {
					t.Fatalf("setup submit = %d, %v", n, err)
				}
				if got := r.CQReady(); got != uint32(tt.waiting) {
					t.Fatalf("setup: %d CQEs ready, want %d", got, tt.waiting)
				}
			}
			for i := 0; i < tt.prepared; i++ {
				r.GetSQE().PrepareNop()
			}
			r.waitPred.skip = tt.skip
			before := r.Stats()
			if err := tt.call(r); err != nil {
				t.Fatal(err)
			}
			if got := statsDelta(before, r.Stats()); got != tt.want {
				t.Errorf("stats delta %+v, want %+v", got, tt.want)
			}
			if got, want := r.CQReady(), uint32(tt.prepared+tt.waiting); got != want {
				t.Errorf("%d CQEs ready after the call, want %d", got, want)
			}
		})
	}
}

// TestWaitTimeoutIsBlockingPath checks that a wait with a timeout goes
// through the runtime's blocking path and times out with ETIME.
func TestWaitTimeoutIsBlockingPath(t *testing.T) {
	r := newTestRing(t, 8, nil)
	if r.Features()&FeatExtArg == 0 {
		t.Skip("kernel lacks FEAT_EXT_ARG")
	}
	before := r.Stats()
	if _, err := r.WaitCQETimeout(time.Millisecond); !errors.Is(err, unix.ETIME) {
		t.Fatalf("WaitCQETimeout on an idle ring: %v, want ETIME", err)
	}
	if d := statsDelta(before, r.Stats()); d.Enters != 1 || d.NoWaitEnters != 0 {
		t.Fatalf("stats delta %+v, want one blocking enter", d)
	}
}

// TestRegisteredRingNoWait submits and reaps through a registered ring fd
// on both syscall paths.
func TestRegisteredRingNoWait(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := NewRing()
	if err := r.QueueInit(4, 0); err != nil {
		t.Fatal(err)
	}
	defer r.QueueExit()
	if err := r.RegisterRingFd(); err != nil {
		t.Fatal(err)
	}
	for i := uint64(1); i <= 100; i++ {
		for k := uint64(0); k < 2; k++ {
			sqe := r.GetSQE()
			sqe.PrepareNop()
			sqe.SetData64(2*i + k)
		}
		var err error
		if i%2 == 0 {
			_, err = r.Submit() // raw path
		} else {
			r.waitPred.skip = 1
			_, err = r.SubmitAndWait(2) // blocking path
		}
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		for k := uint64(0); k < 2; k++ {
			c := waitOne(t, r)
			if c.Res != 0 || c.UserData != 2*i+k {
				t.Fatalf("round %d: CQE %+v, want res 0 and user data %d", i, c, 2*i+k)
			}
		}
	}
	st := r.Stats()
	if st.NoWaitEnters != 50 || st.Enters != 100 {
		t.Fatalf("stats %+v, want 100 enters, 50 of them raw", st)
	}
}

// TestWaitPredictor checks when SubmitAndWait splits its enter.
func TestWaitPredictor(t *testing.T) {
	var p waitPredictor
	// A fresh ring splits, and keeps splitting while ops complete inline.
	for i := 0; i < 3; i++ {
		if !p.trySplit() {
			t.Fatalf("call %d: no split on an inline ring", i)
		}
		p.record(true)
	}
	// One miss: the next splitRetryAfter calls use a single enter ...
	p.record(false)
	for i := 0; i < splitRetryAfter; i++ {
		if p.trySplit() {
			t.Fatalf("call %d after a miss: split, want single enter", i)
		}
	}
	// ... and the one after retries the split.
	if !p.trySplit() {
		t.Fatal("no split retry after splitRetryAfter calls")
	}
	// A retry that hits again stays in split mode.
	p.record(true)
	if !p.trySplit() {
		t.Fatal("no split after a retry that completed inline")
	}
}

// TestSubmitAndWaitInFlight runs a submit-and-wait whose op cannot
// complete inline (a 2 ms timeout) in both modes, and checks the wait
// really waited for it.
func TestSubmitAndWaitInFlight(t *testing.T) {
	for _, skip := range []uint32{0, 5} { // split, single enter
		r := newTestRing(t, 4, nil)
		r.waitPred.skip = skip
		ts := unix.NsecToTimespec(int64(2 * time.Millisecond))
		sqe := r.GetSQE()
		sqe.PrepareTimeout(&ts, 0, 0)
		sqe.SetData64(7)
		n, err := r.SubmitAndWait(1)
		if err != nil || n != 1 {
			t.Fatalf("skip %d: SubmitAndWait = %d, %v", skip, n, err)
		}
		if r.CQReady() != 1 {
			t.Fatalf("skip %d: %d CQEs ready after SubmitAndWait(1)", skip, r.CQReady())
		}
		if c := waitOne(t, r); c.UserData != 7 || c.Res != -int32(unix.ETIME) {
			t.Fatalf("skip %d: CQE %+v, want the timeout with -ETIME", skip, c)
		}
		runtime.KeepAlive(&ts)
	}
}
