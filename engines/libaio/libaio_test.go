package libaio

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// mapped returns n page-aligned buffers of size bytes outside the Go heap,
// as the run core's arena gives them.
func mapped(t *testing.T, n, size int) [][]byte {
	mem, err := unix.Mmap(-1, 0, n*size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(mem) })
	out := make([][]byte, n)
	for i := range out {
		out[i] = mem[i*size : (i+1)*size : (i+1)*size]
	}
	return out
}

func openFile(t *testing.T) int {
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "f"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return int(f.Fd())
}

// reapAll reaps until want completions arrived, returning them by slot.
func reapAll(t *testing.T, e engines.Engine, want int, min int) map[uint32]int32 {
	t.Helper()
	got := map[uint32]int32{}
	out := make([]engines.Completion, want)
	for len(got) < want {
		n, err := e.Reap(out, min)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range out[:n] {
			got[c.Slot] = c.Res
		}
	}
	return got
}

// TestWriteSyncRead writes, syncs, reads back and trims through the
// engine, with plain reads and writes and with libaio_vectored's.
func TestWriteSyncRead(t *testing.T) {
	for _, vectored := range []bool{false, true} {
		t.Run(map[bool]string{false: "pread", true: "preadv"}[vectored], func(t *testing.T) { writeSyncRead(t, vectored) })
	}
}

