package run

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/psync"
	"github.com/gofio/gofio/jobfile"
)

// recorder wraps psync: it stamps every write buffer with its offset,
// checks that every read returns the block laid out for its offset, and
// records each I/O.
type recorder struct {
	engines.Engine
	bufs [][]byte
	off  []uint64
	op   []engines.Op
	log  *ioLog
}

type ioLog struct {
	mu      sync.Mutex
	ios     []rec
	badRead []string
	opens   int
}

type rec struct {
	op  engines.Op
	off uint64
	n   int
}

func (l *ioLog) opener() engines.Opener {
	return func(s engines.Setup) (engines.Engine, error) {
		e, err := psync.Open(s)
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		l.opens++
		l.mu.Unlock()
		return &recorder{Engine: e, bufs: s.Bufs, off: make([]uint64, s.Depth), op: make([]engines.Op, s.Depth), log: l}, nil
	}
}

func (r *recorder) SyncIO() bool { return true }

func (r *recorder) Queue(slot uint32, q *engines.Request) error {
	if q.Op == engines.OpWrite {
		for i := 0; i+8 <= len(q.Buf); i += 512 {
			binary.LittleEndian.PutUint64(q.Buf[i:], q.Offset+uint64(i))
		}
	}
	r.off[slot], r.op[slot] = q.Offset, q.Op
	r.log.mu.Lock()
	r.log.ios = append(r.log.ios, rec{q.Op, q.Offset, len(q.Buf)})
	r.log.mu.Unlock()
	return r.Engine.Queue(slot, q)
}

func (r *recorder) Reap(out []engines.Completion, min int) (int, error) {
	n, err := r.Engine.Reap(out, min)
	for _, c := range out[:n] {
		if r.op[c.Slot] != engines.OpRead || c.Res <= 0 {
			continue
		}
		b := r.bufs[c.Slot][:c.Res]
		for i := 0; i+8 <= len(b); i += 512 {
			want := r.off[c.Slot] + uint64(i)
			if got := binary.LittleEndian.Uint64(b[i:]); got != want {
				r.log.mu.Lock()
				r.log.badRead = append(r.log.badRead, fmt.Sprintf("read at %d: block says %d", want, got))
				r.log.mu.Unlock()
			}
		}
	}
	return n, err
}

