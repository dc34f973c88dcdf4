package report

import (
	"time"

	"github.com/gofio/gofio/internal/fiostat"
	"github.com/gofio/gofio/internal/klock"
	"github.com/gofio/gofio/internal/kstage"
	"github.com/gofio/gofio/internal/openloop"
	"github.com/gofio/gofio/jobfile"
)

// This file is the contract between the run core and the reporters: run/
// fills a Result, the writers read it. Fields may be added; existing ones
// keep their meaning.

// Stat is fio's running min/max/mean/variance over nanosecond samples
// (fiostat.Stat); the result model names it here.
type Stat = fiostat.Stat

// Hist is fio's log-linear latency histogram (fiostat.Hist); the result
// model names it here.
type Hist = fiostat.Hist

// DirStats is what one job did in one direction.
type DirStats struct {
	IOBytes  uint64
	TotalIOs uint64
	ShortIOs uint64
	DropIOs  uint64
	Runtime  time.Duration // time the direction was active (fio: ts.runtime[ddir])

	Slat, Clat, Lat             Stat
	SlatHist, ClatHist, LatHist Hist

	// Prios are the latencies per I/O priority, in fio's clat_prio order
	// (the job's own first), when cmdprio is in use for the direction;
	// nil otherwise.
	Prios []PrioStat

	// BW are the bwavgtime samples in KiB/s (or bytes/s unit per kb_base),
	// IOPS the iopsavgtime samples, as fio's add_bw_samples/add_iops_samples.
	BW, IOPS Stat
	// BWSamples and IOPSSamples keep the raw windows for logs (time offset
	// in ms, value).
	BWSamples, IOPSSamples []LogSample
}

// PrioStat is the completion latency of the I/Os of one priority, fio's
// clat_prio_stat (their total latency with lat_percentiles=1).
type PrioStat struct {
	IOPrio uint16 // class << 13 | level
	Lat    Stat
	Hist   Hist
}

// PriosShown reports whether the per-priority stats are printed: when at
// least two priorities have samples, as fio's get_nr_prios_with_samples.
func (d *DirStats) PriosShown() bool {
	n := 0
	for i := range d.Prios {
		if d.Prios[i].Lat.N > 0 {
			n++
		}
	}
	return n >= 2
}

// LogSample is one line of a write_*_log file.
type LogSample struct {
	Msec   uint64
	Value  uint64
	Dir    jobfile.Dir
	BS     uint64
	Offset uint64
	// Max is the window's largest value (log_window_value=both; a
	// per-I/O sample has 0), Issue the I/O's issue time in ns since the
	// job's stats start (log_issue_time, clat samples only).
	Max, Issue uint64
}

// HistLogSample is one line of a write_hist_log file: the clat histogram
// counts of direction Dir since its previous line, Bins[i] the sum of
// 2^log_hist_coarseness of fio's buckets, taken at the completion of an
// I/O of BS bytes Msec after the job started.
type HistLogSample struct {
	Msec uint64
	Dir  jobfile.Dir
	BS   uint64
	Bins []uint64
}

// ThreadCPU is the CPU time of one thread that worked for the job, read from
// /proc/self/task/TID/schedstat and stat.
type ThreadCPU struct {
	Kind string // "job", "sqpoll", "iowq"
	TID  int
	Name string
	Usr  time.Duration
	Sys  time.Duration
}

