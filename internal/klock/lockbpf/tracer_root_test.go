package lockbpf

import (
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/klock"
)

// contend runs n threads that map and unmap memory for d, so that they
// contend on the process's mmap_lock (an rwsem) and the page allocator's
// locks, and returns their thread ids once they run.
func contend(t *testing.T, n int, d time.Duration, start <-chan struct{}) (tids []int, done *sync.WaitGroup) {
	t.Helper()
	done = &sync.WaitGroup{}
	ready := make(chan int, n)
	for range n {
		done.Add(1)
		go func() {
			defer done.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ready <- unix.Gettid()
			<-start
			for end := time.Now().Add(d); time.Now().Before(end); {
				b, err := unix.Mmap(-1, 0, 1<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
				if err != nil {
					t.Error(err)
					return
				}
				for i := 0; i < len(b); i += 4096 {
					b[i] = 1
				}
				unix.Munmap(b)
			}
		}()
	}
	for range n {
		tids = append(tids, <-ready)
	}
	return tids, done
}

// TestContention traces threads that contend on their process's
// mmap_lock and finds their contentions, wait, CPU time and sites, none
// of them a lock primitive or the tracer's own frame: with BTF-typed raw
// tracepoints, and with the classic ones that serve without BTF. Root
// only.
func TestContention(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("loading BPF programs needs root; skipping")
	}
	for _, tracefs := range []bool{false, true} {
		t.Run(map[bool]string{false: "btf", true: "tracefs"}[tracefs], func(t *testing.T) { checkContention(t, tracefs) })
	}
}

func checkContention(t *testing.T, tracefsOnly bool) {
	start := make(chan struct{})
	tids, done := contend(t, 4, 300*time.Millisecond, start)
	tr, err := Open(Config{Pid: os.Getpid(), Tids: tids[:3], Euid: 0, TracefsOnly: tracefsOnly})
	if err != nil {
		t.Fatal(err)
	}
	close(start)
	done.Wait()
	l := tr.Close(1000)
	t.Logf("%+v", *l)
	for _, s := range l.Sites {
		t.Logf("site %-40s %-8s count=%d wait=%dns spin=%dns", s.Name, s.Subsystem, s.Count, s.WaitNs, s.SpinNs)
	}
	if !l.Available || l.Contentions == 0 || l.WaitNs == 0 || l.CPUNs == 0 || l.Threads != 3 || l.IOs != 1000 {
		t.Fatalf("figures: %+v", *l)
	}
	var sum uint64
	for _, s := range l.Sites {
		if klock.LockPrimitive(s.Name) || s.Name == "" || strings.HasPrefix(s.Name, "bpf_") {
			t.Errorf("site %q is a lock primitive or the tracer's", s.Name)
		}
		sum += s.Count
	}
	if sum != l.Contentions || l.SpinNs > l.WaitNs {
		t.Fatalf("sites sum to %d of %d; spin %d of wait %d", sum, l.Contentions, l.SpinNs, l.WaitNs)
	}
}

// TestReset: contention before Reset (ramp_time) is not counted, nor the
// threads' CPU time before it (the threads have stopped, though one may
// run the test's own code meanwhile). Root only.
func TestReset(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("loading BPF programs needs root; skipping")
	}
	start := make(chan struct{})
	tids, done := contend(t, 4, 200*time.Millisecond, start)
	tr, err := Open(Config{Pid: os.Getpid(), Tids: tids, Euid: 0})
	if err != nil {
		t.Fatal(err)
	}
	close(start)
	done.Wait()
	if before := tr.readSites(); len(before) == 0 {
		tr.Close(0)
		t.Skip("no contention before the reset to leave out")
	}
	tr.Reset()
	l := tr.Close(10)
	if !l.Available || l.Contentions != 0 || len(l.Sites) != 0 || l.CPUNs > 50e6 {
		t.Fatalf("after the reset: %+v", *l)
	}
}

// TestHiddenSymbols: where kernel.kptr_restrict hides /proc/kallsyms'
// addresses (given here through Config.Symbols), the contentions are still
// counted, under klock.UnknownSite, and a note says why. Root only.
func TestHiddenSymbols(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("loading BPF programs needs root; skipping")
	}
	start := make(chan struct{})
	tids, done := contend(t, 4, 300*time.Millisecond, start)
	tr, err := Open(Config{Pid: os.Getpid(), Tids: tids, Symbols: func() (*klock.Symbols, error) {
		return nil, klock.ErrHiddenAddresses
	}})
	if err != nil {
		t.Fatal(err)
	}
	close(start)
	done.Wait()
	l := tr.Close(1)
	if l.Contentions == 0 {
		t.Skip("no contention to attribute")
	}
	if !l.Available || len(l.Sites) != 1 || l.Sites[0].Name != klock.UnknownSite ||
		!strings.Contains(l.Note, "sites unresolved: /proc/kallsyms shows no addresses") {
		t.Fatalf("figures: %+v", *l)
	}
}
