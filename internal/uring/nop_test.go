package uring

import (
	"errors"
	"fmt"
	"testing"

	"golang.org/x/sys/unix"
)

// TestNopRoundTripSizes fills the SQ of rings from 1 to 32768 entries with
// NOPs, submits and waits for them all, and checks each user data comes
// back once.
func TestNopRoundTripSizes(t *testing.T) {
	for entries := uint32(1); entries <= MaxEntries; entries *= 2 {
		t.Run(fmt.Sprint(entries), func(t *testing.T) {
			r := newTestRing(t, entries, nil)
			if r.SQEntries() != entries {
				t.Fatalf("SQ entries %d, want %d", r.SQEntries(), entries)
			}
			for i := uint32(0); i < entries; i++ {
				sqe := r.GetSQE()
				if sqe == nil {
					t.Fatalf("GetSQE nil at %d of %d", i, entries)
				}
				sqe.PrepareNop()
				sqe.SetData64(uint64(i) + 1)
			}
			if r.GetSQE() != nil {
				t.Fatal("GetSQE on a full SQ returned an entry")
			}
			n, err := r.SubmitAndWait(entries)
			if err != nil || n != uint(entries) {
				t.Fatalf("SubmitAndWait = %d, %v; want %d", n, err, entries)
			}
			seen := make([]bool, entries+1)
			got := 0
			for got < int(entries) {
				cqe, err := r.WaitCQE()
				if err != nil {
					t.Fatal(err)
				}
				if cqe.Res != 0 || cqe.UserData == 0 || cqe.UserData > uint64(entries) || seen[cqe.UserData] {
					t.Fatalf("bad CQE %+v", *cqe)
				}
				seen[cqe.UserData] = true
				r.CQESeen(cqe)
				got++
			}
			if _, err := r.PeekCQE(); !errors.Is(err, unix.EAGAIN) {
				t.Fatalf("PeekCQE on empty CQ: %v, want EAGAIN", err)
			}
		})
	}
}

// TestPeekEmptyMakesNoSyscall checks liburing's rule: peeking an empty CQ
// costs no io_uring_enter.
func TestPeekEmptyMakesNoSyscall(t *testing.T) {
	r := newTestRing(t, 8, nil)
	before := r.Stats().Enters
	for i := 0; i < 100; i++ {
		if _, err := r.PeekCQE(); !errors.Is(err, unix.EAGAIN) {
			t.Fatalf("PeekCQE: %v", err)
		}
	}
	if n := r.PeekBatchCQE(make([]*CompletionQueueEvent, 4)); n != 0 {
		t.Fatalf("PeekBatchCQE = %d", n)
	}
	if got := r.Stats().Enters - before; got != 0 {
		t.Fatalf("%d enters while peeking an empty CQ", got)
	}
}

// TestGetSQEZeroes checks that a reused slot carries no stale field: a read
// prepared where an fdatasync was (DATASYNC = RWF_HIPRI) must not fail.
func TestGetSQEZeroes(t *testing.T) {
	r := newTestRing(t, 1, nil)
	f := shmFile(t, 4096, 0)
	sqe := r.GetSQE()
	sqe.PrepareFsync(int(f.Fd()), FsyncDatasync)
	sqe.Addr3, sqe.Pad2, sqe.Personality = 1, 1, 1
	r.sq.sqeTail-- // hand the same slot out again without submitting
	sqe = r.GetSQE()
	if *sqe != (SubmissionQueueEntry{}) {
		t.Fatalf("GetSQE returned a dirty entry %+v", *sqe)
	}
	buf := make([]byte, 512)
	sqe.PrepareRead(int(f.Fd()), buf, 0)
	if _, err := r.SubmitAndWait(1); err != nil {
		t.Fatal(err)
	}
	if c := waitOne(t, r); c.Res != 512 {
		t.Fatalf("read after fsync slot: res %d", c.Res)
	}
}

// TestTimeout checks PrepareTimeout passes the timespec itself (giouring
// passed the address of the pointer).
func TestTimeout(t *testing.T) {
	r := newTestRing(t, 2, nil)
	ts := &unix.Timespec{Nsec: 1_000_000}
	sqe := r.GetSQE()
	sqe.PrepareTimeout(ts, 0, 0)
	sqe.SetData64(7)
	if _, err := r.Submit(); err != nil {
		t.Fatal(err)
	}
	c := waitOne(t, r)
	if c.UserData != 7 || c.Res != -int32(unix.ETIME) {
		t.Fatalf("timeout CQE %+v, want res -ETIME", c)
	}
}

// TestWaitCQETimeout checks the EXT_ARG wait returns ETIME on an empty CQ
// and a CQE when there is one.
func TestWaitCQETimeout(t *testing.T) {
	r := newTestRing(t, 2, nil)
	if _, err := r.WaitCQETimeout(1_000_000); !errors.Is(err, unix.ETIME) {
		t.Fatalf("WaitCQETimeout on empty ring: %v, want ETIME", err)
	}
	r.GetSQE().PrepareNop()
	if _, err := r.Submit(); err != nil {
		t.Fatal(err)
	}
	cqe, err := r.WaitCQETimeout(1_000_000_000)
	if err != nil || cqe == nil {
		t.Fatalf("WaitCQETimeout: %v", err)
	}
	r.CQESeen(cqe)
}

// TestNoSQArray runs NOPs on a NO_SQARRAY ring, where the kernel gives no
// array and the SQ header must stay intact.
func TestNoSQArray(t *testing.T) {
	r := newTestRing(t, 4, &Params{Flags: SetupNoSQArray})
	if r.Params().SQOff.Array != 0 || r.sq.array != nil {
		t.Fatalf("NO_SQARRAY ring has an array at %d", r.Params().SQOff.Array)
	}
	for round := 0; round < 3; round++ {
		for i := 0; i < 4; i++ {
			r.GetSQE().PrepareNop()
		}
		if n, err := r.SubmitAndWait(4); err != nil || n != 4 {
			t.Fatalf("SubmitAndWait = %d, %v", n, err)
		}
		out := make([]CompletionQueueEvent, 8)
		if n := r.CopyCQEs(out); n != 4 {
			t.Fatalf("CopyCQEs = %d", n)
		}
	}
}

// TestFeaturesAndOffsets checks the kernel's answer is exposed and the
// offsets come from it.
func TestFeaturesAndOffsets(t *testing.T) {
	r := newTestRing(t, 8, &Params{Flags: SetupCQSize, CQEntries: 16})
	p := r.Params()
	if r.Features()&FeatSingleMmap == 0 || r.cqMem != nil {
		t.Fatalf("features %v: expected one ring mapping", FeatureNames(r.Features()))
	}
	if p.SQEntries != 8 || p.CQEntries != 16 || r.CQEntries() != 16 {
		t.Fatalf("sizes sq %d cq %d", p.SQEntries, p.CQEntries)
	}
	if p.SQOff.Array == 0 || p.CQOff.CQEs == 0 {
		t.Fatalf("offsets not filled: %+v %+v", p.SQOff, p.CQOff)
	}
}
