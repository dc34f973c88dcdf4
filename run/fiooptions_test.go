package run

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/fiorand"
	"github.com/gofio/gofio/internal/target"
	"github.com/gofio/gofio/jobfile"
)

// parseJobs parses a job file written into dir.
func parseJobs(t *testing.T, dir, text string) []*jobfile.Job {
	t.Helper()
	p := filepath.Join(dir, "j.fio")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs, err := jobfile.Parse(jobfile.Input{Files: []string{p}})
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// TestFlowAdmitKeepsRatio checks fio's flow rule itself: whichever of two
// jobs with weights 1 and 3 asks, in any order and however often, their
// issued I/Os stay 1:3 to within 4 at every step (a job asks only while
// 3a <= b+1, or b <= 3a+3).
func TestFlowAdmitKeepsRatio(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		st := &flowState{}
		st.counter.Store(1)
		st.weight.Store(4)
		var ia, ib atomic.Int64
		r := rand.New(rand.NewPCG(seed, seed))
		pa := r.Float64() // how often job a asks: one of the two may lag far
		for step := 0; step < 20000; step++ {
			if r.Float64() < pa {
				st.admit(&ia, 1)
			} else {
				st.admit(&ib, 3)
			}
			a, b := ia.Load(), ib.Load()
			if d := 3*a - b; d < -4 || d > 4 {
				t.Fatalf("seed %d step %d: a=%d b=%d", seed, step, a, b)
			}
		}
		if a, b := ia.Load(), ib.Load(); a+b < 1000 {
			t.Errorf("seed %d: only a=%d b=%d admitted of 20000 asks", seed, a, b)
		}
	}
}

// TestFlowShares runs two time-based jobs of one flow_id with weights 1
// and 3 and exitall: the first to reach its runtime stops the other before
// it leaves the flow (fio's flow_exit_job runs when the thread is reaped),
// so the totals are 1:3 to within the flow's step at start and end, however
// the two goroutines were scheduled.
func TestFlowShares(t *testing.T) {
	jobs := parseJobs(t, t.TempDir(), "[global]\nioengine=null\nsize=1g\ntime_based\nruntime=300ms\nexitall\nflow_id=7\n[a]\nflow=1\n[b]\nflow=3\n")
	res := mustRun(t, jobs, Options{})
	a, b := int64(res.Jobs[0].Dirs[jobfile.DirRead].TotalIOs), int64(res.Jobs[1].Dirs[jobfile.DirRead].TotalIOs)
	if a == 0 || b == 0 {
		t.Fatalf("a=%d b=%d I/Os", a, b)
	}
	if d := 3*a - b; d < -8 || d > 8 {
		t.Errorf("flow 1:3 gave a=%d, b=%d I/Os", a, b)
	}
}

// TestFlowFailedJobLeaves checks that a job of a flow that fails before
// its first I/O leaves the flow, so the job sharing it still runs to its
// size instead of waiting forever for the failed job's share.
func TestFlowFailedJobLeaves(t *testing.T) {
	dir := t.TempDir()
	notDir := filepath.Join(dir, "plain")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	jobs := parseJobs(t, dir, "[global]\nflow_id=3\n[gone]\nioengine=psync\nrw=read\nsize=64k\nfilename="+filepath.Join(notDir, "f")+"\nflow=1\n[b]\nioengine=null\nsize=64k\nflow=1\n")
	res, err := Run(context.Background(), jobs, Options{})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Jobs[0].Error == 0 {
		t.Fatalf("job gone ran %d I/Os on a file under a plain file", res.Jobs[0].Dirs[jobfile.DirRead].TotalIOs)
	}
	if n := res.Jobs[1].Dirs[jobfile.DirRead].TotalIOs; n != 16 {
		t.Errorf("job b: %d I/Os, want 16", n)
	}
}

// TestThinkTimePauses checks thinktime: one pause after every
// thinktime_blocks I/Os, the last included (fio's handle_thinktime runs
// after each I/O), each thinktime long; thinktime_spin is spent busy.
func TestThinkTimePauses(t *testing.T) {
	jobs := parseJobs(t, t.TempDir(), "[j]\nioengine=null\nsize=64k\nthinktime=3ms\nthinktime_spin=1ms\nthinktime_blocks=4\n")
	var mu sync.Mutex
	var slept []time.Duration
	sleep := func(d time.Duration) {
		mu.Lock()
		slept = append(slept, d)
		mu.Unlock()
	}
	res := mustRun(t, jobs, Options{sleep: sleep})
	if n := res.Jobs[0].Dirs[jobfile.DirRead].TotalIOs; n != 16 {
		t.Fatalf("%d I/Os, want 16", n)
	}
	think := 0
	for _, d := range slept {
		if d == 2*time.Millisecond {
			think++
		}
	}
	if think != 4 {
		t.Errorf("slept %v: want 4 pauses of 2ms (3ms thinktime less 1ms spin)", slept)
	}
}

