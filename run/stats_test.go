package run

import (
	"context"
	"errors"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/null"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

func histCount(h *report.Hist) uint64 {
	var n uint64
	for _, c := range h {
		n += c
	}
	return n
}

func TestFixedSizeCounts(t *testing.T) {
	tests := []struct {
		name   string
		engine string
		rw     jobfile.RW
		depth  int
		batch  int
		size   uint64
		bs     uint64
		loops  int
		nrfile int
	}{
		// null, depth 1: the fio default batch of 1.
		{"null-qd1", "null", jobfile.RWRandRead, 1, 1, 1 << 20, 4096, 1, 1},
		// null, depth 32, submit batches of 8.
		{"null-qd32-batch8", "null", jobfile.RWRandRead, 32, 8, 1 << 20, 4096, 1, 1},
		// null, loops=3 over 2 files.
		{"null-loops", "null", jobfile.RWRead, 16, 16, 256 << 10, 8192, 3, 2},
		// psync write: depth capped at 1.
		{"psync-write", "psync", jobfile.RWWrite, 8, 1, 512 << 10, 4096, 1, 1},
		// psync randrw with 64k blocks.
		{"psync-randrw", "psync", jobfile.RWRandRW, 1, 1, 1 << 20, 65536, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := testJob(t.TempDir(), "fixed", tt.rw, tt.engine)
			setDepth(j, tt.depth)
			j.IODepthBatchSubmit = tt.batch
			j.Size, j.Loops = tt.size, tt.loops
			j.BS = [jobfile.NumDirs]uint64{tt.bs, tt.bs, tt.bs}
			if tt.nrfile > 1 {
				j.Filenames = []string{j.Filenames[0] + ".a", j.Filenames[0] + ".b"}
			}
			r := mustRun(t, []*jobfile.Job{j}, Options{}).Jobs[0]
			wantIOs := tt.size / tt.bs * uint64(tt.loops)
			var ios, bytes, depthSum, submitted uint64
			for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
				ds := &r.Dirs[d]
				ios += ds.TotalIOs
				bytes += ds.IOBytes
				if hc := histCount(&ds.ClatHist); hc != ds.TotalIOs || ds.Clat.N != ds.TotalIOs || ds.Lat.N != ds.TotalIOs {
					t.Errorf("%s: clat hist %d, clat N %d, lat N %d, I/Os %d", d, hc, ds.Clat.N, ds.Lat.N, ds.TotalIOs)
				}
				if ds.TotalIOs == 0 {
					continue
				}
				if ds.Clat.Max > ds.Lat.Max || ds.Clat.Min > ds.Lat.Min || ds.Clat.Mean > ds.Lat.Mean {
					t.Errorf("%s: clat %+v exceeds lat %+v", d, ds.Clat, ds.Lat)
				}
				if ds.Slat.N > 0 {
					// lat = slat + clat for every sample, so the sums agree.
					sum := ds.Slat.Mean*float64(ds.Slat.N) + ds.Clat.Mean*float64(ds.Clat.N)
					lat := ds.Lat.Mean * float64(ds.Lat.N)
					if math.Abs(sum-lat) > 1e-6*lat+1 {
						t.Errorf("%s: slat+clat sum %.0f, lat sum %.0f", d, sum, lat)
					}
				}
				if ds.Runtime <= 0 {
					t.Errorf("%s: runtime %v", d, ds.Runtime)
				}
			}
			if ios != wantIOs || bytes != wantIOs*tt.bs {
				t.Fatalf("I/Os %d bytes %d, want %d and %d", ios, bytes, wantIOs, wantIOs*tt.bs)
			}
			for _, c := range r.IODepth {
				depthSum += c
			}
			for _, c := range r.LatNs {
				submitted += c
			}
			for _, c := range r.LatUs {
				submitted += c
			}
			for _, c := range r.LatMs {
				submitted += c
			}
			if depthSum != ios || submitted != ios {
				t.Errorf("IO depths sum %d, latency buckets sum %d, want %d", depthSum, submitted, ios)
			}
			if histCount(&r.TWWaitHist) != ios || r.TWWait.N != ios {
				t.Errorf("tw wait samples %d/%d, want %d", histCount(&r.TWWaitHist), r.TWWait.N, ios)
			}
			wantSubmits := wantIOs / uint64(min(tt.batch, tt.depth))
			if tt.engine == "null" && tt.depth == 1 {
				// Synchronous null: fio marks no submit calls.
				wantSubmits = 0
			}
			if tt.engine == "null" && r.SubmitCalls != wantSubmits {
				t.Errorf("submit calls %d, want %d", r.SubmitCalls, wantSubmits)
			}
			if r.Policy != "priority" || r.JobRuntime <= 0 {
				t.Errorf("policy %q runtime %v", r.Policy, r.JobRuntime)
			}
		})
	}
}

