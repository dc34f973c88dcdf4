package run

import (
	"context"
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/gofio/gofio/internal/kstage"
	"github.com/gofio/gofio/internal/ktrace"
	"github.com/gofio/gofio/internal/loopdev"
	"github.com/gofio/gofio/jobfile"
)

// TestKernelStagesAddUpToLat runs the patch's job (examples/randread.fio)
// on a loop device it makes, with kernel stages on, as it is (the kernel's
// SQPOLL), with gofio's stand-in SQ thread and without SQPOLL, and checks
// I/O by I/O that the six stages add up to gofio's own lat: each joined
// I/O's stages sum to a lat the job accounted, to the nanosecond (one
// clock, CLOCK_MONOTONIC, on both sides), and at least 99% of the I/Os
// join. Root only.
func TestKernelStagesAddUpToLat(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("kernel stages need root (BPF on tracepoints) and a loop device; skipping")
	}
	dev := loopdev.New(t, 64<<20)
	for _, tc := range []struct {
		name    string
		sets    []string
		tracefs bool
	}{
		{"kernel SQPOLL", nil, false},
		// The classic tracepoints, which serve where the kernel has no BTF.
		{"tracefs layouts", []string{"sqpoll=0"}, true},
		{"tw_thread=goroutine", []string{"tw_thread=goroutine"}, false},
		{"no SQPOLL", []string{"sqpoll=0"}, false},
		// I/Os of the ramp are not counted, those after it are.
		{"ramp_time", []string{"sqpoll=0", "ramp_time=300ms"}, false},
		// 1 in 8 I/Os traced, kernel_stages_sample's default.
		{"sampled", []string{"sqpoll=0", "kernel_stages_sample=8"}, false},
		{"sampled, kernel SQPOLL", []string{"kernel_stages_sample=8"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sets := append([]string{"filename=" + dev.Path, "runtime=1", "kernel_stages=required", "kernel_stages_sample=1", "iodepth=8"}, tc.sets...)
			jobs, err := jobfile.Parse(jobfile.Input{Files: []string{"../examples/randread.fio"}, Sets: sets})
			if err != nil {
				t.Fatal(err)
			}
			checkStagesAddUp(t, jobs, tc.tracefs)
		})
	}
}

func checkStagesAddUp(t *testing.T, jobs []*jobfile.Job, tracefs bool) {
	t.Helper()
	var mu sync.Mutex
	lats := map[int64]int{}
	type joined struct {
		r ktrace.Reap
		d [kstage.NumStages]uint64
	}
	var got []joined
	opts := Options{
		kstagesTracefs: tracefs,
		sample:         func(_ jobfile.Dir, _, _, lat int64) { mu.Lock(); lats[lat]++; mu.Unlock() },
		kstage: func(r ktrace.Reap, d *[kstage.NumStages]uint64) {
			mu.Lock()
			got = append(got, joined{r, *d})
			mu.Unlock()
		},
	}
	res := mustRun(t, jobs, opts)
	ks := res.Jobs[0].KernelStages
	if ks == nil || !ks.Available {
		t.Fatalf("no kernel stages: %+v", ks)
	}
	if ks.JoinRate() < 0.99 || ks.Joined != uint64(len(got)) {
		t.Fatalf("joined %d of %d traced (%d seen), unjoined %v", ks.Joined, ks.Traced, len(got), ks.Unjoined)
	}
	// The tracing's cost is measured only when asked for
	// (--kernel-trace-cost).
	if ks.BPFRuns != 0 || strings.Contains(strings.Join(res.Jobs[0].EngineNotes, "\n"), "tracing cost") {
		t.Fatalf("the cost was measured unasked: %d runs, notes %q", ks.BPFRuns, res.Jobs[0].EngineNotes)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, g := range got {
		var sum uint64
		for _, v := range g.d {
			sum += v
		}
		lat := int64(g.r.End - g.r.Start)
		if int64(sum) != lat {
			t.Fatalf("I/O %d: stages %v add up to %d ns, its stamps %d", i, g.d, sum, lat)
		}
		if lats[lat] == 0 {
			t.Fatalf("I/O %d: stages add up to %d ns, a lat the job never accounted", i, lat)
		}
		lats[lat]--
	}
	// Every I/O traced, or 1 in Sample drawn at random: the count is
	// binomial, within 5 standard deviations (and the few in flight at
	// the end) of its mean.
	ios := res.Jobs[0].Dirs[jobfile.DirRead].TotalIOs
	p := 1 / float64(max(1, ks.Sample))
	mean, sd := float64(ios)*p, math.Sqrt(float64(ios)*p*(1-p))
	if d := math.Abs(float64(ks.Traced) - mean); d > 5*sd+16 {
		t.Fatalf("the job did %d reads, the tracer saw %d, 1 in %d: want %.0f ± %.0f", ios, ks.Traced, ks.Sample, mean, 5*sd+16)
	}
	t.Logf("%d I/Os, %d joined; tw mean %.0f ns", ks.Traced, ks.Joined, ks.Stages[kstage.TW].Mean)
}

// TestKernelStagesUnavailableRunsOn checks that a job whose I/O cannot be
// traced (psync, a file on tmpfs, or no root)
// runs on with the reason in its result, and fails with
// kernel_stages=required.
func TestKernelStagesUnavailableRunsOn(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name   string
		edit   func(j *jobfile.Job)
		reason string
	}{
		{"psync", func(j *jobfile.Job) { j.IOEngine = "psync" }, "ioengine=psync: kernel stages trace io_uring requests only"},
		{"tmpfs", func(j *jobfile.Job) {
			j.Filenames = []string{"/dev/shm/gofio-kstage-" + strings.ReplaceAll(t.Name(), "/", "-")}
		},
			"is not a block device and its file system has none"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j := testJob(dir, "ks", jobfile.RWRandRead, "io_uring")
			j.KernelStages = jobfile.TracerOn
			tt.edit(j)
			if strings.HasPrefix(j.Filenames[0], "/dev/shm/") {
				t.Cleanup(func() { os.Remove(j.Filenames[0]) })
			}
			if os.Geteuid() != 0 && tt.name == "tmpfs" {
				tt.reason = "not root"
			}
			res := mustRun(t, []*jobfile.Job{j}, Options{})
			ks := res.Jobs[0].KernelStages
			if ks == nil || ks.Available || !strings.Contains(ks.Reason, tt.reason) {
				t.Fatalf("stages %+v, want unavailable: %q", ks, tt.reason)
			}
			if res.Jobs[0].Dirs[jobfile.DirRead].TotalIOs == 0 {
				t.Fatal("the job did not run")
			}
			j = testJob(dir, "ks", jobfile.RWRandRead, "io_uring")
			j.KernelStages = jobfile.TracerRequired
			tt.edit(j)
			res, err := Run(context.Background(), []*jobfile.Job{j}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if jr := res.Jobs[0]; jr.Error == 0 || !strings.Contains(jr.ErrorText, tt.reason) || jr.Dirs[jobfile.DirRead].TotalIOs != 0 {
				t.Fatalf("required: error %d %q, %d reads", jr.Error, jr.ErrorText, jr.Dirs[jobfile.DirRead].TotalIOs)
			}
		})
	}
}