func writeSyncRead(t *testing.T, vectored bool) {
	fd := openFile(t)
	bufs := mapped(t, 4, 4096)
	job := &jobfile.Job{Direct: true}
	job.SetEngineConfig(&Options{Vectored: vectored})
	eng, err := Open(engines.Setup{Job: job, Files: []int{fd}, Bufs: bufs, Depth: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	wantOp := map[bool]uint16{false: cmdPwrite, true: cmdPwritev}[vectored]
	for i := 0; i < 4; i++ {
		for k := range bufs[i] {
			bufs[i][k] = byte(i + 1)
		}
		if err := eng.Queue(uint32(i), &engines.Request{Op: engines.OpWrite, Offset: uint64(i) * 4096, Buf: bufs[i]}); err != nil {
			t.Fatal(err)
		}
	}
	if op := eng.(*Engine).iocbs[3].opcode; op != wantOp {
		t.Fatalf("write iocb opcode %d, want %d", op, wantOp)
	}
	if n, err := eng.Submit(); n != 4 || err != nil {
		t.Fatalf("Submit = %d, %v", n, err)
	}
	for slot, res := range reapAll(t, eng, 4, 4) {
		if res != 4096 {
			t.Errorf("write slot %d: res %d", slot, res)
		}
	}
	// The syncs run inside Queue, as in fio's engine: nothing is
	// submitted or reaped for them.
	for _, op := range []engines.Op{engines.OpFsync, engines.OpFdatasync, engines.OpSyncFileRange} {
		if err := eng.Queue(2, &engines.Request{Op: op, SyncLen: 4096}); err != nil {
			t.Fatal(err)
		}
		qc := eng.(engines.QueueCompleter)
		if res, ok := qc.CompletedAtQueue(1); ok {
			t.Errorf("op %d: slot 1 completed at queue (res %d); the sync was queued in slot 2", op, res)
		}
		if res, ok := qc.CompletedAtQueue(2); !ok || res != 0 {
			t.Errorf("op %d: CompletedAtQueue = %d, %v; want 0, true", op, res, ok)
		}
		if _, ok := qc.CompletedAtQueue(2); ok {
			t.Errorf("op %d: the sync's result handed out twice", op)
		}
		if n, err := eng.Submit(); n != 0 || err != nil {
			t.Errorf("op %d: Submit after a sync = %d, %v; want 0", op, n, err)
		}
	}
	for i := range bufs {
		clear(bufs[i])
		if err := eng.Queue(uint32(i), &engines.Request{Op: engines.OpRead, Offset: uint64(3-i) * 4096, Buf: bufs[i]}); err != nil {
			t.Fatal(err)
		}
	}
	if op := eng.(*Engine).iocbs[3].opcode; op != wantOp-1 {
		t.Fatalf("read iocb opcode %d, want %d", op, wantOp-1)
	}
	eng.Submit()
	for slot, res := range reapAll(t, eng, 4, 1) {
		if res != 4096 || bufs[slot][0] != byte(4-slot) {
			t.Errorf("read slot %d: res %d, data %d", slot, res, bufs[slot][0])
		}
	}
	st := eng.(*Engine).Stats()
	if st.SubmitCalls != 2 || st.WaitCalls == 0 { // the writes and the reads; the syncs ran in Queue
		t.Errorf("stats %+v", st)
	}
	// A trim runs in Queue with BLKDISCARD, as in fio's engine; a
	// regular file refuses it with ENOTTY.
	if err := eng.Queue(0, &engines.Request{Op: engines.OpTrim, Buf: bufs[0]}); err != nil {
		t.Fatalf("trim: %v", err)
	}
	if n, err := eng.Submit(); n != 1 || err != nil {
		t.Fatalf("trim: Submit = %d, %v", n, err)
	}
	out := make([]engines.Completion, 1)
	if n, err := eng.Reap(out, 1); n != 1 || err != nil || out[0].Res != -int32(unix.ENOTTY) {
		t.Fatalf("trim: reaped %d %+v, %v; want res -ENOTTY", n, out[0], err)
	}
	// Trims done at queue count towards a reap's minimum: two of them
	// meet a minimum of 1 (io_getevents refuses a negative one).
	for slot := uint32(0); slot < 2; slot++ {
		if err := eng.Queue(slot, &engines.Request{Op: engines.OpTrim, Buf: bufs[slot]}); err != nil {
			t.Fatalf("trim: %v", err)
		}
	}
	eng.Submit()
	out = make([]engines.Completion, 4)
	if n, err := eng.Reap(out, 1); n != 2 || err != nil {
		t.Fatalf("two trims: reaped %d, %v; want 2", n, err)
	}
}

// TestUserspaceReap checks that a harvest (min 0) and a polling wait read
// completions from the kernel's ring without io_getevents.
func TestUserspaceReap(t *testing.T) {
	fd := openFile(t)
	bufs := mapped(t, 2, 4096)
	if err := unix.Ftruncate(fd, 1<<20); err != nil {
		t.Fatal(err)
	}
	job := &jobfile.Job{}
	job.SetEngineConfig(&Options{UserspaceReap: true})
	eng, err := Open(engines.Setup{Job: job, Files: []int{fd}, Bufs: bufs, Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	e := eng.(*Engine)
	if e.ringEv == nil || !e.poll {
		t.Fatalf("ring not mapped for user-space reaping (magic %#x)", e.ring.magic)
	}
	for round := 0; round < 3; round++ {
		for i := 0; i < 2; i++ {
			eng.Queue(uint32(i), &engines.Request{Op: engines.OpRead, Offset: uint64(i) << 12, Buf: bufs[i]})
		}
		if n, err := eng.Submit(); n != 2 || err != nil {
			t.Fatalf("Submit = %d, %v", n, err)
		}
		for slot, res := range reapAll(t, eng, 2, 2) {
			if res != 4096 {
				t.Errorf("slot %d res %d", slot, res)
			}
		}
	}
	if e.waits != 0 || e.ringReaps == 0 {
		t.Errorf("waits %d (want 0), ring reaps %d", e.waits, e.ringReaps)
	}
	if w := e.Stats().Warnings; len(w) != 1 {
		t.Errorf("direct=0 gives %q, want one warning", w)
	}
}

// TestIOPrio checks that a request's ioprio reaches the iocb with
// IOCB_FLAG_IOPRIO, and that the kernel takes it.
func TestIOPrio(t *testing.T) {
	fd := openFile(t)
	bufs := mapped(t, 1, 4096)
	eng, err := Open(engines.Setup{Files: []int{fd}, Bufs: bufs, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	prio := uint16(2<<13 | 3) // best effort, level 3
	if err := eng.Queue(0, &engines.Request{Op: engines.OpWrite, Buf: bufs[0], IOPrio: prio}); err != nil {
		t.Fatal(err)
	}
	cb := eng.(*Engine).iocbs[0]
	if cb.flags&flagIOPrio == 0 || uint16(cb.reqprio) != prio {
		t.Fatalf("iocb flags %#x reqprio %#x", cb.flags, cb.reqprio)
	}
	eng.Submit()
	if got := reapAll(t, eng, 1, 1); got[0] != 4096 {
		t.Errorf("prioritised write res %d", got[0])
	}
}

// TestNoAllocs checks that a queue, submit and reap cycle allocates
// nothing: the hot path of a libaio job.
func TestNoAllocs(t *testing.T) {
	for _, vectored := range []bool{false, true} {
		noAllocs(t, vectored)
	}
}

func noAllocs(t *testing.T, vectored bool) {
	fd := openFile(t)
	if err := unix.Ftruncate(fd, 1<<20); err != nil {
		t.Fatal(err)
	}
	bufs := mapped(t, 1, 4096)
	job := &jobfile.Job{}
	job.SetEngineConfig(&Options{Vectored: vectored})
	eng, err := Open(engines.Setup{Job: job, Files: []int{fd}, Bufs: bufs, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	req := &engines.Request{Op: engines.OpRead, Buf: bufs[0]}
	out := make([]engines.Completion, 1)
	allocs := testing.AllocsPerRun(100, func() {
		eng.Queue(0, req)
		eng.Submit()
		for n := 0; n == 0; {
			n, _ = eng.Reap(out, 1)
		}
	})
	if allocs != 0 {
		t.Errorf("vectored %v: %v allocations per I/O, want 0", vectored, allocs)
	}
}
