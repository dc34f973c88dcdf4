package uring

import (
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// countRingFds returns the number of this process's fds that are
// io_uring instances. Only those count: the Go runtime opens its own fds
// (the netpoller's epoll and eventfd, at the first timer) whenever it
// likes, so a count of every fd is not the ring's to answer for.
func countRingFds(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.Contains(l, "io_uring") {
			n++
		}
	}
	return n
}

// countRingMaps returns the number of io_uring mappings of this process.
func countRingMaps(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "io_uring")
}

// TestNoLeakOver1000Rings sets up and tears down 1000 rings of different
// shapes and checks /proc/self/fd and /proc/self/maps are back where they
// started.
func TestNoLeakOver1000Rings(t *testing.T) {
	// A registered ring fd lives in the registering thread's table: the
	// rings' owner must stay on one OS thread, as gofio's job threads do.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	shapes := []Params{
		{},                                  // plain
		{Flags: SetupNoSQArray},             // no SQ array
		{Flags: SetupCQSize, CQEntries: 64}, // bigger CQ
		{Flags: SetupCoopTaskrun | SetupTaskrunFlag},
		{Flags: SetupSQE128 | SetupCQE32}, // big entries
	}
	// Rings of earlier tests that the GC has yet to finalize may close
	// during the loop: a leak is a count that grew, not one that moved.
	runtime.GC()
	fds, maps := countRingFds(t), countRingMaps(t)
	for i := 0; i < 1000; i++ {
		p := shapes[i%len(shapes)]
		r := NewRing()
		if err := r.QueueInitParams(8, &p); err != nil {
			t.Fatalf("ring %d: %v", i, err)
		}
		if i%len(shapes) == 0 {
			if err := r.RegisterRingFd(); err != nil {
				t.Fatal(err)
			}
		}
		r.GetSQE().PrepareNop()
		if _, err := r.SubmitAndWait(1); err != nil {
			t.Fatalf("ring %d (%+v): %v", i, p, err)
		}
		if i == 0 && (countRingMaps(t) == maps || countRingFds(t) == fds) {
			t.Fatal("the ring's fd or mappings are not visible in /proc/self; the test would prove nothing")
		}
		if err := r.QueueExit(); err != nil {
			t.Fatal(err)
		}
	}
	if got := countRingFds(t); got > fds {
		t.Errorf("io_uring fds: %d before, %d after", fds, got)
	}
	if got := countRingMaps(t); got > maps {
		t.Errorf("io_uring mappings: %d before, %d after", maps, got)
	}
}

// TestManyRingsRace runs 16 rings at once, one owner goroutine each, with
// NOPs and tmpfs reads; run it under -race.
func TestManyRingsRace(t *testing.T) {
	f := shmFile(t, 64<<10, 0)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := NewRing()
			if err := r.QueueInit(8, 0); err != nil {
				errs <- err
				return
			}
			defer r.QueueExit()
			buf := make([]byte, 4096)
			out := make([]CompletionQueueEvent, 8)
			for round := 0; round < 200; round++ {
				for i := 0; i < 4; i++ {
					r.GetSQE().PrepareNop()
				}
				r.GetSQE().PrepareRead(int(f.Fd()), buf, uint64(round%16)*4096)
				if _, err := r.SubmitAndWait(5); err != nil {
					errs <- err
					return
				}
				for got := 0; got < 5; {
					got += r.CopyCQEs(out)
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
