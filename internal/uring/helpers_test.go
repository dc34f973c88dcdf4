package uring

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// newTestRing sets up a ring from p and tears it down at the end of the test.
func newTestRing(t testing.TB, entries uint32, p *Params) *Ring {
	t.Helper()
	if p == nil {
		p = &Params{}
	}
	r := NewRing()
	if err := r.QueueInitParams(entries, p); err != nil {
		t.Fatalf("QueueInitParams(%d): %v", entries, err)
	}
	t.Cleanup(func() {
		if err := r.QueueExit(); err != nil {
			t.Errorf("QueueExit: %v", err)
		}
	})
	return r
}

// alignedBuf returns n bytes of page-aligned anonymous memory, unmapped at
// the end of the test.
func alignedBuf(t testing.TB, n int) []byte {
	t.Helper()
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatalf("mmap %d: %v", n, err)
	}
	t.Cleanup(func() { unix.Munmap(b) })
	return b
}

// shmFile creates a size-byte file on /dev/shm (tmpfs), removed at the end
// of the test, and opens it with flags (O_RDWR is added).
func shmFile(t testing.TB, size int64, flags int) *os.File {
	t.Helper()
	f, err := os.CreateTemp("/dev/shm", "gofio-uring-*")
	if err != nil {
		t.Fatalf("tmpfs file: %v", err)
	}
	name := f.Name()
	f.Close()
	t.Cleanup(func() { os.Remove(name) })
	if err := os.Truncate(name, size); err != nil {
		t.Fatal(err)
	}
	f, err = os.OpenFile(name, os.O_RDWR|flags, 0)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// waitOne waits for one CQE, copies it out and consumes it.
func waitOne(t testing.TB, r *Ring) CompletionQueueEvent {
	t.Helper()
	cqe, err := r.WaitCQE()
	if err != nil {
		t.Fatalf("WaitCQE: %v", err)
	}
	c := *cqe
	r.CQESeen(cqe)
	return c
}

// fill writes a recognisable pattern derived from seed into b.
func fill(b []byte, seed byte) {
	for i := range b {
		b[i] = seed + byte(i*7)
	}
}
