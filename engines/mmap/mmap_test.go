package mmap

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

func run(t *testing.T, e engines.Engine, r engines.Request) int32 {
	t.Helper()
	if err := e.Queue(0, &r); err != nil {
		t.Fatal(err)
	}
	if n, err := e.Submit(); n != 1 || err != nil {
		t.Fatalf("Submit = %d, %v", n, err)
	}
	out := make([]engines.Completion, 1)
	if n, _ := e.Reap(out, 1); n != 1 {
		t.Fatal("no completion")
	}
	return out[0].Res
}

func TestReadWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(64 << 10); err != nil {
		t.Fatal(err)
	}
	job := &jobfile.Job{RW: jobfile.RWRandRW, Direct: true}
	e, err := Open(engines.Setup{Job: job, Files: []int{int(f.Fd())}, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	w := []byte("through the mapping")
	if res := run(t, e, engines.Request{Op: engines.OpWrite, Offset: 8192, Buf: w}); res != int32(len(w)) {
		t.Fatalf("write res %d", res)
	}
	if res := run(t, e, engines.Request{Op: engines.OpFsync}); res != 0 {
		t.Fatalf("msync res %d", res)
	}
	got := make([]byte, len(w))
	if _, err := f.ReadAt(got, 8192); err != nil || string(got) != string(w) {
		t.Fatalf("file has %q, %v", got, err)
	}
	r := make([]byte, len(w))
	if res := run(t, e, engines.Request{Op: engines.OpRead, Offset: 8192, Buf: r}); res != int32(len(w)) || string(r) != string(w) {
		t.Fatalf("read res %d %q", res, r)
	}
	if res := run(t, e, engines.Request{Op: engines.OpRead, Offset: 64<<10 - 4, Buf: r}); res != -int32(unix.EINVAL) {
		t.Errorf("read past EOF: res %d, want EINVAL", res)
	}
	// The file shrinks under the mapping: the fault is an I/O error, not a crash.
	if err := f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	if res := run(t, e, engines.Request{Op: engines.OpRead, Offset: 32 << 10, Buf: r}); res != -int32(unix.EIO) {
		t.Errorf("read of a truncated mapping: res %d, want EIO", res)
	}
	if err := e.Close(); err != nil {
		t.Error(err)
	}
}