// TestRateBytesGap checks that rate= spaces I/Os by their size.
func TestRateBytesGap(t *testing.T) {
	l := &loop{job: &jobfile.Job{Rate: [jobfile.NumDirs]uint64{4 << 20, 0, 0}}}
	if g := l.rateGapFor(jobfile.DirRead, 4096); g != int64(time.Millisecond)*1000/1024 {
		t.Errorf("gap for 4k at 4 MiB/s = %d ns", g)
	}
	l.rateGap[jobfile.DirWrite] = 5
	if g := l.rateGapFor(jobfile.DirWrite, 4096); g != 5 {
		t.Errorf("rate_iops gap %d, want 5", g)
	}
}

// TestWaitForAndExitAll checks wait_for (the reader starts once both
// writer clones ended) and exitall (the quitter's end stops the
// time-based victim of its group long before its runtime).
func TestWaitForAndExitAll(t *testing.T) {
	jobs := parseJobs(t, t.TempDir(), "[global]\nioengine=null\n[w]\nsize=8m\nnumjobs=2\n[r]\nwait_for=w\nsize=1m\n"+
		"[q]\nstonewall\nsize=1m\nexitall\n[victim]\nsize=1m\ntime_based\nruntime=60s\n")
	res := mustRun(t, jobs, Options{})
	by := map[string][]int{}
	for i, j := range res.Jobs {
		by[j.Name] = append(by[j.Name], i)
	}
	r := res.Jobs[by["r"][0]]
	for _, i := range by["w"] {
		w := res.Jobs[i]
		if end := w.Start.Add(w.Elapsed); r.Start.Before(end) {
			t.Errorf("r started at %v, before writer %d ended at %v", r.Start, i, end)
		}
	}
	if v := res.Jobs[by["victim"][0]]; v.Elapsed > 30*time.Second {
		t.Errorf("victim ran %v: exitall did not stop it", v.Elapsed)
	}
}

// TestVerifyDumpAndInterval writes a file with verify_interval=1k headers,
// corrupts one byte, and reads it back with verify_dump=1: the job fails
// with EILSEQ and leaves fio's FILE.OFFSET.received and .expected dumps in
// --aux-path, the expected one equal to the block before the corruption.
func TestVerifyDumpAndInterval(t *testing.T) {
	dir, aux := t.TempDir(), t.TempDir()
	data := filepath.Join(dir, "v.dat")
	w := parseJobs(t, dir, "[w]\nioengine=psync\nrw=write\nbs=4k\nsize=64k\nverify=crc32c\nverify_interval=1k\ndo_verify=0\nfilename="+data+"\n")
	if w[0].VerifyInterval != 1024 {
		t.Fatalf("verify_interval %d", w[0].VerifyInterval)
	}
	mustRun(t, w, Options{})
	orig, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), orig...)
	bad[8192+2048+100] ^= 0xff // inside the third 1k piece of the third block
	if err := os.WriteFile(data, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	r := parseJobs(t, dir, "[r]\nioengine=psync\nrw=read\nbs=4k\nsize=64k\nverify=crc32c\nverify_interval=1k\nverify_dump=1\nverify_fatal=1\nfilename="+data+"\n")
	res, err := Run(context.Background(), r, Options{AuxPath: aux})
	if err != nil {
		t.Fatal(err)
	}
	if res.Jobs[0].Error != int(unix.EILSEQ) {
		t.Fatalf("read job error %d, want EILSEQ", res.Jobs[0].Error)
	}
	got, err := os.ReadFile(filepath.Join(aux, "v.dat.8192.received"))
	if err != nil || !bytes.Equal(got, bad[8192:12288]) {
		t.Errorf("received dump: %v (equal to the corrupt block: %v)", err, bytes.Equal(got, bad[8192:12288]))
	}
	want, err := os.ReadFile(filepath.Join(aux, "v.dat.8192.expected"))
	if err != nil || !bytes.Equal(want, orig[8192:12288]) {
		t.Errorf("expected dump: %v (equal to the block as written: %v)", err, bytes.Equal(want, orig[8192:12288]))
	}
}