func TestBucketRules(t *testing.T) {
	depth := []struct{ d, want int }{{1, 0}, {2, 1}, {3, 1}, {4, 2}, {7, 2}, {8, 3}, {16, 4}, {31, 4}, {32, 5}, {63, 5}, {64, 6}, {16384, 6}}
	for _, c := range depth {
		if got := depthBucket(c.d); got != c.want {
			t.Errorf("depthBucket(%d) = %d, want %d", c.d, got, c.want)
		}
	}
	batch := []struct{ n, want int }{{0, 0}, {1, 1}, {4, 1}, {5, 2}, {8, 2}, {9, 3}, {16, 3}, {17, 4}, {32, 4}, {33, 5}, {64, 5}, {65, 6}}
	for _, c := range batch {
		if got := batchBucket(c.n); got != c.want {
			t.Errorf("batchBucket(%d) = %d, want %d", c.n, got, c.want)
		}
	}
	lat := []struct {
		ns    uint64
		which string
		idx   int
	}{
		{0, "ns", 0}, {1, "ns", 0}, {2, "ns", 1}, {999, "ns", 9},
		{1000, "us", 0}, {1999, "us", 0}, {2000, "us", 1}, {250000, "us", 7}, {999999, "us", 9},
		{1000000, "ms", 0}, {2000000, "ms", 1}, {999999999, "ms", 9}, {1000000000, "ms", 10}, {1999999999, "ms", 10}, {2000000000, "ms", 11},
	}
	for _, c := range lat {
		var r report.JobResult
		markLatency(&r, c.ns)
		var got uint64
		switch c.which {
		case "ns":
			got = r.LatNs[c.idx]
		case "us":
			got = r.LatUs[c.idx]
		default:
			got = r.LatMs[c.idx]
		}
		if got != 1 {
			t.Errorf("markLatency(%d): want %s bucket %d", c.ns, c.which, c.idx)
		}
	}
}

func TestRuntimeRoundsUp(t *testing.T) {
	tests := []struct {
		ns   int64
		want int64 // ms
	}{
		{0, 0}, {1, 1}, {999999, 1}, {1000000, 1}, {1000001, 2}, {1000000000, 1000}, {1000000001, 1001},
	}
	for _, tt := range tests {
		if got := runtimeMsec(tt.ns).Milliseconds(); got != tt.want {
			t.Errorf("runtimeMsec(%d) = %d ms, want %d", tt.ns, got, tt.want)
		}
	}
}

