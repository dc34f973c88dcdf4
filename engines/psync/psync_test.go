package psync

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

func TestReadWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e, err := Open(engines.Setup{Files: []int{int(f.Fd())}, Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !e.(*Engine).SyncIO() {
		t.Fatal("psync must report SyncIO")
	}
	w := []byte("hello, psync")
	r := make([]byte, 64)
	out := make([]engines.Completion, 2)
	steps := []struct {
		req  engines.Request
		want int32
	}{
		{engines.Request{Op: engines.OpWrite, Offset: 100, Buf: w}, int32(len(w))}, // pwrite at 100
		{engines.Request{Op: engines.OpFdatasync}, 0},                              // fdatasync
		{engines.Request{Op: engines.OpRead, Offset: 100, Buf: r}, int32(len(w))},  // short read at EOF
		{engines.Request{Op: engines.OpRead, Offset: 1 << 20, Buf: r}, 0},          // read past EOF
		{engines.Request{Op: engines.OpRead, File: 0, Offset: 1<<63 - 1, Buf: r}, -22},
	}
	for i, s := range steps {
		if err := e.Queue(1, &s.req); err != nil {
			t.Fatal(err)
		}
		if n, err := e.Submit(); n != 1 || err != nil {
			t.Fatalf("step %d: Submit = %d, %v", i, n, err)
		}
		if n, _ := e.Reap(out, 1); n != 1 || out[0].Slot != 1 || out[0].Res != s.want {
			t.Fatalf("step %d: reaped %d %+v, want res %d", i, n, out[0], s.want)
		}
	}
	if string(r[:len(w)]) != string(w) {
		t.Errorf("read back %q", r[:len(w)])
	}
	// A trim is BLKDISCARD, as in fio's sync engines; a regular file
	// refuses it with ENOTTY.
	if err := e.Queue(0, &engines.Request{Op: engines.OpTrim, Buf: r}); err != nil {
		t.Fatalf("trim: %v", err)
	}
	e.Submit()
	if n, _ := e.Reap(out, 1); n != 1 || out[0].Res != -int32(unix.ENOTTY) {
		t.Errorf("trim: reaped %d %+v, want res -ENOTTY", n, out[0])
	}
}

// TestVariants runs a write, a read back, a sync and a read at EOF through
// every variant of the sync family.
func TestVariants(t *testing.T) {
	for _, v := range []Variant{PSync, Sync, VSync, PVSync, PVSync2} {
		path := filepath.Join(t.TempDir(), "f")
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Opener(v)(engines.Setup{Files: []int{int(f.Fd())}, Depth: 1})
		if err != nil {
			t.Fatal(err)
		}
		w := []byte("variant data, not at offset zero")
		r := make([]byte, 64)
		out := make([]engines.Completion, 1)
		for i, s := range []struct {
			req  engines.Request
			want int32
		}{
			{engines.Request{Op: engines.OpWrite, Offset: 4096, Buf: w}, int32(len(w))},
			{engines.Request{Op: engines.OpFsync}, 0},
			{engines.Request{Op: engines.OpRead, Offset: 4096, Buf: r[:len(w)]}, int32(len(w))},
			{engines.Request{Op: engines.OpRead, Offset: 4096 + uint64(len(w)), Buf: r}, 0}, // sync: no lseek needed
			{engines.Request{Op: engines.OpRead, Offset: 0, Buf: r[:8]}, 8},                 // a hole reads zeros
		} {
			if err := e.Queue(0, &s.req); err != nil {
				t.Fatal(err)
			}
			e.Submit()
			if n, _ := e.Reap(out, 1); n != 1 || out[0].Res != s.want {
				t.Errorf("variant %d step %d: res %d, want %d", v, i, out[0].Res, s.want)
			}
			if i == 2 && string(r[:len(w)]) != string(w) {
				t.Errorf("variant %d read back %q", v, r[:len(w)])
			}
		}
		e.Close()
		f.Close()
	}
}

// TestPVSync2Flags checks that nowait and uncached reach pwritev2 and that
// the kernel takes them on a regular file (RWF_DONTCACHE needs Linux 6.14;
// older kernels answer EOPNOTSUPP, which the test accepts).
func TestPVSync2Flags(t *testing.T) {
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "f"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	job := &jobfile.Job{NoWait: true, Uncached: true}
	e, err := Opener(PVSync2)(engines.Setup{Job: job, Files: []int{int(f.Fd())}, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.(*Engine).flags; got != unix.RWF_NOWAIT|unix.RWF_DONTCACHE {
		t.Fatalf("flags %#x", got)
	}
	out := make([]engines.Completion, 1)
	e.Queue(0, &engines.Request{Op: engines.OpWrite, Buf: make([]byte, 4096)})
	e.Submit()
	e.Reap(out, 1)
	if res := out[0].Res; res != 4096 && res != -int32(unix.EOPNOTSUPP) && res != -int32(unix.EAGAIN) {
		t.Errorf("pwritev2 with RWF_NOWAIT|RWF_DONTCACHE: res %d", res)
	}
}

// TestFallocFtruncate checks fio's falloc and ftruncate semantics: a
// falloc write extends, a read keeps the size, a trim punches a hole; an
// ftruncate write sets the size to its offset and a read is EINVAL.
func TestFallocFtruncate(t *testing.T) {
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "f"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	size := func() int64 {
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	out := make([]engines.Completion, 1)
	do := func(e engines.Engine, r engines.Request) int32 {
		if err := e.Queue(0, &r); err != nil {
			t.Fatal(err)
		}
		e.Submit()
		e.Reap(out, 1)
		return out[0].Res
	}
	buf := make([]byte, 8192)
	fa, _ := Opener(Falloc)(engines.Setup{Files: []int{int(f.Fd())}, Depth: 1})
	if res := do(fa, engines.Request{Op: engines.OpWrite, Offset: 8192, Buf: buf}); res != 8192 || size() != 16384 {
		t.Errorf("falloc write: res %d size %d, want 8192 and 16384", res, size())
	}
	if res := do(fa, engines.Request{Op: engines.OpRead, Offset: 65536, Buf: buf}); res != 8192 || size() != 16384 {
		t.Errorf("falloc read: res %d size %d, want 8192 and 16384 (KEEP_SIZE)", res, size())
	}
	if res := do(fa, engines.Request{Op: engines.OpTrim, Offset: 8192, Buf: buf}); res != 8192 && res != -int32(unix.EOPNOTSUPP) {
		t.Errorf("falloc trim (punch hole): res %d", res)
	}
	ft, _ := Opener(Ftruncate)(engines.Setup{Files: []int{int(f.Fd())}, Depth: 1})
	if res := do(ft, engines.Request{Op: engines.OpWrite, Offset: 4096, Buf: buf}); res != 8192 || size() != 4096 {
		t.Errorf("ftruncate write: res %d size %d, want 8192 and 4096", res, size())
	}
	if res := do(ft, engines.Request{Op: engines.OpRead, Offset: 0, Buf: buf}); res != -int32(unix.EINVAL) {
		t.Errorf("ftruncate read: res %d, want EINVAL", res)
	}
}

// TestNoAllocs checks that no variant allocates per request.
func TestNoAllocs(t *testing.T) {
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "f"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Truncate(1 << 20)
	buf := make([]byte, 4096)
	out := make([]engines.Completion, 1)
	for _, v := range []Variant{PSync, Sync, VSync, PVSync, PVSync2, Falloc} {
		j := &jobfile.Job{Hipri: true}
		j.SetEngineConfig(&Options{HipriPercentage: 50})
		e, _ := Opener(v)(engines.Setup{Job: j, Files: []int{int(f.Fd())}, Depth: 1})
		req := &engines.Request{Op: engines.OpRead, Buf: buf}
		if a := testing.AllocsPerRun(50, func() { e.Queue(0, req); e.Submit(); e.Reap(out, 1) }); a != 0 {
			t.Errorf("variant %d: %v allocations per request, want 0", v, a)
		}
	}
}
