package compare

import (
	"fmt"

	"github.com/gofio/gofio/internal/fiostat"
	"github.com/gofio/gofio/internal/klock"
	"github.com/gofio/gofio/internal/kstage"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// measurement is what one run contributes to a comparison side.
type measurement struct {
	stats  report.RepeatStats
	metric string      // "lat" or "clat"
	hist   report.Hist // the latency histogram, all jobs and directions
	tw     report.Stat // tw wait, all jobs
	twHist report.Hist // tw wait histogram, all jobs
	// kst is the kernel stages of every job that asked for them
	// (kernel_stages=1) merged; traced says whether any job did.
	kst    kstage.KernelStages
	traced bool
	// klock is the lock contention of every job that traced it
	// (kernel_locks=1) merged; nil when none did.
	klock *klock.Locks
}

// measure merges every job and direction of r. The average latency is fio's
// total latency (lat, submission to completion) where it was recorded,
// otherwise the completion latency (clat, e.g. with disable_lat=1).
// Percentiles come from the matching histogram, or from the other one when
// the matching one is empty. IOPS is the sum over jobs and directions of
// I/Os divided by the direction's runtime, as fio's per-direction IOPS
// summed over the group.
func measure(r *report.Result, m *measurement) {
	*m = measurement{}
	var lat, clat report.Stat
	var latN, clatN uint64
	for _, j := range r.Jobs {
		if j == nil {
			continue
		}
		for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
			ds := &j.Dirs[d]
			lat.Merge(ds.Lat)
			clat.Merge(ds.Clat)
			latN += histCount(&ds.LatHist)
			clatN += histCount(&ds.ClatHist)
			m.stats.IOs += ds.TotalIOs
			if ds.Runtime > 0 {
				m.stats.IOPS += float64(ds.TotalIOs) / ds.Runtime.Seconds()
			}
		}
	}
	useLat := lat.N > 0 || clat.N == 0
	m.metric = "clat"
	m.stats.AvgLatUs = clat.Mean / 1000
	if useLat {
		m.metric = "lat"
		m.stats.AvgLatUs = lat.Mean / 1000
	}
	// Merge the histogram of the chosen kind, or the other if it is empty.
	fromLat := useLat && latN > 0 || clatN == 0 && latN > 0
	for _, j := range r.Jobs {
		if j == nil {
			continue
		}
		for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
			if fromLat {
				m.hist.Merge(&j.Dirs[d].LatHist)
			} else {
				m.hist.Merge(&j.Dirs[d].ClatHist)
			}
		}
	}
	for _, j := range r.Jobs {
		if j != nil {
			m.tw.Merge(j.TWWait)
			m.twHist.Merge(&j.TWWaitHist)
			if j.KernelStages != nil {
				m.kst.Merge(j.KernelStages)
				m.traced = true
			}
		}
	}
	m.klock = measureKLock(r)
	m.stats.TWWaitUs = m.tw.Mean / 1000
	if m.traced {
		m.stats.KStages = report.NewRepeatKStages(&m.kst)
	}
	m.stats.P50Us = percentileUs(&m.hist, 50)
	m.stats.P99Us = percentileUs(&m.hist, 99)
	m.stats.Jobs = measureJobs(r)
}

// measureJobs returns each job's own figures when r has more than one job,
// measured as measure measures a run, so gofio diff can compare job by
// job; a job name seen before gets "#2", "#3", ... appended.
func measureJobs(r *report.Result) []report.JobRepeat {
	n := 0
	for _, j := range r.Jobs {
		if j != nil {
			n++
		}
	}
	if n < 2 {
		return nil
	}
	seen := make(map[string]int, n)
	out := make([]report.JobRepeat, 0, n)
	var one measurement
	for _, j := range r.Jobs {
		if j == nil {
			continue
		}
		measure(&report.Result{Jobs: []*report.JobResult{j}}, &one)
		name := j.Name
		if seen[j.Name]++; seen[j.Name] > 1 {
			name = fmt.Sprintf("%s#%d", j.Name, seen[j.Name])
		}
		out = append(out, report.JobRepeat{Name: name, AvgLatUs: one.stats.AvgLatUs, P99Us: one.stats.P99Us,
			IOPS: one.stats.IOPS, IOs: one.stats.IOs, KStages: one.stats.KStages})
	}
	return out
}

// histCount returns the number of samples in h.
func histCount(h *report.Hist) uint64 {
	var n uint64
	for _, c := range h {
		n += c
	}
	return n
}

// percentileUs returns percentile p of h in µs the way fio computes it:
// the midpoint of the first bucket where the running count reaches
// p/100 of all samples. It is 0 for an empty histogram.
func percentileUs(h *report.Hist, p float64) float64 {
	total := histCount(h)
	if total == 0 {
		return 0
	}
	want := p / 100 * float64(total)
	var sum uint64
	for i, c := range h {
		sum += c
		if c > 0 && float64(sum) >= want {
			return float64(fiostat.HistValue(i)) / 1000
		}
	}
	return float64(fiostat.HistValue(len(h)-1)) / 1000
}
