package uring

import (
	"fmt"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkNop measures NOP throughput: one op is one NOP, submitted and
// reaped in batches of the given size with one io_uring_enter per batch.
// bench/liburing/uring_floor.c runs the same loop in C.
func BenchmarkNop(b *testing.B) {
	for _, batch := range []uint32{1, 8, 32, 128} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			r := newTestRing(b, batch, nil)
			b.ReportAllocs()
			b.ResetTimer()
			for done := 0; done < b.N; done += int(batch) {
				for i := uint32(0); i < batch; i++ {
					r.GetSQE().PrepareNop()
				}
				if _, err := r.SubmitAndWait(batch); err != nil {
					b.Fatal(err)
				}
				r.CQAdvance(r.CQReady())
			}
		})
	}
}

// BenchmarkRead4KDirect measures the round trip of one 4 KiB O_DIRECT read
// of a tmpfs file: prepare, submit-and-wait, consume.
func BenchmarkRead4KDirect(b *testing.B) {
	const fileSize = 16 << 20
	f := shmFile(b, fileSize, unix.O_DIRECT)
	r := newTestRing(b, 1, nil)
	buf := alignedBuf(b, 4096)
	fd := int(f.Fd())
	b.ReportAllocs()
	b.ResetTimer()
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
