package uring

import (
	"fmt"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// The benchmarks below mirror bench/liburing/uring_floor.c case by case
// (same names), so bench/liburing/run.sh can put each next to its C floor.

// BenchmarkNop measures NOP throughput: one op is one NOP, submitted and
// reaped in batches of the given size with one io_uring_enter per batch
// (SubmitAndWait, like io_uring_submit_and_wait).
func BenchmarkNop(b *testing.B) {
	for _, batch := range []uint32{1, 8, 32, 128} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			benchNop(b, newTestRing(b, batch, nil), batch)
		})
	}
}

// BenchmarkNopRegRing is BenchmarkNop/batch=1 entering through a
// registered ring fd (RegisterRingFd, IORING_ENTER_REGISTERED_RING), which
// saves the kernel's fd lookup on every enter. The C floor registers its
// ring fd too.
func BenchmarkNopRegRing(b *testing.B) {
	b.Run("batch=1", func(b *testing.B) {
		r := lockedRegRing(b, 1)
		defer unlockRing(b, r)
		benchNop(b, r, 1)
	})
}

// benchNop is the loop of BenchmarkNop on ring r.
func benchNop(b *testing.B, r *Ring, batch uint32) {
	b.ReportAllocs()
	b.ResetTimer()
	defer reportCPU(b)()
	for done := 0; done < b.N; done += int(batch) {
		for i := uint32(0); i < batch; i++ {
			r.GetSQE().PrepareNop()
		}
		if _, err := r.SubmitAndWait(batch); err != nil {
			b.Fatal(err)
		}
		r.CQAdvance(r.CQReady())
	}
}

// BenchmarkNopSubmitThenWait submits one NOP with Submit (no wait in the
// enter), then takes its CQE with WaitCQE, which finds it already posted
// and makes no syscall: the shape of gofio's and fio's io_uring engines,
// which submit and reap in separate calls.
func BenchmarkNopSubmitThenWait(b *testing.B) {
	r := newTestRing(b, 1, nil)
	b.ReportAllocs()
	b.ResetTimer()
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		r.GetSQE().PrepareNop()
		if n, err := r.Submit(); err != nil || n != 1 {
			b.Fatalf("submit: %d %v", n, err)
		}
		cqe, err := r.WaitCQE()
		if err != nil {
			b.Fatal(err)
		}
		r.CQESeen(cqe)
	}
}

// BenchmarkRead4KDirect measures the round trip of one 4 KiB O_DIRECT read
// of a tmpfs file: prepare, submit-and-wait, consume. The goroutine is
// locked to its thread, as gofio's engine runs its rings: io-wq keeps a
// worker pool per submitting thread, so a goroutine that wanders between
// threads makes the kernel start workers for each.
func BenchmarkRead4KDirect(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	benchRead4KDirect(b, newTestRing(b, 1, nil))
}

// BenchmarkRead4KDirectRegRing is BenchmarkRead4KDirect through a
// registered ring fd.
func BenchmarkRead4KDirectRegRing(b *testing.B) {
	r := lockedRegRing(b, 1)
	defer unlockRing(b, r)
	benchRead4KDirect(b, r)
}

// benchRead4KDirect is the loop of BenchmarkRead4KDirect on ring r.
func benchRead4KDirect(b *testing.B, r *Ring) {
	const fileSize = 16 << 20
	f := shmFile(b, fileSize, unix.O_DIRECT)
	buf := alignedBuf(b, 4096)
	fd := int(f.Fd())
	b.ReportAllocs()
	b.ResetTimer()
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		r.GetSQE().PrepareRead(fd, buf, uint64(i*4096)%fileSize)
		if _, err := r.SubmitAndWait(1); err != nil {
			b.Fatal(err)
		}
		// tmpfs has no RWF_NOWAIT support, so the read goes through io-wq
		// and the wait may be cut short by a signal: wait, don't peek.
		cqe, err := r.WaitCQE()
		if err != nil || cqe.Res != 4096 {
			b.Fatalf("read: %v %v", err, cqe)
		}
		r.CQESeen(cqe)
	}
}

// lockedRegRing locks the calling goroutine to its thread and sets up a
// ring whose fd is registered in that thread's table. Release both with
// unlockRing from the same goroutine.
func lockedRegRing(b *testing.B, entries uint32) *Ring {
	runtime.LockOSThread()
	r := NewRing()
	if err := r.QueueInit(entries, 0); err != nil {
		runtime.UnlockOSThread()
		b.Fatalf("QueueInit(%d): %v", entries, err)
	}
	if err := r.RegisterRingFd(); err != nil {
		r.QueueExit()
		runtime.UnlockOSThread()
		b.Fatalf("RegisterRingFd: %v", err)
	}
	return r
}

// unlockRing tears down a ring from lockedRegRing and unlocks the thread.
func unlockRing(b *testing.B, r *Ring) {
	if err := r.QueueExit(); err != nil {
		b.Errorf("QueueExit: %v", err)
	}
	runtime.UnlockOSThread()
}

// reportCPU starts measuring the process's CPU time (all threads: the
// runtime's, and io-wq workers for reads) and returns a function that
// reports it per operation as cpu-ns/op. Unlike ns/op it leaves out the
// time the process waited for a CPU, so it stays comparable when the
// machine is shared; uring_floor.c reports the same metric.
func reportCPU(b *testing.B) func() {
	start := processCPU(b)
	return func() {
		b.ReportMetric(float64(processCPU(b)-start)/float64(b.N), "cpu-ns/op")
	}
}

// processCPU returns CLOCK_PROCESS_CPUTIME_ID in nanoseconds.
func processCPU(b *testing.B) int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		b.Fatalf("clock_gettime: %v", err)
	}
	return ts.Nano()
}