// TestKernelStagesFileOnPartition traces a file on an ext4 file system on a
// partition of a loop device it makes: the bios are queued on the
// partition, the requests issued to the disk, and the sectors the join
// keys on are the disk's; at least 99% of the reads join. Root only.
func TestKernelStagesFileOnPartition(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("kernel stages need root (BPF on tracepoints) and a loop device; skipping")
	}
	dev := loopdev.NewWithOptions(t, 96<<20, loopdev.Options{Partitions: []int64{64 << 20}})
	dev.MkfsExt4Partition(t, 1)
	mnt := dev.MountPartition(t, 1)
	j := testJob(mnt, "part", jobfile.RWRandRead, "io_uring")
	j.Size = 16 << 20
	j.Direct = true
	setDepth(j, 8)
	j.KernelStages = jobfile.TracerRequired
	res := mustRun(t, []*jobfile.Job{j}, Options{})
	ks := res.Jobs[0].KernelStages
	if ks == nil || !ks.Available || ks.JoinRate() < 0.99 || ks.Joined == 0 {
		t.Fatalf("stages %+v", ks)
	}
}

// TestKernelStagesEveryDevice traces a job whose files lie on two loop
// devices: the I/Os to both are traced and joined, not only the first
// file's. Root only.
func TestKernelStagesEveryDevice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("kernel stages need root (BPF on tracepoints) and loop devices; skipping")
	}
	a, b := loopdev.New(t, 32<<20), loopdev.New(t, 32<<20)
	sets := []string{"filename=" + a.Path + ":" + b.Path, "runtime=1", "kernel_stages=required", "kernel_stages_sample=1", "iodepth=8", "sqpoll=0"}
	jobs, err := jobfile.Parse(jobfile.Input{Files: []string{"../examples/randread.fio"}, Sets: sets})
	if err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, jobs, Options{})
	ks := res.Jobs[0].KernelStages
	ios := res.Jobs[0].Dirs[jobfile.DirRead].TotalIOs
	if ks == nil || !ks.Available || ks.JoinRate() < 0.99 || ks.Traced < ios*99/100 {
		t.Fatalf("%d reads, stages %+v", ios, ks)
	}
	for _, n := range res.Jobs[0].EngineNotes {
		if strings.Contains(n, "device only") {
			t.Fatalf("note %q", n)
		}
	}
}