// JobResult is everything a reporter needs about one finished job (or one
// merged group when group_reporting is on, see MergeGroup).
type JobResult struct {
	Job     *jobfile.Job
	Name    string
	GroupID int
	Members int // jobs merged into this result (fio's "jobs=N")
	Pid     int
	Start   time.Time // wall clock when the job started
	// FirstIO is the wall clock just before the job's first submit: with
	// --start-at, the start skew of a fleet run is FirstIO - StartAt.
	FirstIO time.Time
	Elapsed time.Duration
	// JobStart is the reading of job_start_clock_id's clock, in ms, when
	// the job's statistics started (its start, or the end of ramp_time):
	// fio 3.42's JSON "job_start".
	JobStart uint64

	Error     int    // first fatal errno, 0 = ok
	ErrorText string // fio's verror text
	TotalErr  uint64 // errors skipped by continue_on_error
	FirstErr  int

	// IOStats are the per-I/O figures, which ramp_time discards.
	IOStats

	JobRuntime      time.Duration // total_run_time, used for CPU %
	UsrCPU, SysCPU  time.Duration
	Ctx, Majf, Minf uint64

	LatencyDepth int // the depth the job ran at (latency_target: the depth its search settled on)
	// SteadyState is the job's steady-state detection (steadystate=,
	// steadystate_duration=); nil without.
	SteadyState *SteadyState

	// Blocks is block_error_percentiles' record; nil without it.
	Blocks BlockInfos

	// gofio extras.
	Policy      string // "priority" or "fifo"
	Reap        string // tw_reap as the job ran: "fio" or "all" (Job.ReapName)
	SQThread    string // what played the SQ thread: SQKernel, SQGoroutine or SQNone
	TaskRun     string // the ring's task-run mode as the kernel set it up (TaskRunOf); "" off io_uring
	Threads     []ThreadCPU
	DroppedCQEs uint64
	EngineNotes []string
	// KernelStages is what the kernel's tracepoints measured of the job's
	// I/Os (kernel_stages=1); nil when the job did not ask.
	KernelStages *kstage.KernelStages
	// KernelLocks is the kernel lock contention of the job's threads
	// (kernel_locks=1); nil when the job did not ask.
	KernelLocks *klock.Locks
	// OpenLoop is the response latency and late I/Os of an open-loop job
	// (open_loop=1) per direction; nil for fio's closed loop.
	OpenLoop *openloop.Stats

	// Logs holds the samples for write_lat_log, write_bw_log and
	// write_iops_log; nil when the job asked for no log.
	Logs *JobLogs
}

// SteadyState is the outcome of fio's steady-state detection for a job, or
// for its reporting group with group_reporting (fio's ss_* of a
// thread_stat).
type SteadyState struct {
	IOPS      bool    `json:"iops"`          // the criterion reads IOPS
	Lat       bool    `json:"lat,omitempty"` // the criterion reads the mean completion latency (fio 3.42)
	BySlope   bool    `json:"slope"`         // the criterion is the slope (else the maximum deviation from the mean)
	Pct       bool    `json:"pct"`           // Limit and Criterion are percentages of the mean
	Limit     float64 `json:"limit"`         // the criterion's limit
	Duration  int     `json:"duration"`      // the window's seconds (ss_dur)
	Attained  bool    `json:"attained"`
	Slope     float64 `json:"slope_value"` // the last slope computed (bytes/s or IOPS per second)
	Deviation float64 `json:"deviation"`   // the last maximum deviation from the mean
	Criterion float64 `json:"criterion"`   // the last criterion value, compared with Limit
	// BW and IOPSData are the window's samples (bytes/s, IOPS), in the
	// order fio's JSON prints them: one a second (fio 3.33) or one a
	// check interval (fio 3.42), zero where no sample came yet. LatData
	// are the mean completion latencies (ns), with Lat only.
	BW       []uint64 `json:"bw"`
	IOPSData []uint64 `json:"iops_data"`
	LatData  []uint64 `json:"lat_data,omitempty"`
}

// BWMean is the mean of the window's bandwidth samples, rounded down, as
// fio's steadystate_bw_mean.
func (s *SteadyState) BWMean() uint64 { return meanOf(s.BW, s.Duration) }

// IOPSMean is the mean of the window's IOPS samples, rounded down.
func (s *SteadyState) IOPSMean() uint64 { return meanOf(s.IOPSData, s.Duration) }

// LatMean is the mean of the window's latency samples (ns), rounded down,
// as fio 3.42's steadystate_lat_mean.
func (s *SteadyState) LatMean() uint64 { return meanOf(s.LatData, s.Duration) }

// meanOf is fio's steadystate_data_mean: the sum of the window's samples
// over their number, 0 without a duration.
func meanOf(v []uint64, dur int) uint64 {
	if dur <= 0 || len(v) == 0 {
		return 0
	}
	var sum uint64
	for _, x := range v {
		sum += x
	}
	return sum / uint64(len(v))
}

