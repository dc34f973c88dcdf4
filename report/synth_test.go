package report

import (
	"time"

	"github.com/gofio/gofio/jobfile"
)

// synthJob returns a job spec with fio's reporting defaults.
func synthJob(name string, rw jobfile.RW) *jobfile.Job {
	return &jobfile.Job{
		Name: name, RW: rw, IOEngine: "io_uring", IODepth: 8,
		BS:              [jobfile.NumDirs]uint64{4096, 4096, 4096},
		ClatPercentiles: true, PercentilePrecision: 2, SignificantFigures: 4,
		KBBase: 1024, Stats: true, TWPriority: true,
		Options: []jobfile.Option{
			{Name: "name", Value: name, HasValue: true},
			{Name: "rw", Value: string(rw), HasValue: true},
			{Name: "bs", Value: "4k", HasValue: true},
			{Name: "iodepth", Value: "8", HasValue: true},
			{Name: "time_based", HasValue: false},
		},
	}
}

// fillDir adds n deterministic latency samples to one direction.
func fillDir(d *DirStats, n int, base uint64, seed uint64) {
	x := seed
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		slat := 500 + (x>>33)%3000
		clat := base + (x>>20)%(base*3)
		if i%997 == 0 {
			clat *= 40 // a tail
		}
		d.Slat.Add(slat)
		d.SlatHist.Add(slat)
		d.Clat.Add(clat)
		d.ClatHist.Add(clat)
		d.Lat.Add(slat + clat)
		d.LatHist.Add(slat + clat)
	}
	d.TotalIOs = uint64(n)
	d.IOBytes = uint64(n) * 4096
	d.Runtime = 2001 * time.Millisecond
	for i := 0; i < 4; i++ {
		d.BW.Add(uint64(n)*2 + uint64(i)*37)
		d.IOPS.Add(uint64(n)/2 + uint64(i)*9)
	}
}

// synthResult builds a fixed two-job Result (a randrw job and a read job)
// for the golden files.
func synthResult() *Result {
	start := time.Date(2026, 11, 30, 6, 15, 39, 0, time.UTC)
	r := &Result{Version: "gofio-0.1.0", Start: start, End: start.Add(3 * time.Second), Elapsed: 2500 * time.Millisecond}
	j1 := &JobResult{Job: synthJob("rw", jobfile.RWRandRW), Name: "rw", Members: 1, Pid: 10055, Start: start, Elapsed: 2001 * time.Millisecond}
	j1.Job.Description = `mixed "test"`
	fillDir(&j1.Dirs[0], 20000, 90000, 1)
	fillDir(&j1.Dirs[1], 19000, 1500, 2)
	j1.JobRuntime = 2001 * time.Millisecond
	j1.UsrCPU, j1.SysCPU = 214*time.Millisecond, 1638*time.Millisecond
	j1.Ctx, j1.Minf = 6474, 15
	j1.IODepth = [7]uint64{20, 40, 80, 38860, 0, 0, 0}
	j1.Submit = [7]uint64{0, 39000, 0, 0, 0, 0, 0}
	j1.SubmitCalls = 39000
	j1.Complete = [7]uint64{0, 38990, 10, 0, 0, 0, 0}
	j1.CompleteCalls = 39000
	j1.LatNs = [10]uint64{0, 0, 0, 0, 0, 0, 3, 5, 0, 0}
	j1.LatUs = [10]uint64{0, 10, 50, 200, 1500, 17000, 19000, 1000, 100, 30}
	j1.LatMs = [12]uint64{60, 40, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	j1.LatencyDepth = 8
	j1.Policy = "priority"
	j1.Reap = "fio"
	j1.InFlightArea, j1.InFlightTime = 15_900_000_000, 2_000_000_000 // 7.95 in flight over 2 s
	for i := uint64(0); i < 5000; i++ {
		v := 200 + i*7%900
		j1.TWWait.Add(v)
		j1.TWWaitHist.Add(v)
	}
	j1.Threads = []ThreadCPU{
		{Kind: "job", TID: 10055, Name: "gofio", Usr: 214 * time.Millisecond, Sys: 1638 * time.Millisecond},
		{Kind: "sqpoll", TID: 10060, Name: "iou-sqp-10055", Sys: 1900 * time.Millisecond},
		{Kind: "iowq", TID: 10061, Name: "iou-wrk-10055", Sys: 12 * time.Millisecond},
	}
	j1.EngineNotes = []string{"iodepth rounded up to 8"}

	j2 := &JobResult{Job: synthJob("seq", jobfile.RWRead), Name: "seq", Members: 1, Pid: 10056, Start: start, Elapsed: 2001 * time.Millisecond}
	j2.Job.GroupID = 1
	j2.GroupID = 1
	j2.Job.LatPercentiles = true
	j2.Job.SlatPercentiles = true
	j2.Job.PercentileList = []float64{99.9, 50, 99}
	fillDir(&j2.Dirs[0], 5000, 4000000, 3)
	j2.JobRuntime = 2001 * time.Millisecond
	j2.IODepth = [7]uint64{5000}
	j2.LatUs = [10]uint64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	j2.LatMs = [12]uint64{0, 0, 4990, 10}
	j2.LatencyDepth = 1
	j2.Policy = "fifo"
	j2.Reap = "all"
	j2.InFlightArea, j2.InFlightTime = 1_000_000_000, 2_001_000_000
	r.Jobs = []*JobResult{j1, j2}
	r.Disks = []DiskStats{{Name: "vda", ReadIOs: 87191, WriteIOs: 86927, ReadTicks: 4190, WriteTicks: 4213, InQueue: 8404, Util: 86.3}}
	r.GlobalOptions = []jobfile.Option{{Name: "ioengine", Value: "io_uring", HasValue: true}}
	return r
}
