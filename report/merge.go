package report

import (
	"github.com/gofio/gofio/internal/klock"
	"github.com/gofio/gofio/internal/kstage"
	"github.com/gofio/gofio/internal/openloop"
	"github.com/gofio/gofio/jobfile"
)

// sumPure adds o into s the way fio sums bw and iops sample stats for
// group_reporting (stat.c sum_stat with pure_sum): min, max, mean and S are
// added up, not averaged, so the group shows the aggregate rate.
func sumPure(s *Stat, o Stat) {
	if o.N == 0 {
		return
	}
	if s.N == 0 {
		*s = o
		return
	}
	s.Min += o.Min
	s.Max += o.Max
	s.N += o.N
	s.Mean += o.Mean
	s.S += o.S
}

// members returns how many jobs r stands for (fio's "jobs=N").
func members(r *JobResult) int {
	if r.Members < 1 {
		return 1
	}
	return r.Members
}

// statsOn reports whether the job's statistics are reported (stats=1).
func statsOn(r *JobResult) bool {
	return r.Job == nil || r.Job.Stats
}

// groupReporting reports whether r's job asked for group_reporting.
func groupReporting(r *JobResult) bool {
	return r.Job != nil && r.Job.GroupReporting
}

// Reported returns the results a report prints, in order: one per job, or
// one merged result per run of consecutive group_reporting jobs of the same
// group, as fio's __show_run_stats walks its threads. Jobs with stats=0 are
// left out.
func Reported(r *Result) []*JobResult {
	var out []*JobResult
	var cur []*JobResult
	flush := func() {
		if len(cur) > 0 {
			m := MergeGroup(cur)
			if unifiedRW(m) == jobfile.UnifiedMixed {
				m = Mixed(m)
			}
			out = append(out, m)
			cur = nil
		}
	}
	for _, j := range r.Jobs {
		if !statsOn(j) {
			continue
		}
		if len(cur) > 0 && (!groupReporting(j) || cur[0].GroupID != j.GroupID) {
			flush()
		}
		cur = append(cur, j)
	}
	flush()
	return out
}

// MergeGroup folds the results of members into one, as fio's
// sum_thread_stats does for group_reporting: latency stats merge with the
// parallel-variance formula, bw/iops sample stats are summed, histograms and
// counters are added, runtimes take the maximum, and the name, pid, start
// and description are the first member's. A single member is returned as is.
func MergeGroup(members []*JobResult) *JobResult {
	if len(members) == 1 {
		return members[0]
	}
	first := members[0]
	m := &JobResult{
		Job:     first.Job,
		Name:    first.Name,
		GroupID: first.GroupID,
		Pid:     first.Pid,
		Start:   first.Start,
		Policy:  first.Policy,
		Reap:    first.Reap,
	}
	for _, j := range members {
		mergeInto(m, j)
	}
	return m
}

