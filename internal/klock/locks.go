package klock

import (
	"cmp"
	"slices"
)

// Subsystem is the part of the kernel a contention site belongs to.
type Subsystem string

// The subsystems, in report order.
const (
	SubIOWQ    Subsystem = "io-wq"    // io_uring's async worker pool (io_wq_*, io_worker_*)
	SubIOUring Subsystem = "io_uring" // io_uring itself (io_*, __io_*)
	SubBlock   Subsystem = "block"    // the block layer and block drivers (blk_*, bio_*, loop_*, virtblk_*, nvme_*)
	SubOther   Subsystem = "other"    // everything else (scheduler, memory, file systems)
)

// Subsystems lists the subsystems in report order.
var Subsystems = []Subsystem{SubIOWQ, SubIOUring, SubBlock, SubOther}

// Site is one place in the kernel where the job's threads waited for a
// contended lock: the first kernel function above the lock primitives.
type Site struct {
	// Name is the function, e.g. "io_wq_enqueue"; UnknownSite when the
	// kernel could not take the stack.
	Name      string    `json:"site"`
	Subsystem Subsystem `json:"subsystem"`
	// Count is the contentions at the site, WaitNs their begin-to-end
	// time, SpinNs the part of it spent spinning on a CPU.
	Count  uint64 `json:"count"`
	WaitNs uint64 `json:"wait_ns"`
	SpinNs uint64 `json:"spin_ns"`
}

// UnknownSite names the contentions whose kernel stack could not be
// taken, or whose functions could not be resolved.
const UnknownSite = "[unknown]"

// Locks is the kernel lock contention of one job's threads after its
// ramp_time (or of a reporting group's jobs, merged). A JobResult holds
// nil when the job did not ask for it.
type Locks struct {
	// Available is false when tracing could not run; Reason says why and
	// every count is zero.
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
	// Note says what limits available figures (sites left unresolved),
	// "" when nothing does.
	Note string `json:"note,omitempty"`
	// Contentions counts the contended lock acquisitions of the traced
	// threads; WaitNs is their begin-to-end time, SpinNs its part spent
	// spinning on a CPU rather than asleep.
	Contentions uint64 `json:"contentions"`
	WaitNs      uint64 `json:"wait_ns"`
	SpinNs      uint64 `json:"spin_ns"`
	// CPUNs is the traced threads' on-CPU time over the same span (the
	// job thread, its SQPOLL thread and io-wq workers, from schedstat);
	// IOs the I/Os the job completed over it.
	CPUNs uint64 `json:"cpu_ns"`
	IOs   uint64 `json:"ios"`
	// Threads is how many traced threads had CPU time: the job thread,
	// SQ thread and io-wq workers alive at the end.
	Threads int `json:"threads"`
	// Sites are the contention sites, the most waited on first.
	Sites []Site `json:"sites,omitempty"`
	// LostEvents counts contentions that went uncounted: their start
	// found the tracer's table of waiting tasks full, their site's counter
	// could not be made, or the kernel skipped a program for them (it ran
	// already on the CPU).
	LostEvents uint64 `json:"lost_events"`
	// BPFRunNs and BPFRuns are the tracer's programs' run time and run
	// count (0 without the kernel's BPF statistics): the tracing's cost.
	BPFRunNs uint64 `json:"bpf_run_ns"`
	BPFRuns  uint64 `json:"bpf_runs"`
}

func perIO(v, ios uint64) float64 {
	if ios == 0 {
		return 0
	}
	return float64(v) / float64(ios)
}

// ContentionsPerIO is the contentions per completed I/O, 0 without I/O.
func (l *Locks) ContentionsPerIO() float64 { return perIO(l.Contentions, l.IOs) }

// WaitNsPerIO is the lock wait per completed I/O in ns, 0 without I/O.
func (l *Locks) WaitNsPerIO() float64 { return perIO(l.WaitNs, l.IOs) }

// WaitShare is the spinning part of the wait as a fraction of the traced
// threads' CPU time: the share of their cycles spent in lock slow paths,
// the figure perf's "spin-lock slowpath %" gives. Sleeping waits take no
// CPU and are left out. 0 without CPU time.
func (l *Locks) WaitShare() float64 {
	if l.CPUNs == 0 {
		return 0
	}
	return float64(l.SpinNs) / float64(l.CPUNs)
}

// BPFNsPerIO is the tracer's BPF run time per completed I/O in ns.
func (l *Locks) BPFNsPerIO() float64 { return perIO(l.BPFRunNs, l.IOs) }

// AddSite counts contentions at a site, adding to one of the same name.
// Call SortSites when done.
func (l *Locks) AddSite(s Site) {
	l.Contentions += s.Count
	l.WaitNs += s.WaitNs
	l.SpinNs += s.SpinNs
	for i := range l.Sites {
		if l.Sites[i].Name == s.Name {
			l.Sites[i].Count += s.Count
			l.Sites[i].WaitNs += s.WaitNs
			l.Sites[i].SpinNs += s.SpinNs
			return
		}
	}
	l.Sites = append(l.Sites, s)
}

// SortSites orders the sites by wait, then count, then name.
func (l *Locks) SortSites() {
	slices.SortFunc(l.Sites, func(a, b Site) int {
		return cmp.Or(cmp.Compare(b.WaitNs, a.WaitNs), cmp.Compare(b.Count, a.Count), cmp.Compare(a.Name, b.Name))
	})
}

// Merge folds o into l (group_reporting, gofio merge, a comparison
// side's repeats). The result is available when any part was; the first
// part's reason stays.
func (l *Locks) Merge(o *Locks) {
	if o == nil {
		return
	}
	if !l.Available && !o.Available && l.Reason == "" {
		l.Reason = o.Reason
	}
	if o.Available {
		l.Available, l.Reason = true, ""
	}
	if l.Note == "" {
		l.Note = o.Note
	}
	for _, s := range o.Sites {
		l.AddSite(s)
	}
	l.CPUNs += o.CPUNs
	l.IOs += o.IOs
	l.Threads += o.Threads
	l.LostEvents += o.LostEvents
	l.BPFRunNs += o.BPFRunNs
	l.BPFRuns += o.BPFRuns
	l.SortSites()
}

// SubsystemTotal is the contention of one subsystem's sites.
type SubsystemTotal struct {
	Subsystem Subsystem
	Sites     int
	Count     uint64
	WaitNs    uint64
}

// BySubsystem sums the sites per subsystem, in Subsystems order, leaving
// out subsystems without contention.
func (l *Locks) BySubsystem() []SubsystemTotal {
	var out []SubsystemTotal
	for _, sub := range Subsystems {
		t := SubsystemTotal{Subsystem: sub}
		for _, s := range l.Sites {
			if s.Subsystem == sub {
				t.Sites++
				t.Count += s.Count
				t.WaitNs += s.WaitNs
			}
		}
		if t.Sites > 0 {
			out = append(out, t)
		}
	}
	return out
}

// Top returns the n most waited-on sites (all with n <= 0).
func (l *Locks) Top(n int) []Site {
	if n <= 0 || n >= len(l.Sites) {
		return l.Sites
	}
	return l.Sites[:n]
}
