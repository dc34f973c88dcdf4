package null

import (
	"testing"

	"github.com/gofio/gofio/engines"
)

func TestCompletesAtSubmit(t *testing.T) {
	e, err := Open(engines.Setup{Depth: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	buf := make([]byte, 4096)
	reqs := []engines.Request{
		{Op: engines.OpRead, Buf: buf},        // full length
		{Op: engines.OpWrite, Buf: buf[:512]}, // full length
		{Op: engines.OpFsync},                 // 0 bytes
	}
	for i := range reqs {
		if err := e.Queue(uint32(i), &reqs[i]); err != nil {
			t.Fatal(err)
		}
	}
	out := make([]engines.Completion, 4)
	if n, _ := e.Reap(out, 0); n != 0 {
		t.Fatalf("%d completions before Submit", n)
	}
	if n, err := e.Submit(); n != 3 || err != nil {
		t.Fatalf("Submit = %d, %v", n, err)
	}
	n, _ := e.Reap(out[:2], 1)
	m, _ := e.Reap(out[2:], 1)
	want := []engines.Completion{{Slot: 0, Res: 4096}, {Slot: 1, Res: 512}, {Slot: 2, Res: 0}}
	if n+m != 3 {
		t.Fatalf("reaped %d", n+m)
	}
	for i, w := range want {
		if out[i] != w {
			t.Errorf("completion %d = %+v, want %+v", i, out[i], w)
		}
	}
	for i := 0; i < 4; i++ {
		if err := e.Queue(uint32(i), &reqs[0]); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Queue(0, &reqs[0]); err == nil {
		t.Error("queued a fifth request at depth 4")
	}
}