// TestZonemodeRefusals checks the run-time refusals of zonemode: zbd on a
// character device (verify= runs); zonesize
// without zonemode is fio 3.33's "zonemode=none and zonesize" error;
// strided runs, with zoneskip=N% read as fio 3.33 reads it.
func TestZonemodeRefusals(t *testing.T) {
	dir := t.TempDir()
	zbd := parseJobs(t, dir, "[z]\nioengine=null\nsize=1m\nzonemode=zbd\nzonesize=256k\nverify=crc32c\nfilename="+filepath.Join(dir, "f")+"\n")
	if err := checkJob(zbd[0]); err != nil {
		t.Errorf("zbd with verify: %v", err)
	}
	chr := parseJobs(t, dir, "[z]\nioengine=null\nsize=1m\nzonemode=zbd\nzonesize=256k\nfilename=/dev/null\n")
	if err := checkJob(chr[0]); err == nil || !strings.Contains(err.Error(), "not on character devices") {
		t.Errorf("zbd on /dev/null: %v", err)
	}
	implicit := parseJobs(t, dir, "[s]\nioengine=null\nsize=1m\nzonesize=256k\n")
	if err := checkJob(implicit[0]); err == nil || !strings.Contains(err.Error(), "--zonemode=none and --zonesize are not compatible") {
		t.Errorf("zonesize without zonemode: %v", err)
	}
	pct := parseJobs(t, dir, "[s]\nioengine=null\nsize=1m\nzonemode=strided\nzonesize=256k\nzoneskip=10%\n")
	if err := checkJob(pct[0]); err != nil || pct[0].Zones.Skip != 1<<64-11 {
		t.Errorf("zoneskip in percent: %v, skip %d, want fio 3.33's 2^64-11", err, pct[0].Zones.Skip)
	}
	strided := parseJobs(t, dir, "[s]\nioengine=null\nsize=1m\nzonemode=strided\nzonesize=256k\nzoneskip=64k\n")
	if err := checkJob(strided[0]); err != nil {
		t.Errorf("strided: %v", err)
	}
}

// TestVerifyBacklog checks verify_backlog: every written block is read
// back and checked once, some during the write phase and the rest after
// it, so reads equal writes as in fio (256 and 256 for this job).
func TestVerifyBacklog(t *testing.T) {
	dir := t.TempDir()
	for _, extra := range []string{"verify_backlog=16\n", "verify_backlog=16\nverify_backlog_batch=4\n", "verify_backlog=100\n"} {
		jobs := parseJobs(t, dir, "[vb]\nioengine=psync\nrw=randwrite\nbs=4k\nsize=1m\nverify=crc32c\nfilename="+filepath.Join(dir, "vb.dat")+"\n"+extra)
		res := mustRun(t, jobs, Options{})
		r, w := res.Jobs[0].Dirs[jobfile.DirRead].TotalIOs, res.Jobs[0].Dirs[jobfile.DirWrite].TotalIOs
		if r != 256 || w != 256 {
			t.Errorf("%q: %d reads, %d writes; fio does 256 and 256", extra, r, w)
		}
	}
}

// TestFallocateModes checks fallocate= at layout: native allocates the
// whole file, none leaves it sparse (the job writes one block only).
func TestFallocateModes(t *testing.T) {
	dir := t.TempDir()
	for mode, full := range map[string]bool{"native": true, "none": false, "truncate": false} {
		f := filepath.Join(dir, mode+".dat")
		jobs := parseJobs(t, dir, "[f]\nioengine=psync\nrw=randwrite\nbs=4k\nsize=1m\nnumber_ios=1\nfallocate="+mode+"\nfilename="+f+"\n")
		mustRun(t, jobs, Options{})
		var st unix.Stat_t
		if err := unix.Stat(f, &st); err != nil {
			t.Fatal(err)
		}
		if got := st.Blocks*512 >= 1<<20; got != full || st.Size != 1<<20 {
			t.Errorf("fallocate=%s: size %d, %d bytes allocated", mode, st.Size, st.Blocks*512)
		}
	}
}

