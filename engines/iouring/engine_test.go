package iouring

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/uring"
	"github.com/gofio/gofio/jobfile"
)

const testBS = 4096

// newJob returns a job with the defaults the front end would give.
func newJob() *jobfile.Job {
	return &jobfile.Job{Name: "t", IOEngine: "io_uring", IODepth: 4, Direct: true,
		SQThreadPollCPU: -1, NonVectored: -1, BS: [jobfile.NumDirs]uint64{testBS, testBS, testBS}}
}

// testFile makes a size-byte tmpfs file whose block i is filled with byte i,
// opened O_DIRECT, and closed and removed after the test.
func testFile(t testing.TB, blocks int) int {
	t.Helper()
	return testFileFlags(t, blocks, unix.O_DIRECT)
}

// testFileFlags is testFile with the open flags given.
func testFileFlags(t testing.TB, blocks int, flags int) int {
	t.Helper()
	f, err := os.CreateTemp("/dev/shm", "gofio-iouring-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(f.Name()) })
	for i := 0; i < blocks; i++ {
		if _, err := f.Write(bytes.Repeat([]byte{byte(i)}, testBS)); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	fd, err := unix.Open(f.Name(), unix.O_RDWR|flags, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

// slotBufs returns depth page-aligned buffers of testBS bytes.
func slotBufs(t testing.TB, depth int) [][]byte {
	t.Helper()
	mem, err := unix.Mmap(-1, 0, depth*testBS, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(mem) })
	bufs := make([][]byte, depth)
	for i := range bufs {
		bufs[i] = mem[i*testBS : (i+1)*testBS : (i+1)*testBS]
	}
	return bufs
}

// openEngine opens the engine on a locked thread, closed at the end of the
// test.
func openEngine(t testing.TB, job *jobfile.Job, fds []int, depth int) (*Engine, [][]byte) {
	t.Helper()
	return openEngineOn(t, uring.Kernel{}, job, fds, depth)
}

// openEngineOn is openEngine with rings set up through k.
func openEngineOn(t testing.TB, k uring.Kernel, job *jobfile.Job, fds []int, depth int) (*Engine, [][]byte) {
	t.Helper()
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	bufs := slotBufs(t, depth)
	eng, err := OpenOn(k)(engines.Setup{Job: job, Files: fds, Bufs: bufs, Depth: depth})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	e := eng.(*Engine)
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e, bufs
}

// readAll reads every block through the engine, depth at a time, and
// checks each block's content.
func readAll(t *testing.T, e *Engine, bufs [][]byte, blocks int) {
	t.Helper()
	depth := len(bufs)
	out := make([]engines.Completion, depth)
	block := make([]int, depth)
	for base := 0; base < blocks; base += depth {
		n := min(depth, blocks-base)
		for s := 0; s < n; s++ {
			block[s] = base + s
			clear(bufs[s])
			req := engines.Request{Op: engines.OpRead, Offset: uint64(block[s] * testBS), Buf: bufs[s]}
			if err := e.Queue(uint32(s), &req); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := e.Submit(); err != nil || got != n {
			t.Fatalf("Submit = %d, %v; want %d", got, err, n)
		}
		got := 0
		for got < n {
			k, err := e.Reap(out[got:n], n-got)
			if err != nil {
				t.Fatal(err)
			}
			got += k
		}
		for _, c := range out[:n] {
			if c.Res != testBS {
				t.Fatalf("slot %d: res %d", c.Slot, c.Res)
			}
			want := byte(block[c.Slot])
			if bufs[c.Slot][0] != want || bufs[c.Slot][testBS-1] != want {
				t.Fatalf("slot %d: block %d read wrong data", c.Slot, block[c.Slot])
			}
		}
	}
}

// TestEngineOptions reads a tmpfs file under each engine option.
func TestEngineOptions(t *testing.T) {
	tests := []struct {
		name     string
		depth    int
		set      func(*jobfile.Job)
		flag     string // a setup flag the ring must have
		buffered bool   // open without O_DIRECT
	}{
		{"default", 4, func(*jobfile.Job) {}, "CQSIZE", false},
		{"depth 3 not rounded", 3, func(*jobfile.Job) {}, "CQSIZE", false},
		{"fixedbufs", 4, func(j *jobfile.Job) { j.FixedBufs = true }, "", false},
		{"registerfiles", 4, func(j *jobfile.Job) { j.RegisterFiles = true }, "", false},
		{"vectored", 4, func(j *jobfile.Job) { j.NonVectored = 0 }, "", false},
		{"nonvectored", 4, func(j *jobfile.Job) { j.NonVectored = 1 }, "", false},
		{"force_async=2", 4, func(j *jobfile.Job) { j.ForceAsync = 2 }, "", false},
		{"cmdprio", 4, func(j *jobfile.Job) {}, "", false},
		{"coop_taskrun", 4, func(j *jobfile.Job) { j.CoopTaskrun = true }, "COOP_TASKRUN", false},
		{"defer_taskrun", 4, func(j *jobfile.Job) { j.DeferTaskrun = true }, "DEFER_TASKRUN", false},
		{"iowq_max_workers", 4, func(j *jobfile.Job) { j.IOWQMaxWorkers = [2]uint32{2, 4} }, "", false},
		{"sqthread_poll", 4, func(j *jobfile.Job) { j.SQThreadPoll = true; j.SQThreadIdle = 50 * time.Millisecond }, "SQPOLL", false},
		{"sqthread_poll_cpu", 4, func(j *jobfile.Job) { j.SQThreadPoll = true; j.SQThreadPollCPU = 0 }, "SQ_AFF", false},
		{"sqpoll+fixedbufs", 8, func(j *jobfile.Job) { j.SQThreadPoll = true; j.FixedBufs = true }, "SQPOLL", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const blocks = 32
			flags := unix.O_DIRECT
			if tt.buffered {
				flags = 0
			}
			fd := testFileFlags(t, blocks, flags)
			job := newJob()
			tt.set(job)
			e, bufs := openEngine(t, job, []int{fd}, tt.depth)
			if tt.flag != "" && !strings.Contains(strings.Join(e.Stats().SetupFlags, "|"), tt.flag) {
				t.Fatalf("setup flags %v lack %s", e.Stats().SetupFlags, tt.flag)
			}
			readAll(t, e, bufs, blocks)
			st := e.Stats()
			if len(st.Warnings) != 0 {
				t.Errorf("warnings: %v", st.Warnings)
			}
			if job.SQThreadPoll && st.SQPollTID == 0 {
				t.Error("no SQPOLL thread id")
			}
			if !job.SQThreadPoll && st.SubmitCalls == 0 {
				t.Error("no submit calls counted")
			}
		})
	}
}

// TestEngineWriteFsync writes blocks with fixed buffers, fdatasyncs and
// fsyncs, and reads them back.
func TestEngineWriteFsync(t *testing.T) {
	const blocks, depth = 8, 4
	fd := testFile(t, blocks)
	job := newJob()
	job.FixedBufs = true
	e, bufs := openEngine(t, job, []int{fd}, depth)
	out := make([]engines.Completion, depth)
	run := func(reqs ...engines.Request) {
		for i := range reqs {
			if err := e.Queue(uint32(i), &reqs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.Submit(); err != nil {
			t.Fatal(err)
		}
		for got := 0; got < len(reqs); {
			k, err := e.Reap(out[got:], len(reqs)-got)
			if err != nil {
				t.Fatal(err)
			}
			got += k
		}
		for _, c := range out[:len(reqs)] {
			if c.Res < 0 {
				t.Fatalf("slot %d: %v", c.Slot, unix.Errno(-c.Res))
			}
		}
	}
	for b := 0; b < blocks; b += depth {
		var reqs []engines.Request
		for s := 0; s < depth; s++ {
			fill := bytes.Repeat([]byte{byte(100 + b + s)}, testBS)
			copy(bufs[s], fill)
			reqs = append(reqs, engines.Request{Op: engines.OpWrite, Offset: uint64((b + s) * testBS), Buf: bufs[s]})
		}
		run(reqs...)
	}
	run(engines.Request{Op: engines.OpFdatasync}, engines.Request{Op: engines.OpFsync})
	for b := 0; b < blocks; b++ {
		run(engines.Request{Op: engines.OpRead, Offset: uint64(b * testBS), Buf: bufs[0]})
		if bufs[0][0] != byte(100+b) {
			t.Fatalf("block %d: read back %d", b, bufs[0][0])
		}
	}
	// A trim runs in Queue with BLKDISCARD, as in fio's engine; a
	// regular file refuses it with ENOTTY.
	if err := e.Queue(0, &engines.Request{Op: engines.OpTrim, Buf: bufs[0]}); err != nil {
		t.Fatalf("trim: %v", err)
	}
	if n, err := e.Submit(); n != 1 || err != nil {
		t.Fatalf("trim: Submit = %d, %v", n, err)
	}
	out = make([]engines.Completion, 1)
	if n, err := e.Reap(out, 1); n != 1 || err != nil || out[0].Res != -int32(unix.ENOTTY) {
		t.Fatalf("trim: reaped %d %+v, %v; want res -ENOTTY", n, out[0], err)
	}
}

// TestEngineShortReadRequeue reads past the end of the file: the kernel
// returns a short read, and the remainder is requeued from Request.BufOff.
func TestEngineShortReadRequeue(t *testing.T) {
	fd := testFile(t, 2)
	job := newJob()
	job.FixedBufs = true
	e, bufs := openEngine(t, job, []int{fd}, 1)
	// A 4 KiB read at the last block completes; one at EOF returns 0.
	req := engines.Request{Op: engines.OpRead, Offset: testBS, Buf: bufs[0]}
	out := make([]engines.Completion, 1)
	if err := e.Queue(0, &req); err != nil {
		t.Fatal(err)
	}
	e.Submit()
	if _, err := e.Reap(out, 1); err != nil || out[0].Res != testBS {
		t.Fatalf("read: %v %+v", err, out[0])
	}
	req = engines.Request{Op: engines.OpRead, Offset: 2 * testBS, Buf: bufs[0][512:], BufOff: 512}
	if err := e.Queue(0, &req); err != nil {
		t.Fatal(err)
	}
	e.Submit()
	if _, err := e.Reap(out, 1); err != nil || out[0].Res != 0 {
		t.Fatalf("read at EOF: %v %+v", err, out[0])
	}
}

// TestEngineHipriRefused: tmpfs cannot be polled, so hipri fails at Open
// with the explanation.
func TestEngineHipriRefused(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fd := testFile(t, 1)
	job := newJob()
	job.Hipri = true
	_, err := Open(engines.Setup{Job: job, Files: []int{fd}, Bufs: slotBufs(t, 1), Depth: 1})
	if !errors.Is(err, ErrNoPollQueues) || !strings.Contains(err.Error(), "poll queues") {
		t.Fatalf("hipri on tmpfs: %v", err)
	}
}

// refuseSQPoll returns a kernel whose io_uring_setup refuses SQPOLL with
// EPERM, as a security module would.
func refuseSQPoll() uring.Kernel {
	return uring.Kernel{Setup: func(n uint32, p *uring.Params) (int, error) {
		if p.Flags&uring.SetupSQPoll != 0 {
			return -1, unix.EPERM
		}
		return uring.SysSetup(n, p)
	}}
}

// TestEngineSQPollFallback makes the kernel refuse SQPOLL (EPERM through
// the setup seam): a gofio thread submits instead, the job loop never
// enters to submit, and one warning says so.
func TestEngineSQPollFallback(t *testing.T) {
	const blocks = 64
	fd := testFile(t, blocks)
	job := newJob()
	job.SQThreadPoll = true
	job.SQThreadIdle = 5 * time.Millisecond
	e, bufs := openEngineOn(t, refuseSQPoll(), job, []int{fd}, 4)
	readAll(t, e, bufs, blocks)
	time.Sleep(20 * time.Millisecond) // let the stand-in fall asleep
	readAll(t, e, bufs, blocks)       // and be woken
	st := e.Stats()
	if len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "refused SQPOLL") {
		t.Fatalf("warnings %q", st.Warnings)
	}
	if e.ring.Stats().SubmitEnters != 0 {
		t.Fatalf("the job loop entered the kernel %d times to submit", e.ring.Stats().SubmitEnters)
	}
	if st.SubmitCalls == 0 || st.SQPollTID == 0 || st.SQPollTID == unix.Gettid() {
		t.Fatalf("stats %+v", st)
	}
	for _, f := range st.SetupFlags {
		if f == "SQPOLL" {
			t.Fatal("SQPOLL reported although the kernel refused it")
		}
	}
}

// TestEngineSetupEPERM: io_uring refused as a whole gives the explanation.
func TestEngineSetupEPERM(t *testing.T) {
	eperm := uring.Kernel{Setup: func(uint32, *uring.Params) (int, error) { return -1, unix.EPERM }}
	fd := testFile(t, 1)
	_, err := OpenOn(eperm)(engines.Setup{Job: newJob(), Files: []int{fd}, Bufs: slotBufs(t, 1), Depth: 1})
	if !errors.Is(err, unix.EPERM) || !strings.Contains(err.Error(), "kernel.io_uring_disabled") {
		t.Fatalf("got %v", err)
	}
}

// TestEngineDeepQueue runs depth 1000 (not a power of two): every slot in
// flight at once, no overflow, nothing dropped.
func TestEngineDeepQueue(t *testing.T) {
	const depth = 1000
	fd := testFile(t, 16)
	e, bufs := openEngine(t, newJob(), []int{fd}, depth)
	for s := 0; s < depth; s++ {
		req := engines.Request{Op: engines.OpRead, Offset: uint64(s%16) * testBS, Buf: bufs[s]}
		if err := e.Queue(uint32(s), &req); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := e.Submit(); err != nil || n != depth {
		t.Fatalf("Submit = %d, %v", n, err)
	}
	out := make([]engines.Completion, depth)
	for got := 0; got < depth; {
		k, err := e.Reap(out[got:], depth-got)
		if err != nil {
			t.Fatal(err)
		}
		got += k
	}
	st := e.Stats()
	if st.DroppedCQEs != 0 || st.OverflowFlush != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestEngineHotPathAllocs proves Queue, Submit and Reap allocate nothing.
func TestEngineHotPathAllocs(t *testing.T) {
	for _, name := range []string{"plain", "fixedbufs+registerfiles", "vectored"} {
		t.Run(name, func(t *testing.T) {
			const depth = 4
			fd := testFile(t, 16)
			job := newJob()
			switch name {
			case "fixedbufs+registerfiles":
				job.FixedBufs, job.RegisterFiles = true, true
			case "vectored":
				job.NonVectored = 0
			}
			e, bufs := openEngine(t, job, []int{fd}, depth)
			if allocs := roundAllocs(e, bufs, depth); allocs != 0 {
				t.Fatalf("%v allocations per Queue/Submit/Reap round", allocs)
			}
		})
	}
}

// TestEngineNowait checks RWF_NOWAIT reaches the kernel: tmpfs refuses it
// (-EOPNOTSUPP, it has no FMODE_NOWAIT), and a loop device over a tmpfs
// file serves it (the read succeeds or says -EAGAIN).
func TestEngineNowait(t *testing.T) {
	fd := testFile(t, 4)
	job := newJob()
	job.NoWait = true
	e, bufs := openEngine(t, job, []int{fd}, 1)
	out := make([]engines.Completion, 1)
	read := func(e *Engine) int32 {
		if err := e.Queue(0, &engines.Request{Op: engines.OpRead, Buf: bufs[0]}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Submit(); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Reap(out, 1); err != nil {
			t.Fatal(err)
		}
		return out[0].Res
	}
	if res := read(e); res != -int32(unix.EOPNOTSUPP) {
		t.Fatalf("nowait read on tmpfs: res %d, want -EOPNOTSUPP", res)
	}
	name := fmt.Sprintf("/proc/self/fd/%d", fd)
	dev, err := exec.Command("losetup", "--find", "--show", name).CombinedOutput()
	if err != nil {
		t.Skipf("losetup failed, no loop device part: %v: %s", err, dev)
	}
	path := strings.TrimSpace(string(dev))
	defer exec.Command("losetup", "-d", path).Run()
	lfd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECT, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(lfd)
	eng, err := Open(engines.Setup{Job: job, Files: []int{lfd}, Bufs: bufs, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if res := read(eng.(*Engine)); res != testBS && res != -int32(unix.EAGAIN) {
		t.Fatalf("nowait read on a loop device: res %d", res)
	}
}

// TestEngineSubmitGetEvents checks that every submitting enter also asks
// for events (min_complete 0), as fio's commit does, so DEFER_TASKRUN
// completions are posted while submitting; with SQPOLL a submit enters
// only to wake the thread, never to get events.
func TestEngineSubmitGetEvents(t *testing.T) {
	tests := []struct {
		name      string
		set       func(*jobfile.Job)
		getEvents bool // each submit enter carries GETEVENTS
	}{
		{"fio's ring flags", func(j *jobfile.Job) { j.TaskrunAuto = true }, true},
		{"defer_taskrun", func(j *jobfile.Job) { j.DeferTaskrun = true }, true},
		{"no task-run flags", func(*jobfile.Job) {}, true},
		{"sqthread_poll", func(j *jobfile.Job) { j.SQThreadPoll = true; j.SQThreadIdle = 50 * time.Millisecond }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const blocks, depth = 16, 4
			fd := testFile(t, blocks)
			job := newJob()
			tt.set(job)
			e, bufs := openEngine(t, job, []int{fd}, depth)
			before := e.ring.Stats()
			out := make([]engines.Completion, 1)
			for i := 0; i < blocks; i++ {
				req := engines.Request{Op: engines.OpRead, Offset: uint64(i * testBS), Buf: bufs[0]}
				if err := e.Queue(0, &req); err != nil {
					t.Fatal(err)
				}
				if n, err := e.Submit(); err != nil || n != 1 {
					t.Fatalf("Submit = %d, %v; want 1", n, err)
				}
				// Reap through the ring directly, so only Submit's enters
				// are counted below.
				for got := 0; got == 0; {
					got = e.copyOut(out)
					if got == 0 {
						if _, err := e.ring.WaitCQENr(1); err != nil {
							t.Fatal(err)
						}
						before.WaitEnters++ // this wait's enter, not Submit's
					}
				}
				if out[0].Res != testBS {
					t.Fatalf("read %d: res %d", i, out[0].Res)
				}
			}
			after := e.ring.Stats()
			submits := after.SubmitEnters - before.SubmitEnters
			waits := after.WaitEnters - before.WaitEnters
			switch {
			case tt.getEvents && (submits != blocks || waits != blocks):
				t.Errorf("%d submit enters, %d of them with GETEVENTS; want %d and %d", submits, waits, blocks, blocks)
			case !tt.getEvents && waits != 0:
				t.Errorf("%d submit enters with GETEVENTS under SQPOLL, want 0", waits)
			}
		})
	}
}

// TestEngineRawWaits checks when the engine's waits keep their P: only
// with Setup.OwnP, and never while the SQPOLL stand-in, which needs a P to
// submit, does the submitting.
func TestEngineRawWaits(t *testing.T) {
	tests := []struct {
		name     string
		ownP     bool
		refuseSQ bool // the kernel refuses SQPOLL: the stand-in submits
		raw      bool // waits go through the raw path
	}{
		{"own P", true, false, true},
		{"shared P", false, false, false},
		{"own P, SQPOLL stand-in", true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			open := Open
			if tt.refuseSQ {
				open = OpenOn(refuseSQPoll())
			}
			const blocks, depth = 64, 4
			fd := testFile(t, blocks)
			job := newJob()
			job.TaskrunAuto = !tt.refuseSQ // DEFER_TASKRUN: nothing is in the CQ before a wait
			job.SQThreadPoll = tt.refuseSQ
			runtime.LockOSThread()
			t.Cleanup(runtime.UnlockOSThread)
			bufs := slotBufs(t, depth)
			eng, err := open(engines.Setup{Job: job, Files: []int{fd}, Bufs: bufs, Depth: depth, OwnP: tt.ownP})
			if err != nil {
				t.Fatal(err)
			}
			e := eng.(*Engine)
			t.Cleanup(func() { e.Close() })
			readAll(t, e, bufs, blocks)
			readAll(t, e, bufs, blocks)
			st := e.ring.Stats()
			if got := st.RawWaitEnters > 0; got != tt.raw {
				t.Errorf("%d raw waits of %d wait enters; want raw waits: %v", st.RawWaitEnters, st.WaitEnters, tt.raw)
			}
		})
	}
}

// TestCanReapTimeout: the engine waits with a time limit only on a kernel
// with IORING_FEAT_EXT_ARG (5.11); on one without, io_timeout falls back
// to its watcher (run/hung.go) instead of failing the wait.
func TestCanReapTimeout(t *testing.T) {
	e, _ := openEngine(t, newJob(), []int{testFile(t, 1)}, 1)
	if got, want := e.CanReapTimeout(), e.ring.Features()&uring.FeatExtArg != 0; got != want {
		t.Errorf("CanReapTimeout %v on a kernel with EXT_ARG %v", got, want)
	}
	old := uring.Kernel{Setup: func(n uint32, p *uring.Params) (int, error) {
		fd, err := uring.SysSetup(n, p)
		p.Features &^= uring.FeatExtArg
		return fd, err
	}}
	e, _ = openEngineOn(t, old, newJob(), []int{testFile(t, 1)}, 1)
	if e.CanReapTimeout() {
		t.Error("CanReapTimeout on a kernel without EXT_ARG")
	}
	if _, err := e.ReapTimeout(make([]engines.Completion, 1), 1, time.Millisecond); !errors.Is(err, unix.EOPNOTSUPP) {
		t.Errorf("ReapTimeout without EXT_ARG: %v, want EOPNOTSUPP", err)
	}
}

// TestEngineUncached checks uncached= reaches the kernel as RWF_DONTCACHE
// on buffered I/O only: tmpfs, which has no FOP_DONTCACHE, refuses it
// (-EOPNOTSUPP), and with direct=1 the flag is not sent.
func TestEngineUncached(t *testing.T) {
	fd := testFile(t, 4)
	for _, direct := range []bool{false, true} {
		job := newJob()
		job.Uncached, job.Direct = true, direct
		e, bufs := openEngine(t, job, []int{fd}, 1)
		if want := map[bool]uint32{false: unix.RWF_DONTCACHE, true: 0}[direct]; e.rwFlags != want {
			t.Errorf("direct=%v: rw_flags %#x, want %#x", direct, e.rwFlags, want)
		}
		if direct {
			continue
		}
		if err := e.Queue(0, &engines.Request{Op: engines.OpRead, Buf: bufs[0]}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Submit(); err != nil {
			t.Fatal(err)
		}
		out := make([]engines.Completion, 1)
		if _, err := e.Reap(out, 1); err != nil {
			t.Fatal(err)
		}
		if out[0].Res != -int32(unix.EOPNOTSUPP) {
			t.Errorf("uncached read on tmpfs: res %d, want -EOPNOTSUPP", out[0].Res)
		}
	}
}

// roundAllocs returns the allocations of one round of depth reads on e
// (Queue each, Submit, Reap until all are back), averaged over 200 rounds.
func roundAllocs(e *Engine, bufs [][]byte, depth int) float64 {
	out := make([]engines.Completion, depth)
	reqs := make([]engines.Request, depth)
	for i := range reqs {
		reqs[i] = engines.Request{Op: engines.OpRead, Offset: uint64(i) * testBS, Buf: bufs[i]}
	}
	return testing.AllocsPerRun(200, func() {
		for i := range reqs {
			if err := e.Queue(uint32(i), &reqs[i]); err != nil {
				panic(err)
			}
		}
		if _, err := e.Submit(); err != nil {
			panic(err)
		}
		for got := 0; got < depth; {
			k, err := e.Reap(out[got:], depth-got)
			if err != nil {
				panic(err)
			}
			got += k
		}
	})
}
