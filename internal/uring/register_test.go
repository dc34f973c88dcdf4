package uring

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestIOWQMaxWorkers sets limits, gets the old ones back, and reads the
// new ones with a {0, 0} query.
func TestIOWQMaxWorkers(t *testing.T) {
	r := newTestRing(t, 8, nil)
	old, err := r.RegisterIOWQMaxWorkers([2]uint32{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if old[0] == 0 || old[1] == 0 {
		t.Fatalf("old limits %v, want non-zero defaults", old)
	}
	now, err := r.RegisterIOWQMaxWorkers([2]uint32{})
	if err != nil {
		t.Fatal(err)
	}
	if now != [2]uint32{2, 3} {
		t.Fatalf("limits after set: %v, want [2 3]", now)
	}
	if _, err := r.RegisterIOWQMaxWorkers(old); err != nil {
		t.Fatal(err)
	}
}

// TestIOWQAff restricts io-wq to CPU 0 and lifts it.
func TestIOWQAff(t *testing.T) {
	r := newTestRing(t, 8, nil)
	var set unix.CPUSet
	set.Set(0)
	if err := r.RegisterIOWQAff(&set); err != nil {
		t.Fatal(err)
	}
	if err := r.UnregisterIOWQAff(); err != nil {
		t.Fatal(err)
	}
}

// TestProbe checks the opcodes gofio uses are reported supported and an
// out-of-range one is not.
func TestProbe(t *testing.T) {
	p, err := GetProbe()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []uint8{OpNop, OpReadv, OpWritev, OpFsync, OpReadFixed, OpWriteFixed, OpTimeout, OpRead, OpWrite} {
		if !p.IsSupported(op) {
			t.Errorf("op %d not supported (last op %d)", op, p.LastOp)
		}
	}
	if p.IsSupported(255) {
		t.Error("op 255 reported supported")
	}
}

// TestRegisterRingFd enters through the registered index and unregisters
// on QueueExit.
func TestRegisterRingFd(t *testing.T) {
	runtime.LockOSThread() // the registered index is the thread's
	defer runtime.UnlockOSThread()
	r := NewRing()
	if err := r.QueueInit(4, 0); err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterRingFd(); err != nil {
		r.QueueExit()
		t.Fatal(err)
	}
	r.GetSQE().PrepareNop()
	if n, err := r.SubmitAndWait(1); err != nil || n != 1 {
		t.Fatalf("SubmitAndWait through registered ring = %d, %v", n, err)
	}
	waitOne(t, r)
	if err := r.QueueExit(); err != nil {
		t.Fatal(err)
	}
}

// TestRegisterFilesInt32 registers two fds and checks the second is
// reachable as index 1 (giouring passed 8-byte ints here).
func TestRegisterFilesInt32(t *testing.T) {
	r := newTestRing(t, 2, nil)
	a := shmFile(t, 4096, 0)
	b := shmFile(t, 8192, 0)
	if err := r.RegisterFiles([]int32{int32(a.Fd()), int32(b.Fd())}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	sqe := r.GetSQE()
	sqe.PrepareRead(1, buf, 4096) // offset 4096 exists only in file b
	sqe.SetFlags(SqeFixedFile)
	if _, err := r.SubmitAndWait(1); err != nil {
		t.Fatal(err)
	}
	if c := waitOne(t, r); c.Res != 4096 {
		t.Fatalf("read from registered index 1: res %d", c.Res)
	}
}