// IOStats are the figures of a JobResult counted per I/O, submit or
// completion: what ramp_time throws away when it ends (ResetIOStats).
type IOStats struct {
	Dirs     [jobfile.NumDirs]DirStats
	SyncIOs  uint64
	SyncLat  Stat
	SyncHist Hist
	// ZoneResets is fio's nr_zone_resets: the zones zonemode=zbd reset.
	ZoneResets uint64

	// IODepth counts samples of the in-flight depth at submit time in
	// fio's buckets 1, 2, 4, 8, 16, 32, >=64; Submit and Complete count
	// calls by batch size in buckets 0, 4, 8, 16, 32, 64, >=64.
	IODepth       [7]uint64
	Submit        [7]uint64
	Complete      [7]uint64
	SubmitCalls   uint64
	CompleteCalls uint64
	// LatNs, LatUs, LatMs are clat counts in fio's latency distribution
	// buckets (10, 10 and 12 buckets).
	LatNs [10]uint64
	LatUs [10]uint64
	LatMs [12]uint64

	TWWait     Stat // gofio: harvest to completion-item run, ns
	TWWaitHist Hist

	// InFlightArea is the integral over InFlightTime ns of the number of
	// I/Os submitted and not yet reaped (ns × I/Os), counted where the
	// run submits and reaps: their ratio is the time-averaged number of
	// I/Os in flight (InFlightMean).
	InFlightArea uint64
	InFlightTime uint64
}

// InFlightMean is the time-averaged number of I/Os submitted and not yet
// reaped; 0 when none were measured.
func (s *IOStats) InFlightMean() float64 {
	if s.InFlightTime == 0 {
		return 0
	}
	return float64(s.InFlightArea) / float64(s.InFlightTime)
}

// ResetIOStats zeroes every per-I/O figure, as fio does when ramp_time
// ends. Whatever else the result holds (the job, errors, CPU, threads,
// logs) is kept.
func (r *JobResult) ResetIOStats() { r.IOStats = IOStats{} }

// DiskStats are the deltas of /sys/block/DEV/stat over a run.
type DiskStats struct {
	Name              string
	ReadIOs, WriteIOs uint64
	// ReadSectors and WriteSectors are the 512-byte sectors moved, which
	// fio 3.42 reports (read_sectors, write_sectors; sectors=R/W).
	ReadSectors, WriteSectors uint64
	ReadMerges, WriteMerges   uint64
	ReadTicks, WriteTicks     uint64
	InQueue                   uint64
	Util                      float64
}

// Result is a whole run: every job, in start order, and the disks under them.
type Result struct {
	Version string // "gofio-x.y"
	Kernel  string // the release of the kernel the jobs ran on, as uname -r
	Start   time.Time
	// StartAt is the --start-at time the jobs waited for; zero without it.
	StartAt time.Time
	Jobs    []*JobResult
	Disks   []DiskStats
	Signal  string // "interrupt" when the run was cut short
	// Comparison, when set, is printed by WriteJSON under the top-level
	// key CompareJSONKey, after fio's own keys (--compare, --sweep).
	Comparison *Comparison
	// Baseline, when set, is printed by WriteJSON under BaselineJSONKey,
	// after the comparison (--baseline).
	Baseline *Baseline
	// History, when set, is printed by WriteJSON under HistoryJSONKey,
	// after the baseline (--history).
	History *History
	// Capacity, when set, is printed by WriteJSON under
	// CapacityJSONKey, after the history (--slo).
	Capacity *Capacity
	// Run, when set, is printed by WriteJSON under RunJSONKey, before the
	// comparison.
	Run *RunInfo
	// End is the wall clock when the run finished; the job headers and
	// the JSON "time" print it as fio prints the time of its report. Zero
	// means Start.
	End time.Time
	// GlobalOptions are the [global] options (and command-line options
	// before the first --name), printed as JSON "global options". Job
	// options equal to this prefix of a Job's Options are not repeated in
	// its "job options".
	GlobalOptions []jobfile.Option
	// Release is the fio release whose output layout the writers follow
	// ("" for fio 3.33's; --fio-release).
	Release Release
	// Elapsed is the run's wall time from just before the first job
	// started (fio's genesis) to the end of the last one; JSON "elapsed"
	// is it in seconds, rounded up. Zero means the longest job Elapsed.
	Elapsed time.Duration
}