// stampedFile writes a file of size bytes whose every 512-byte sector
// starts with its own offset.
func stampedFile(t *testing.T, path string, size int) {
	t.Helper()
	b := make([]byte, size)
	for i := 0; i+8 <= size; i += 512 {
		binary.LittleEndian.PutUint64(b[i:], uint64(i))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRWModesMoveRightBytes(t *testing.T) {
	const (
		fileSize = 256 << 10
		offset   = 16 << 10
		size     = 128 << 10
		bs       = 4096
	)
	tests := []struct {
		rw      jobfile.RW
		mix     int
		depth   int
		wantR   bool
		wantW   bool
		ordered bool // offsets must ascend per direction
	}{
		// Sequential reads visit every block in order.
		{jobfile.RWRead, 50, 1, true, false, true},
		// Sequential writes, batched at depth 4.
		{jobfile.RWWrite, 50, 4, false, true, true},
		// Random reads visit every block once.
		{jobfile.RWRandRead, 50, 8, true, false, false},
		// Random writes visit every block once.
		{jobfile.RWRandWrite, 50, 8, false, true, false},
		// Mixed sequential: each direction walks its own position.
		{jobfile.RWReadWrite, 50, 2, true, true, true},
		// Mixed random, 70% reads.
		{jobfile.RWRandRW, 70, 4, true, true, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.rw), func(t *testing.T) {
			dir := t.TempDir()
			j := testJob(dir, "data", tt.rw, "rec")
			setDepth(j, tt.depth)
			j.Offset, j.Size, j.RWMixRead = offset, size, tt.mix
			stampedFile(t, j.Filenames[0], fileSize)
			log := &ioLog{}
			res := mustRun(t, []*jobfile.Job{j}, Options{Engines: map[string]engines.Opener{"rec": log.opener()}})
			if len(log.badRead) > 0 {
				t.Fatalf("reads returned the wrong blocks: %v", log.badRead[:min(5, len(log.badRead))])
			}
			r := res.Jobs[0]
			if got := r.Dirs[0].TotalIOs + r.Dirs[1].TotalIOs; got != size/bs || len(log.ios) != size/bs {
				t.Fatalf("%d I/Os reported, %d issued, want %d", got, len(log.ios), size/bs)
			}
			if got := r.Dirs[0].IOBytes + r.Dirs[1].IOBytes; got != size {
				t.Fatalf("%d bytes, want %d", got, size)
			}
			seen := map[uint64]int{}
			last := map[engines.Op]int64{engines.OpRead: -1, engines.OpWrite: -1}
			for _, io := range log.ios {
				if io.off < offset || io.off+uint64(io.n) > offset+size || io.off%bs != 0 || io.n != bs {
					t.Fatalf("I/O %+v outside the region [%d,%d) or misaligned", io, offset, offset+size)
				}
				if tt.ordered && int64(io.off) <= last[io.op] {
					t.Fatalf("sequential %v went from %d to %d", io.op, last[io.op], io.off)
				}
				last[io.op] = int64(io.off)
				seen[io.off]++
			}
			if !tt.ordered || tt.rw == jobfile.RWRead || tt.rw == jobfile.RWWrite {
				if len(seen) != size/bs {
					t.Fatalf("%d distinct blocks touched, want every one of %d", len(seen), size/bs)
				}
			}
			if (r.Dirs[0].TotalIOs > 0) != tt.wantR || (r.Dirs[1].TotalIOs > 0) != tt.wantW {
				t.Fatalf("directions: %d reads, %d writes", r.Dirs[0].TotalIOs, r.Dirs[1].TotalIOs)
			}
			// Read the file back: written blocks carry their own offset,
			// and nothing outside the region changed.
			got, err := os.ReadFile(j.Filenames[0])
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != fileSize {
				t.Fatalf("file is %d bytes, want %d (never truncated)", len(got), fileSize)
			}
			for i := 0; i+8 <= fileSize; i += 512 {
				if v := binary.LittleEndian.Uint64(got[i:]); v != uint64(i) {
					t.Fatalf("sector at %d says %d", i, v)
				}
			}
			var writes int
			for _, io := range log.ios {
				if io.op == engines.OpWrite {
					writes++
				}
			}
			if uint64(writes) != r.Dirs[1].TotalIOs {
				t.Fatalf("%d writes issued, %d reported", writes, r.Dirs[1].TotalIOs)
			}
		})
	}
}

func TestLayoutCreatesAndUnlinks(t *testing.T) {
	dir := t.TempDir()
	j := testJob(dir, "lay", jobfile.RWRead, "psync")
	j.Filenames = nil
	j.Directory = []string{dir}
	j.NrFiles = 2
	j.Unlink = true
	var info syncBuf
	mustRun(t, []*jobfile.Job{j}, Options{Info: &info})
	for _, n := range []string{"lay.0.0", "lay.0.1"} {
		if _, err := os.Stat(dir + "/" + n); !os.IsNotExist(err) {
			t.Errorf("%s: unlink=1 left the created file (err %v)", n, err)
		}
	}
	// One line for the job, fio's size in whole MiB rounded down.
	if want := "lay: Laying out IO files (2 files / total 0MiB)\n"; info.String() != want {
		t.Errorf("layout lines %q, want %q", info.String(), want)
	}
	// An existing file is neither truncated nor unlinked.
	path := dir + "/keep"
	stampedFile(t, path, 1<<20)
	j2 := testJob(dir, "keep", jobfile.RWWrite, "psync")
	j2.Filenames = []string{path}
	j2.Unlink = true
	mustRun(t, []*jobfile.Job{j2}, Options{})
	st, err := os.Stat(path)
	if err != nil || st.Size() != 1<<20 {
		t.Fatalf("existing file: %v, size %d; want kept at 1 MiB", err, st.Size())
	}
}

type syncBuf struct {
	mu sync.Mutex
	b  []byte
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append(s.b, p...)
	return len(p), nil
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.b)
}
