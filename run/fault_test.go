package run

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/iouring"
	"github.com/gofio/gofio/engines/null"
	"github.com/gofio/gofio/engines/psync"
	"github.com/gofio/gofio/internal/loopdev"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// eagainEngine completes a request with -EAGAIN on every queueing whose
// number (per slot) is not a multiple of every; every == 0 means always.
type eagainEngine struct {
	engines.Engine
	every  int
	queued []int
	fail   []bool
}

func (e *eagainEngine) Queue(slot uint32, r *engines.Request) error {
	e.queued[slot]++
	e.fail[slot] = e.every == 0 || e.queued[slot]%e.every != 0
	return e.Engine.Queue(slot, r)
}

func (e *eagainEngine) Reap(out []engines.Completion, min int) (int, error) {
	n, err := e.Engine.Reap(out, min)
	for i := range out[:n] {
		if e.fail[out[i].Slot] {
			out[i].Res = -int32(unix.EAGAIN)
		}
	}
	return n, err
}

func eagainOpener(every int) engines.Opener {
	return func(s engines.Setup) (engines.Engine, error) {
		e, err := null.Open(s)
		return &eagainEngine{Engine: e, every: every, queued: make([]int, s.Depth), fail: make([]bool, s.Depth)}, err
	}
}

// TestEAGAINRetried: an I/O that completes with -EAGAIN is resubmitted and
// counted once, and the run says how many were retried; one that never
// stops failing ends the job with EAGAIN instead of spinning.
func TestEAGAINRetried(t *testing.T) {
	engs := map[string]engines.Opener{"again2": eagainOpener(2), "again4": eagainOpener(4), "never": eagainOpener(0)}
	tests := []struct {
		engine  string
		depth   int
		retries int // per I/O
	}{
		// Every I/O fails once, at depth 1.
		{"again2", 1, 1},
		// Every I/O fails three times, at depth 8.
		{"again4", 8, 3},
	}
	for _, tt := range tests {
		j := testJob(t.TempDir(), "again", jobfile.RWRandRead, tt.engine)
		setDepth(j, tt.depth)
		var warn syncBuf
		r := mustRun(t, []*jobfile.Job{j}, Options{Engines: engs, Warn: &warn}).Jobs[0]
		ds := r.Dirs[0]
		if ds.TotalIOs != 16 || ds.IOBytes != 64<<10 || ds.Clat.N != 16 || histCount(&ds.ClatHist) != 16 {
			t.Errorf("%s: ios=%d bytes=%d clat=%d; want 16 I/Os of 64 KiB counted once", tt.engine, ds.TotalIOs, ds.IOBytes, ds.Clat.N)
		}
		note := strings.Join(r.EngineNotes, "; ")
		want := "completed with EAGAIN and were resubmitted"
		if !strings.Contains(note, want) || !strings.Contains(note, itoa(16*tt.retries)+" I/Os") || !strings.Contains(warn.String(), want) {
			t.Errorf("%s: notes %q, warnings %q; want %d retries reported", tt.engine, note, warn.String(), 16*tt.retries)
		}
	}
	j := testJob(t.TempDir(), "never", jobfile.RWRead, "never")
	j.ContinueOnError = jobfile.ContinueAll
	res, err := Run(context.Background(), []*jobfile.Job{j}, Options{Engines: engs})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Jobs[0]; r.Error != int(unix.EAGAIN) || r.Dirs[0].TotalIOs != 1 {
		t.Errorf("endless EAGAIN: err=%d after %d I/Os; want EAGAIN after the first", r.Error, r.Dirs[0].TotalIOs)
	}
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// TestWriteErrorsContinueOnError: write errors obey continue_on_error like
// reads do: EIO skipped and counted with write or all, fatal without.
func TestWriteErrorsContinueOnError(t *testing.T) {
	engs := map[string]engines.Opener{"eio": failOpener(int32(unix.EIO))}
	tests := []struct {
		coe      string
		wantErr  int
		totalErr uint64
	}{
		// EIO ends a write job by default.
		{"none", int(unix.EIO), 0},
		// continue_on_error=read does not cover writes.
		{"read", int(unix.EIO), 0},
		// write skips and counts the 8 failing blocks.
		{"write", 0, 8},
		// all does too.
		{"all", 0, 8},
	}
	for _, tt := range tests {
		j := testJob(t.TempDir(), "w", jobfile.RWWrite, "eio")
		j.ContinueOnError, _ = jobfile.ParseContinueOn(tt.coe)
		res, err := Run(context.Background(), []*jobfile.Job{j}, Options{Engines: engs})
		if err != nil {
			t.Fatal(err)
		}
		r := res.Jobs[0]
		if r.Error != tt.wantErr || r.TotalErr != tt.totalErr {
			t.Errorf("continue_on_error=%s: err=%d total_err=%d, want %d and %d", tt.coe, r.Error, r.TotalErr, tt.wantErr, tt.totalErr)
		}
		if tt.wantErr == 0 && (r.Dirs[1].TotalIOs != 16 || r.Dirs[1].IOBytes != 32<<10) {
			t.Errorf("continue_on_error=%s: %d I/Os, %d bytes; want 16 issued, 32 KiB done", tt.coe, r.Dirs[1].TotalIOs, r.Dirs[1].IOBytes)
		}
	}
}

// TestENOSPCOnFullTmpfs runs jobs bigger than a 1 MiB tmpfs: writes end
// their job with ENOSPC, laying out a read job's file fails its job the
// same way, other jobs of the run go on, and nothing hangs.
func TestENOSPCOnFullTmpfs(t *testing.T) {
	uringOK(t)
	dir := mountTmpfs(t, "1m")
	other := testJob(t.TempDir(), "other", jobfile.RWRead, "psync")
	tests := []struct {
		name   string
		rw     jobfile.RW
		engine string
		depth  int
		setup  bool // the failure is in laying the file out
	}{
		// psync sequential writes run into the full filesystem.
		{"psync-write", jobfile.RWWrite, "psync", 1, false},
		// io_uring random writes at depth 16.
		{"uring-randwrite", jobfile.RWRandWrite, "io_uring", 16, false},
		// A read job cannot lay out its 4 MiB file.
		{"layout", jobfile.RWRead, "psync", 1, true},
	}
	for _, tt := range tests {
		j := testJob(dir, tt.name, tt.rw, tt.engine)
		j.Size = 4 << 20
		j.Unlink = true
		j.NoSpaceCheck = true // lay out and write past the free space, as fio
		setDepth(j, tt.depth)
		res, err := Run(context.Background(), []*jobfile.Job{j, other}, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		r := res.Jobs[0]
		if r.Error != int(unix.ENOSPC) || !strings.HasSuffix(r.ErrorText, ", error=No space left on device") {
			t.Errorf("%s: err=%d %q; want ENOSPC", tt.name, r.Error, r.ErrorText)
		}
		// fio's verror: func=write for the layout, io_u error for I/O.
		if want := map[bool]string{true: "func=write,", false: "func=io_u error,"}[tt.setup]; !strings.HasPrefix(r.ErrorText, want) {
			t.Errorf("%s: error text %q, want it to start with %q", tt.name, r.ErrorText, want)
		}
		if !tt.setup && (r.Dirs[1].IOBytes == 0 || r.Dirs[1].IOBytes > 1<<20) {
			t.Errorf("%s: wrote %d bytes before ENOSPC; want some, at most the 1 MiB the filesystem holds", tt.name, r.Dirs[1].IOBytes)
		}
		if o := res.Jobs[1]; o.Error != 0 || o.Dirs[0].TotalIOs != 16 {
			t.Errorf("%s: the other job: err=%d, %d I/Os", tt.name, o.Error, o.Dirs[0].TotalIOs)
		}
		if _, err := os.Stat(j.Filenames[0]); !os.IsNotExist(err) {
			t.Errorf("%s: unlink=1 left the file gofio created", tt.name)
		}
	}
}

// shrinkEngine calls shrink once, after the engine reaped its after-th
// completion: the target goes away under in-flight I/O.
type shrinkEngine struct {
	engines.Engine
	after  int
	reaped int
	shrink func()
}

func (s *shrinkEngine) SyncIO() bool {
	se, ok := s.Engine.(syncEngine)
	return ok && se.SyncIO()
}

func (s *shrinkEngine) Reap(out []engines.Completion, min int) (int, error) {
	n, err := s.Engine.Reap(out, min)
	if s.reaped < s.after && s.reaped+n >= s.after {
		s.shrink()
	}
	s.reaped += n
	return n, err
}

// TestTargetVanishesMidRun drops a loop device's capacity to zero (its
// backing file truncated, LOOP_SET_CAPACITY) while a job runs on it: the
// job ends with an error, without hanging or panicking, and the run
// returns.
func TestTargetVanishesMidRun(t *testing.T) {
	uringOK(t)
	tests := []struct {
		rw     jobfile.RW
		engine string
		direct bool
		depth  int
	}{
		// Reads get 0 bytes: fio's "full resid" EIO.
		{jobfile.RWRead, "psync", false, 1},
		// O_DIRECT random reads in flight on io_uring.
		{jobfile.RWRandRead, "io_uring", true, 16},
		// Writes past the end get ENOSPC.
		{jobfile.RWWrite, "psync", true, 1},
		// O_DIRECT random writes on io_uring, time_based.
		{jobfile.RWRandWrite, "io_uring", true, 16},
	}
	for _, tt := range tests {
		d := loopdev.New(t, 8<<20)
		shrink := func() {
			if err := os.Truncate(d.Backing, 0); err != nil {
				t.Error(err)
			}
			fd, err := unix.Open(d.Path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Error(err)
				return
			}
			defer unix.Close(fd)
			if err := unix.IoctlSetInt(fd, unix.LOOP_SET_CAPACITY, 0); err != nil {
				t.Error(err)
			}
		}
		base := map[string]engines.Opener{"psync": psync.Open, "io_uring": iouring.Open}[tt.engine]
		engs := map[string]engines.Opener{tt.engine: func(s engines.Setup) (engines.Engine, error) {
			e, err := base(s)
			return &shrinkEngine{Engine: e, after: 64, shrink: shrink}, err
		}}
		j := testJob("", "vanish", tt.rw, tt.engine)
		j.Filenames = []string{d.Path}
		j.Size = 0 // the whole device
		j.Direct = tt.direct
		j.TimeBased, j.Runtime = tt.rw == jobfile.RWRandWrite, time.Hour
		setDepth(j, tt.depth)
		var res *report.Result
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			res, err = Run(context.Background(), []*jobfile.Job{j}, Options{Engines: engs})
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Minute): // a hang guard, not a timing assertion
			t.Fatalf("%s %s: the run hangs after the target went away", tt.rw, tt.engine)
		}
		if err != nil {
			t.Fatalf("%s %s: %v", tt.rw, tt.engine, err)
		}
		r := res.Jobs[0]
		if r.Error == 0 {
			t.Errorf("%s %s: no error after the device went away (%d reads, %d writes)", tt.rw, tt.engine, r.Dirs[0].TotalIOs, r.Dirs[1].TotalIOs)
		}
		t.Logf("%s %s: err=%d %s", tt.rw, tt.engine, r.Error, r.ErrorText)
	}
}
