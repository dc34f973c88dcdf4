package jobfile

import "github.com/gofio/gofio/sched"

// This file holds the facts derived from a job's options. Each has its
// home here; the run core, the report and compare call these methods and
// keep no copies.

// DefaultPercentiles returns fio's default percentile_list, a fresh slice
// the caller may keep.
func DefaultPercentiles() []float64 {
	return []float64{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99}
}

// BSMin returns fio's min_bs for direction d: the smallest bssplit= entry
// (entries of 0% count, as they do in fio's bssplit_ddir), else the low
// end of bsrange=, else bs=. It is the same for every direction whether
// or not rw= issues it: verify reads of a write job use the read value.
func (j *Job) BSMin(d Dir) uint64 {
	lo, _ := j.bsBounds(d)
	return lo
}

// BSMax returns fio's max_bs for direction d: the largest bssplit= entry
// (0% ones included), else the high end of bsrange=, else bs=.
func (j *Job) BSMax(d Dir) uint64 {
	_, hi := j.bsBounds(d)
	return hi
}

// bsBounds returns BSMin and BSMax of direction d.
func (j *Job) bsBounds(d Dir) (lo, hi uint64) {
	if sp := j.BSSplit[d]; len(sp) > 0 {
		lo, hi = sp[0].BS, sp[0].BS
		for _, e := range sp[1:] {
			lo, hi = min(lo, e.BS), max(hi, e.BS)
		}
		return lo, hi
	}
	if j.BSRangeMin[d] != 0 {
		return j.BSRangeMin[d], j.BSRangeMax[d]
	}
	return j.BS[d], j.BS[d]
}

// MinBS returns fio's td_min_bs: the smallest BSMin over read, write and
// trim, whichever rw= issues (directions without a block size are
// skipped). fio refuses size= below it.
func (j *Job) MinBS() uint64 {
	var m uint64
	for d := DirRead; d < NumDirs; d++ {
		if v := j.BSMin(d); v != 0 && (m == 0 || v < m) {
			m = v
		}
	}
	return m
}

// MaxBS returns fio's td_max_bs: the largest BSMax over read, write and
// trim. Buffers are sized to it.
func (j *Job) MaxBS() uint64 {
	var m uint64
	for d := DirRead; d < NumDirs; d++ {
		m = max(m, j.BSMax(d))
	}
	return m
}

// Policy returns the task-work policy tw_priority= selects:
// sched.Priority for tw_priority=1 (the default), sched.FIFO for 0.
func (j *Job) Policy() sched.Policy { return sched.PolicyFor(j.TWPriority) }

// ReapAll reports whether the job's loop harvests every CQE between
// task-work items (tw_reap=all, gofio's task-work model) rather than
// reaping as fio 3.33 does (tw_reap=fio). tw_reap=auto is all for one
// side of --compare (compare) and with tw_thread=goroutine, where the
// policy orders the work, and fio otherwise.
func (j *Job) ReapAll(compare bool) bool {
	switch j.TWReap {
	case "all":
		return true
	case "fio":
		return false
	}
	return compare || j.TWThread == "goroutine"
}

// ReapName is the reap mode ReapAll selects, as reports print it: "all"
// or "fio".
func (j *Job) ReapName(compare bool) string {
	if j.ReapAll(compare) {
		return "all"
	}
	return "fio"
}

// IOPrio is prioclass=, prio= and priohint= as the kernel's ioprio value
// (class << 13 | hint << 3 | level), as fio's ioprio_value.
func (j *Job) IOPrio() int { return j.PrioClass<<13 | j.PrioHint<<3 | j.Prio }

// LogEpoch reports whether the job's log lines count time from the epoch
// of clock LogEpochClock (log_unix_epoch or log_alternate_epoch), as
// fio's set_epoch_time.
func (j *Job) LogEpoch() bool { return j.LogUnixEpoch || j.LogAlternateEpoch }

// TrimVerify reports whether the job trims some of the blocks it writes
// and verifies, as fio 3.33 does: trim_percentage above 0 and trim_backlog
// set, in a job that writes with verify= and do_verify=1 and without
// experimental_verify (which keeps no list of written blocks in fio).
func (j *Job) TrimVerify() bool {
	return j.TrimPercentage > 0 && j.TrimBacklog > 0 && j.RW.HasWrite() && j.verifies() && j.DoVerify && !j.ExperimentalVerify
}

// verifies reports whether verify= names a verify type (not 0, the default).
func (j *Job) verifies() bool { return j.Verify != "" && j.Verify != "0" }

// KernelSQPoll reports whether a kernel thread submits the job's requests:
// sqthread_poll=1 on an engine whose SQPOLL is the kernel's (io_uring).
func (j *Job) KernelSQPoll() bool { return j.SQThreadPoll && j.Engine().SQPoll }
