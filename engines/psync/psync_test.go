package psync

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gofio/gofio/engines"
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
	if err := e.Queue(0, &engines.Request{Op: engines.OpTrim}); err == nil {
		t.Error("trim accepted")
	}
}