// mergeInto adds one member's result to the merged result m.
func mergeInto(m, j *JobResult) {
	m.Members += members(j)
	if !j.FirstIO.IsZero() && (m.FirstIO.IsZero() || j.FirstIO.Before(m.FirstIO)) {
		m.FirstIO = j.FirstIO // the group's first I/O
	}
	if j.Elapsed > m.Elapsed {
		m.Elapsed = j.Elapsed
	}
	if m.Error == 0 {
		switch {
		case j.Error == 0 && continueOnError(j.Job) && j.FirstErr != 0:
			m.Error, m.ErrorText = j.FirstErr, j.ErrorText
		case j.Error != 0:
			m.Error, m.ErrorText = j.Error, j.ErrorText
		}
	}
	m.TotalErr += j.TotalErr
	m.FirstErr = j.FirstErr // fio keeps the last member's first_error
	m.LatencyDepth = j.LatencyDepth
	m.SteadyState = j.SteadyState // fio keeps the last member's
	m.Blocks = j.Blocks           // fio copies the last member's block infos

	for d := range m.Dirs {
		m.Dirs[d].add(&j.Dirs[d])
	}
	m.SyncIOs += j.SyncIOs
	m.ZoneResets += j.ZoneResets
	m.SyncLat.Merge(j.SyncLat)
	m.SyncHist.Merge(&j.SyncHist)

	m.JobRuntime += j.JobRuntime
	m.UsrCPU += j.UsrCPU
	m.SysCPU += j.SysCPU
	m.Ctx += j.Ctx
	m.Majf += j.Majf
	m.Minf += j.Minf
	for i := range m.IODepth {
		m.IODepth[i] += j.IODepth[i]
		m.Submit[i] += j.Submit[i]
		m.Complete[i] += j.Complete[i]
	}
	m.SubmitCalls += j.SubmitCalls
	m.CompleteCalls += j.CompleteCalls
	for i := range m.LatNs {
		m.LatNs[i] += j.LatNs[i]
		m.LatUs[i] += j.LatUs[i]
	}
	for i := range m.LatMs {
		m.LatMs[i] += j.LatMs[i]
	}

	m.TWWait.Merge(j.TWWait)
	m.TWWaitHist.Merge(&j.TWWaitHist)
	// The members run side by side: the group's I/Os in flight are the
	// sum of theirs, over the longest member's time.
	m.InFlightArea += j.InFlightArea
	m.InFlightTime = max(m.InFlightTime, j.InFlightTime)
	m.Threads = append(m.Threads, j.Threads...)
	m.DroppedCQEs += j.DroppedCQEs
	if j.KernelStages != nil {
		if m.KernelStages == nil {
			m.KernelStages = &kstage.KernelStages{}
		}
		m.KernelStages.Merge(j.KernelStages)
	}
	if j.KernelLocks != nil {
		if m.KernelLocks == nil {
			m.KernelLocks = &klock.Locks{}
		}
		m.KernelLocks.Merge(j.KernelLocks)
	}
	if j.OpenLoop != nil {
		if m.OpenLoop == nil {
			m.OpenLoop = &openloop.Stats{}
		}
		m.OpenLoop.Merge(j.OpenLoop)
	}
	for _, n := range j.EngineNotes {
		if !contains(m.EngineNotes, n) {
			m.EngineNotes = append(m.EngineNotes, n)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// continueOnError reports whether the job set continue_on_error to
// anything but none.
func continueOnError(j *jobfile.Job) bool {
	return j != nil && j.ContinueOnError != jobfile.ContinueNone
}

// GroupStats is one "Run status group" of the normal output (fio's
// group_run_stats), per direction.
type GroupStats struct {
	ID       int
	KBBase   int
	UnitBase int
	SigFigs  int
	// IOBytes is the sum of the members' bytes; Agg is IOBytes*1000/MaxRun
	// in bytes/s; MinBW and MaxBW are the smallest and largest member
	// bandwidths in bytes/s; MinRun and MaxRun are in ms.
	IOBytes, Agg, MinBW, MaxBW, MinRun, MaxRun [jobfile.NumDirs]uint64
	// UnifiedRW is the members' unified_rw_reporting modes ORed together,
	// as fio's runstats keep it: jobfile.UnifiedMixed labels the one line
	// "MIXED", jobfile.UnifiedBoth adds a MIXED line after the others.
	UnifiedRW int
}

// Groups aggregates the reported results into their groups, as
// __show_run_stats fills runstats: group IDs 0 to the largest one seen, each
// present even when empty.
func Groups(reported []*JobResult) []GroupStats {
	maxID := -1
	for _, j := range reported {
		if j.GroupID > maxID {
			maxID = j.GroupID
		}
	}
	gs := make([]GroupStats, maxID+1)
	for i := range gs {
		gs[i].ID = i
		gs[i].KBBase, gs[i].SigFigs = 1024, 4
		for d := range gs[i].MinBW {
			gs[i].MinBW[d] = ^uint64(0)
			gs[i].MinRun[d] = ^uint64(0)
		}
	}
	for _, j := range reported {
		g := &gs[j.GroupID]
		g.KBBase, g.UnitBase, g.SigFigs = kbBase(j.Job), unitBase(j.Job), sigFigs(j.Job)
		g.UnifiedRW |= unifiedRW(j) // fio ORs the modes into the group's
		for d := range j.Dirs {
			rt := runtimeMs(&j.Dirs[d])
			if rt == 0 {
				continue
			}
			if rt < g.MinRun[d] || g.MinRun[d] == 0 {
				g.MinRun[d] = rt
			}
			if rt > g.MaxRun[d] {
				g.MaxRun[d] = rt
			}
			bw := j.Dirs[d].IOBytes * 1000 / rt
			if bw < g.MinBW[d] {
				g.MinBW[d] = bw
			}
			if bw > g.MaxBW[d] {
				g.MaxBW[d] = bw
			}
			g.IOBytes[d] += j.Dirs[d].IOBytes
		}
	}
	for i := range gs {
		for d := range gs[i].Agg {
			if gs[i].MaxRun[d] != 0 {
				gs[i].Agg[d] = gs[i].IOBytes[d] * 1000 / gs[i].MaxRun[d]
			}
		}
	}
	return gs
}

// runtimeMs is the direction's runtime in whole milliseconds, as fio keeps it.
func runtimeMs(d *DirStats) uint64 {
	if d.Runtime <= 0 {
		return 0
	}
	return uint64(d.Runtime.Milliseconds())
}

// fioDefaults is a job that sets no option, for results that carry no job
// (or a zero field where the option cannot be zero): jobfile owns the
// defaults.
var fioDefaults = jobfile.DefaultJob()

// kbBase is the job's kb_base, 1024 or 1000.
func kbBase(j *jobfile.Job) int {
	if j == nil || j.KBBase == 0 {
		return fioDefaults.KBBase
	}
	return j.KBBase
}

// unitBase is the job's unit_base: 0 (auto), 1 (bits) or 8 (bytes).
func unitBase(j *jobfile.Job) int {
	if j == nil {
		return fioDefaults.UnitBase
	}
	return j.UnitBase
}

// sigFigs is the job's significant_figures.
func sigFigs(j *jobfile.Job) int {
	if j == nil || j.SignificantFigures == 0 {
		return fioDefaults.SignificantFigures
	}
	return j.SignificantFigures
}

// add folds o into d as fio's sum_thread_stats folds one direction into
// another: latency stats and histograms merged, bandwidth and IOPS samples
// summed, counts added, and the longer runtime kept.
func (d *DirStats) add(o *DirStats) {
	d.Slat.Merge(o.Slat)
	d.Clat.Merge(o.Clat)
	d.Lat.Merge(o.Lat)
	sumPure(&d.BW, o.BW)
	sumPure(&d.IOPS, o.IOPS)
	d.SlatHist.Merge(&o.SlatHist)
	d.ClatHist.Merge(&o.ClatHist)
	d.LatHist.Merge(&o.LatHist)
	for i := range o.Prios {
		d.addPrio(&o.Prios[i])
	}
	d.IOBytes += o.IOBytes
	d.TotalIOs += o.TotalIOs
	d.ShortIOs += o.ShortIOs
	d.DropIOs += o.DropIOs
	if o.Runtime > d.Runtime {
		d.Runtime = o.Runtime
	}
}

// addPrio folds the stats of one priority into d's entry for the same
// priority, appending it when d has none (fio's clat_prio_stat_add_samples).
func (d *DirStats) addPrio(o *PrioStat) {
	for i := range d.Prios {
		if d.Prios[i].IOPrio == o.IOPrio {
			d.Prios[i].Lat.Merge(o.Lat)
			d.Prios[i].Hist.Merge(&o.Hist)
			return
		}
	}
	d.Prios = append(d.Prios, PrioStat{IOPrio: o.IOPrio})
	p := &d.Prios[len(d.Prios)-1]
	p.Lat.Merge(o.Lat)
	p.Hist.Merge(&o.Hist)
}