func TestNumjobsRunsEngines(t *testing.T) {
	dir := t.TempDir()
	var opens atomic.Int32
	engs := map[string]engines.Opener{"count": func(s engines.Setup) (engines.Engine, error) {
		opens.Add(1)
		return null.Open(s)
	}}
	var jobs []*jobfile.Job
	for i := 0; i < 4; i++ {
		j := testJob(dir, "nj", jobfile.RWRandRead, "count")
		j.Filenames = nil
		j.Directory = []string{dir}
		j.SubjobNumber, j.NumJobs = i, 4
		setDepth(j, 8)
		jobs = append(jobs, j)
	}
	var progs []*report.Progress
	res := mustRun(t, jobs, Options{Engines: engs, OnProgress: func(p []*report.Progress) { progs = p }})
	if opens.Load() != 4 || len(res.Jobs) != 4 || len(progs) != 4 {
		t.Fatalf("%d engines opened, %d results, %d progress views; want 4", opens.Load(), len(res.Jobs), len(progs))
	}
	tids := map[int]bool{}
	for i, r := range res.Jobs {
		tids[r.Threads[0].TID] = true
		if r.Dirs[0].TotalIOs != 16 || progs[i].IOs[0].Load() != 16 || progs[i].State.Load() != 'E' {
			t.Errorf("job %d: %d I/Os, progress %d state %c", i, r.Dirs[0].TotalIOs, progs[i].IOs[0].Load(), progs[i].State.Load())
		}
	}
	if len(tids) != 4 {
		t.Errorf("jobs ran on %d distinct threads, want 4", len(tids))
	}
}

func TestStonewallOrder(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	var order []string
	engs := map[string]engines.Opener{"rec": func(s engines.Setup) (engines.Engine, error) {
		mu.Lock()
		order = append(order, s.Job.Name)
		mu.Unlock()
		return null.Open(s)
	}}
	a := testJob(dir, "a", jobfile.RWRead, "rec")
	b := testJob(dir, "b", jobfile.RWRead, "rec")
	b.Stonewall = true
	mustRun(t, []*jobfile.Job{a, b}, Options{Engines: engs})
	if strings.Join(order, ",") != "a,b" {
		t.Errorf("open order %v, want a then b", order)
	}
	if gs := groups([]*jobRun{{job: a}, {job: b}}); len(gs) != 2 {
		t.Errorf("stonewall gave %d groups, want 2", len(gs))
	}
}

// failEngine fails every read at offset >= failAt with errno.
type failEngine struct {
	engines.Engine
	failAt uint64
	errno  int32
	off    []uint64
}

func (f *failEngine) Queue(slot uint32, r *engines.Request) error {
	f.off[slot] = r.Offset
	return f.Engine.Queue(slot, r)
}

func (f *failEngine) Reap(out []engines.Completion, min int) (int, error) {
	n, err := f.Engine.Reap(out, min)
	for i := range out[:n] {
		if f.off[out[i].Slot] >= f.failAt {
			out[i].Res = -f.errno
		}
	}
	return n, err
}

func failOpener(errno int32) engines.Opener {
	return func(s engines.Setup) (engines.Engine, error) {
		e, _ := null.Open(s)
		return &failEngine{Engine: e, failAt: 32 << 10, errno: errno, off: make([]uint64, s.Depth)}, nil
	}
}

func TestIOErrors(t *testing.T) {
	dir := t.TempDir()
	engs := map[string]engines.Opener{"eio": failOpener(5), "einval": failOpener(22), "null": null.Open}
	tests := []struct {
		name     string
		engine   string
		coe      string
		wantErr  int
		totalErr uint64
	}{
		// EIO ends the job by default.
		{"eio fatal", "eio", "none", 5, 0},
		// continue_on_error=read skips EIO and counts it.
		{"eio skipped", "eio", "read", 0, 8},
		// EINVAL is fatal even with continue_on_error=all.
		{"einval fatal", "einval", "all", 22, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := testJob(dir, "bad", jobfile.RWRead, tt.engine)
			bad.ContinueOnError, _ = jobfile.ParseContinueOn(tt.coe)
			good := testJob(dir, "good", jobfile.RWRead, "null")
			var warn syncBuf
			res, err := Run(context.Background(), []*jobfile.Job{bad, good}, Options{Engines: engs, Warn: &warn})
			if err != nil {
				t.Fatal(err)
			}
			b, g := res.Jobs[0], res.Jobs[1]
			if b.Error != tt.wantErr || b.TotalErr != tt.totalErr {
				t.Errorf("err=%d total_err=%d, want %d and %d", b.Error, b.TotalErr, tt.wantErr, tt.totalErr)
			}
			if tt.wantErr != 0 && (!strings.Contains(b.ErrorText, "io_u error") || !strings.Contains(warn.String(), "io_u error on file")) {
				t.Errorf("error text %q, warnings %q", b.ErrorText, warn.String())
			}
			if tt.totalErr > 0 && b.FirstErr != 5 {
				t.Errorf("first_error %d, want 5", b.FirstErr)
			}
			if g.Error != 0 || g.Dirs[0].TotalIOs != 16 {
				t.Errorf("the other job: err=%d, %d I/Os; want it to run to the end", g.Error, g.Dirs[0].TotalIOs)
			}
		})
	}
}

