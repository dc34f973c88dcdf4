package engines

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSync checks the scaffold: requests run in queue order at Submit,
// their results come out at Reap, and a full queue, a bad slot or file
// and a refused trim are errors.
func TestSync(t *testing.T) {
	var ran []uint64
	s, err := NewSync("t", 2, 1, false, func(r *Request) int32 {
		ran = append(ran, r.Offset)
		return int32(len(r.Buf))
	})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	for slot, off := range []uint64{4096, 0} {
		if err := s.Queue(uint32(slot), &Request{Op: OpRead, Offset: off, Buf: buf}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Queue(0, &Request{Op: OpRead, Buf: buf}); !errors.Is(err, ErrQueueFull) {
		t.Errorf("third request in two slots: %v", err)
	}
	if n, err := s.Submit(); n != 2 || err != nil || len(ran) != 2 || ran[0] != 4096 {
		t.Fatalf("Submit = %d, %v; ran %v", n, err, ran)
	}
	out := make([]Completion, 4)
	if n, _ := s.Reap(out, 0); n != 2 || out[0] != (Completion{0, 8}) || out[1] != (Completion{1, 8}) {
		t.Errorf("reaped %d: %v", n, out[:n])
	}
	for _, r := range []Request{{Op: OpRead, File: 1}, {Op: OpTrim}} {
		if err := s.Queue(0, &r); err == nil {
			t.Errorf("%+v accepted", r)
		}
	}
	if err := s.Queue(2, &Request{Op: OpRead}); err == nil {
		t.Error("slot 2 of 2 accepted")
	}
	if _, err := NewSync("t", 0, 1, false, nil); err == nil {
		t.Error("depth 0 accepted")
	}
}

// TestSyncNoAllocs checks that the scaffold's queue, submit and reap
// allocate nothing per request.
func TestSyncNoAllocs(t *testing.T) {
	s, _ := NewSync("t", 1, 1, false, func(r *Request) int32 { return int32(len(r.Buf)) })
	req := &Request{Op: OpRead, Buf: make([]byte, 8)}
	out := make([]Completion, 1)
	if a := testing.AllocsPerRun(100, func() { s.Queue(0, req); s.Submit(); s.Reap(out, 1) }); a != 0 {
		t.Errorf("%v allocations per request, want 0", a)
	}
}

// TestSyncFileRange checks that a sync_file_range request makes the call
// (flags the kernel refuses come back as -EINVAL) unless its span is
// empty, when fio makes none.
func TestSyncFileRange(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "sfr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := int(f.Fd())
	const bad = 8 // no SYNC_FILE_RANGE_* flag
	for _, c := range []struct {
		r     Request
		flags int
		want  int32
	}{
		{Request{Op: OpSyncFileRange, Offset: 0, SyncLen: 4096}, unix.SYNC_FILE_RANGE_WRITE, 0},
		{Request{Op: OpSyncFileRange, Offset: 0, SyncLen: 4096}, bad, -int32(unix.EINVAL)},
		{Request{Op: OpSyncFileRange, Offset: ^uint64(0), SyncLen: 0}, bad, 0},
	} {
		if got := SyncFileRange(fd, &c.r, c.flags); got != c.want {
			t.Errorf("%+v flags %d: %d, want %d", c.r, c.flags, got, c.want)
		}
	}
}
