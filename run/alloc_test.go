package run

import (
	"context"
	"testing"

	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// nullJob is a size-based null-engine job of n 4 KiB reads at depth: one
// pass over a file of at least n blocks (number_ios counts per loop, as in
// fio, so the job has one loop).
func nullJob(tb testing.TB, n uint64, depth int, policy bool) *jobfile.Job {
	j := testJob(tb.TempDir(), "alloc", jobfile.RWRandRead, "null")
	j.Size = max(64<<20, n*4096)
	j.NumberIOs = n
	j.TWPriority = policy
	setDepth(j, depth)
	return j
}

// TestZeroAllocsPerIO proves the hot path allocates nothing per I/O: a
// run of 64k I/Os allocates no more than a run of 1k I/Os (setup costs
// are the same).
func TestZeroAllocsPerIO(t *testing.T) {
	for _, depth := range []int{1, 64} {
		for _, policy := range []bool{true, false} {
			allocs := func(n uint64) float64 {
				return testing.AllocsPerRun(3, func() {
					if _, err := Run(context.Background(), []*jobfile.Job{nullJob(t, n, depth, policy)}, Options{}); err != nil {
						t.Fatal(err)
					}
				})
			}
			// The runtime now and then allocates a few objects of its own
			// during a run (a new M for a locked thread); the least of
			// three tries, and a slack far below one allocation per I/O
			// (64512 more I/Os), keep that from failing the test.
			small, big := allocs(1<<10), allocs(1<<16)
			for i := 0; i < 2; i++ {
				small, big = min(small, allocs(1<<10)), min(big, allocs(1<<16))
			}
			perIO := (big - small) / float64(1<<16-1<<10)
			t.Logf("depth %d priority=%v: %.0f allocs for 1k I/Os, %.0f for 64k: %.4f per I/O", depth, policy, small, big, perIO)
			if big > small+16 {
				t.Errorf("depth %d: %.0f allocs for 64k I/Os vs %.0f for 1k: the hot path allocates", depth, big, small)
			}
		}
	}
}

// BenchmarkNullLoop measures the whole event loop on the null engine, per
// I/O (b.N I/Os in one Run).
func BenchmarkNullLoop(b *testing.B) {
	for _, c := range []struct {
		name   string
		depth  int
		policy bool
	}{{"qd1", 1, true}, {"qd16-priority", 16, true}, {"qd16-fifo", 16, false}, {"qd128-priority", 128, true}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			j := nullJob(b, uint64(b.N), c.depth, c.policy)
			res, err := Run(context.Background(), []*jobfile.Job{j}, Options{})
			if err != nil {
				b.Fatal(err)
			}
			if got := res.Jobs[0].Dirs[0].TotalIOs; got != uint64(b.N) {
				b.Fatalf("%d I/Os, want %d", got, b.N)
			}
			// The job thread's CPU time per I/O: unlike ns/op it does not
			// grow while the thread waits for a CPU on a loaded machine.
			cpu := res.Jobs[0].UsrCPU + res.Jobs[0].SysCPU
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkOffsetGen measures choosing a random-map offset.
func BenchmarkOffsetGen(b *testing.B) {
	for _, c := range []struct {
		name string
		rw   jobfile.RW
		dist jobfile.Distribution
		norm bool
	}{
		{"seq", jobfile.RWRead, jobfile.Distribution{}, false},
		{"randommap", jobfile.RWRandRead, jobfile.Distribution{}, false},
		{"norandommap", jobfile.RWRandRead, jobfile.Distribution{}, true},
		{"zipf", jobfile.RWRandRead, jobfile.Distribution{Kind: "zipf", Param: 1.2}, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			j := testJob("", "g", c.rw, "null")
			j.Size = 1 << 30
			j.NoRandomMap = c.norm
			j.RandomDistribution = c.dist
			g, err := iogen.NewOffsets(j, []iogen.Region{{Size: j.Size, End: j.Size}}, 1, 1)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			var sink uint64
			for i := 0; i < b.N; i++ {
				_, _, off, _, ok := g.Fill()
				if !ok {
					g.NewPass()
				}
				sink += off
			}
			_ = sink
		})
	}
}

// BenchmarkHistInsert measures one latency sample into the stats, the
// histogram and the latency buckets, as a completion does.
func BenchmarkHistInsert(b *testing.B) {
	res := &report.JobResult{}
	b.ReportAllocs()
	b.ResetTimer()
	v := uint64(12345)
	for i := 0; i < b.N; i++ {
		v = v*6364136223846793005 + 1442695040888963407
		ns := v >> 44 // up to ~1 ms
		ds := &res.Dirs[0]
		ds.Clat.Add(ns)
		ds.ClatHist.Add(ns)
		markLatency(res, ns)
	}
}