// shortEngine completes every fresh request with half its length.
type shortEngine struct {
	engines.Engine
	half []bool
}

func (s *shortEngine) Queue(slot uint32, r *engines.Request) error {
	s.half[slot] = r.BufOff == 0
	return s.Engine.Queue(slot, r)
}

func (s *shortEngine) Reap(out []engines.Completion, min int) (int, error) {
	n, err := s.Engine.Reap(out, min)
	for i := range out[:n] {
		if s.half[out[i].Slot] {
			out[i].Res /= 2
		}
	}
	return n, err
}

func TestShortIORequeuesRemainder(t *testing.T) {
	engs := map[string]engines.Opener{"short": func(s engines.Setup) (engines.Engine, error) {
		e, _ := null.Open(s)
		return &shortEngine{Engine: e, half: make([]bool, s.Depth)}, nil
	}}
	j := testJob(t.TempDir(), "short", jobfile.RWRead, "short")
	setDepth(j, 4)
	r := mustRun(t, []*jobfile.Job{j}, Options{Engines: engs}).Jobs[0]
	ds := r.Dirs[0]
	if ds.TotalIOs != 16 || ds.ShortIOs != 16 || ds.IOBytes != 64<<10 || ds.Clat.N != 16 {
		t.Errorf("ios=%d short=%d bytes=%d clat samples=%d; want 16, 16, 65536, 16", ds.TotalIOs, ds.ShortIOs, ds.IOBytes, ds.Clat.N)
	}
}