// TestSyncOpensSynchronous checks sync=dsync: the job's file is opened with
// O_DSYNC (read back from /proc/self/fdinfo while the job's files are open).
func TestSyncOpensSynchronous(t *testing.T) {
	dir := t.TempDir()
	for mode, flag := range map[string]int{"dsync": unix.O_DSYNC, "sync": unix.O_SYNC} {
		jobs := parseJobs(t, dir, "[s]\nioengine=psync\nrw=write\nbs=4k\nsize=64k\nsync="+mode+"\nfilename="+filepath.Join(dir, mode)+"\n")
		tgt := &target.Target{Path: filepath.Join(dir, mode), FD: -1}
		if err := os.WriteFile(tgt.Path, make([]byte, 64<<10), 0o644); err != nil {
			t.Fatal(err)
		}
		if je := target.Open(jobs[0], tgt, jobs[0].RW, func(int, int64, int64, int) error { return nil }, func() {}); je != nil {
			t.Fatal(je.Err)
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", tgt.FD))
		unix.Close(tgt.FD)
		if err != nil {
			t.Fatal(err)
		}
		var flags int
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "flags:"); ok {
				fmt.Sscanf(strings.TrimSpace(v), "%o", &flags)
			}
		}
		if flags&flag != flag {
			t.Errorf("sync=%s: open flags %o lack %o", mode, flags, flag)
		}
	}
}

// TestIgnoreErrorLists checks which errors continue_on_error may skip:
// fio's EIO and EILSEQ by default, ignore_error='s list where one is given
// for the direction.
func TestIgnoreErrorLists(t *testing.T) {
	j := &jobfile.Job{}
	if !nonFatal(j, jobfile.DirRead, unix.EIO) || nonFatal(j, jobfile.DirWrite, unix.ENOSPC) {
		t.Error("default list is not EIO, EILSEQ")
	}
	j.IgnoreError[1] = []int{int(unix.ENOSPC)}
	if !nonFatal(j, jobfile.DirWrite, unix.ENOSPC) || nonFatal(j, jobfile.DirWrite, unix.EIO) || !nonFatal(j, jobfile.DirRead, unix.EIO) {
		t.Error("ignore_error=,ENOSPC: the write list replaces the default, reads keep it")
	}
}

// TestAllowFileCreate checks that allow_file_create=0 refuses a missing
// file before anything is created.
func TestAllowFileCreate(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "missing.dat")
	jobs := parseJobs(t, dir, "[a]\nioengine=psync\nrw=write\nsize=64k\nallow_file_create=0\nfilename="+f+"\n")
	if _, err := Run(context.Background(), jobs, Options{}); err == nil || !strings.Contains(err.Error(), "allow_file_create=0") {
		t.Errorf("err = %v, want a refusal naming allow_file_create=0", err)
	}
	if _, err := os.Stat(f); !os.IsNotExist(err) {
		t.Errorf("%s was created", f)
	}
}

// TestRateIOPSMin checks rate_iops_min: a job held to 2 IOPS by its think
// time fails with EIO after fio's 2 s settling period and one rate cycle.
func TestRateIOPSMin(t *testing.T) {
	jobs := parseJobs(t, t.TempDir(), "[rm]\nioengine=null\nsize=1g\ntime_based\nruntime=20\nrate_iops_min=5\nrate_cycle=500\nthinktime=500ms\n")
	res, err := Run(context.Background(), jobs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if j := res.Jobs[0]; j.Error != int(unix.EIO) || !strings.Contains(j.ErrorText, "check_min_rate") || j.Elapsed > 10*time.Second {
		t.Errorf("error %d %q after %v, want EIO from check_min_rate within a few seconds", j.Error, j.ErrorText, j.Elapsed)
	}
}

// TestPoissonGaps checks rate_process=poisson: gaps vary, with the mean of
// the linear gap.
func TestPoissonGaps(t *testing.T) {
	l := &loop{job: &jobfile.Job{Rate: [jobfile.NumDirs]uint64{4 << 20}, RateProcess: "poisson"}, poisson: fiorand.NewRNG(1)}
	const n = 20000
	var sum float64
	distinct := map[int64]bool{}
	for i := 0; i < n; i++ {
		g := l.rateGapFor(jobfile.DirRead, 4096)
		sum += float64(g)
		distinct[g] = true
	}
	mean := float64(time.Second) / 1024
	if m := sum / n; m < 0.95*mean || m > 1.05*mean || len(distinct) < n/2 {
		t.Errorf("mean gap %.0f ns (want %.0f within 5%%), %d distinct", m, mean, len(distinct))
	}
}

// TestRateMinIdleDirection checks that rate_min (which applies to every
// direction when given once) only judges the directions a job uses, as
// fio's check_min_rate: a reader meeting it is not failed for its writes.
func TestRateMinIdleDirection(t *testing.T) {
	jobs := parseJobs(t, t.TempDir(), "[r]\nioengine=null\nrw=read\nsize=1g\ntime_based\nruntime=3\nrate_min=1k\nrate_cycle=500\n")
	res := mustRun(t, jobs, Options{})
	if n := res.Jobs[0].Dirs[jobfile.DirRead].TotalIOs; n == 0 {
		t.Fatal("no reads")
	}
}