func TestCancelGivesPartialResult(t *testing.T) {
	dir := t.TempDir()
	j := testJob(dir, "cancel", jobfile.RWRandRead, "null")
	j.TimeBased = true
	j.Runtime = 1 << 40 // effectively forever: only the cancel ends it
	setDepth(j, 16)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	goroutines := runtime.NumGoroutine()
	fds := countFDs(t)
	done := make(chan struct{})
	opts := Options{OnProgress: func(p []*report.Progress) {
		go func() {
			defer close(done)
			for p[0].IOs[0].Load() == 0 {
				runtime.Gosched()
			}
			cancel()
		}()
	}}
	res, err := Run(ctx, []*jobfile.Job{j}, opts)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if res.Signal != "interrupt" || len(res.Jobs) != 1 || res.Jobs[0].Dirs[0].TotalIOs == 0 {
		t.Fatalf("signal %q, %d jobs; want a partial result with I/O", res.Signal, len(res.Jobs))
	}
	r := res.Jobs[0]
	if r.Dirs[0].Clat.N != r.Dirs[0].TotalIOs {
		t.Errorf("%d issued, %d completed: in-flight I/O was not drained", r.Dirs[0].TotalIOs, r.Dirs[0].Clat.N)
	}
	// Goroutines that have finished may take a moment to leave the count.
	for i := 0; i < 2000 && runtime.NumGoroutine() > goroutines; i++ {
		time.Sleep(time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > goroutines {
		t.Errorf("%d goroutines after the run, %d before", g, goroutines)
	}
	if f := countFDs(t); f != fds {
		t.Errorf("%d fds after the run, %d before", f, fds)
	}
}

func countFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

func TestBadInputRefused(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		set  func(j *jobfile.Job)
		want string
	}{
		// An unknown engine names the ones that exist.
		{"engine", func(j *jobfile.Job) { j.IOEngine = "rdma" }, "ioengine=rdma is not available"},
		// A missing file with no size cannot be laid out.
		{"nosize", func(j *jobfile.Job) { j.Size = 0 }, "no size= was given"},
		// A directory is no target.
		{"dir", func(j *jobfile.Job) { j.Filenames = []string{dir} }, "is a directory"},
		// Size below one block.
		{"tiny", func(j *jobfile.Job) { j.Size = 1000 }, "size too small"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := testJob(dir, "bad-"+tt.name, jobfile.RWRead, "psync")
			tt.set(j)
			_, err := Run(context.Background(), []*jobfile.Job{j}, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestDirectAlignment(t *testing.T) {
	dir := "/dev/shm"
	if _, err := os.Stat(dir); err != nil {
		dir = t.TempDir()
	}
	path := dir + "/gofio-run-direct-test"
	stampedFile(t, path, 1<<20)
	defer os.Remove(path)
	j := testJob(dir, "direct", jobfile.RWRead, "psync")
	j.Filenames = []string{path}
	j.Direct = true
	j.BS = [jobfile.NumDirs]uint64{1000, 1000, 1000}
	_, err := Run(context.Background(), []*jobfile.Job{j}, Options{})
	if err == nil {
		t.Fatal("bs=1000 with direct=1 ran")
	}
	if strings.Contains(err.Error(), "does not support O_DIRECT") {
		t.Skipf("filesystem of %s has no O_DIRECT: %v", dir, err)
	}
	if !strings.Contains(err.Error(), "bs=1000") {
		t.Fatalf("error %v does not name bs=1000", err)
	}
	j.BS = [jobfile.NumDirs]uint64{4096, 4096, 4096}
	mustRun(t, []*jobfile.Job{j}, Options{})
}

func TestMountedWriteRefused(t *testing.T) {
	var asked []string
	mounted := func(p string) error { asked = append(asked, p); return errors.New(p + " appears mounted") }
	if _, err := os.Stat("/dev/null"); err != nil {
		t.Skip("no /dev/null")
	}
	// Only block devices are checked; a regular file is not.
	j := testJob(t.TempDir(), "m", jobfile.RWWrite, "psync")
	mustRun(t, []*jobfile.Job{j}, Options{CheckMountedWrite: mounted})
	if len(asked) != 0 {
		t.Errorf("regular file checked as a device: %v", asked)
	}
}

// TestTimeBasedProgressHasPlannedEnd checks that a time_based job tells
// the ETA line when it ends (start + ramp_time + runtime), so the line
// shows a percentage and an eta as fio's does instead of [-.-%][eta --].
func TestTimeBasedProgressHasPlannedEnd(t *testing.T) {
	j := testJob(t.TempDir(), "eta", jobfile.RWRead, "null")
	j.Size = 1 << 20
	j.TimeBased, j.Runtime, j.RampTime = true, 200*time.Millisecond, 100*time.Millisecond
	var ps []*report.Progress
	mustRun(t, []*jobfile.Job{j}, Options{OnProgress: func(p []*report.Progress) { ps = p }})
	if len(ps) != 1 {
		t.Fatalf("OnProgress got %d jobs", len(ps))
	}
	start, end := ps[0].StartNano.Load(), ps[0].EndNano.Load()
	if start <= 0 || end-start != int64(300*time.Millisecond) {
		t.Errorf("StartNano %d EndNano %d: want a start and an end 300ms later", start, end)
	}
}
