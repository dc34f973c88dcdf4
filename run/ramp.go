package run

import (
	"time"

	"github.com/gofio/gofio/internal/placement"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"golang.org/x/sys/unix"
)

// endRamp resets every statistic when ramp_time ends, as fio's
// reset_all_stats does; I/O still in flight from the ramp adds its bytes
// and latencies when it completes, but not total_ios.
func (l *loop) endRamp(now int64) {
	l.ramping = false
	if l.job.RampSize > 0 && l.job.Runtime > 0 {
		// runtime counts from the end of ramp_size's ramp, as from the
		// end of ramp_time's (fio resets the job's epoch there).
		l.deadline = now + int64(l.job.Runtime)
	}
	l.resetStats(now)
	if l.zones != nil {
		l.zones.Resets = 0 // fio's reset_io_stats
	}
	if l.latTarget.search != nil {
		l.latTarget.search.Reset(now, l.latTarget.ios)
	}
	l.setState()
}

// rampSizeDone reports at now whether ramp_size's ramp is over: as fio
// 3.42's ramp_period_check, which its helper thread runs once a second
// (RAMP_PERIOD_CHECK_MSEC), the ramp ends at the first whole second of
// the job at which it has moved ramp_size bytes (reads, writes and trims,
// counted during the ramp); a job that ends first reports all its I/O,
// as a job that ends within ramp_time.
func (l *loop) rampSizeDone(now int64) bool {
	rs := l.job.RampSize
	if rs == 0 || now < l.rampCheckAt {
		return false
	}
	for l.rampCheckAt <= now {
		l.rampCheckAt += int64(time.Second)
	}
	return l.bytesDone[jobfile.DirRead]+l.bytesDone[jobfile.DirWrite]+l.bytesDone[jobfile.DirTrim] >= rs
}

// resetStats is fio's reset_all_stats: every statistic starts again at
// now (at the end of ramp_time, and when latency_target's final window
// starts).
func (l *loop) resetStats(now int64) {
	l.gen.EndRamp()
	l.res.ResetIOStats()
	if l.kt != nil {
		l.kt.Reset(now)
	}
	if l.klock != nil {
		l.klock.Reset()
	}
	if l.open != nil {
		l.open.ResetStats()
	}
	l.initPrios()
	l.bytesDone, l.iosDone = [jobfile.NumDirs]uint64{}, [jobfile.NumDirs]uint64{}
	l.issuedIOs = 0
	l.statsStart = now
	l.inflightT = now
	l.bw.reset(now, &l.bytesDone)
	l.iops.reset(now, &l.iosDone)
	placement.GetrusageThread(&l.rusageStart)
	l.setLogEpoch()
}

// setLogEpoch records the job's start on job_start_clock_id's clock and,
// with log_unix_epoch or log_alternate_epoch, the
// milliseconds of log_alternate_epoch_clock_id's clock now, where the
// logs' times start, as fio's set_epoch_time at the job's start and at
// reset_all_stats. A clock the kernel refuses leaves the epoch at 0.
func (l *loop) setLogEpoch() {
	var ts unix.Timespec
	if unix.ClockGettime(int32(l.job.JobStartClock), &ts) == nil {
		// fio 3.42's job_start, set by the same set_epoch_time.
		l.res.JobStart = uint64(ts.Sec)*1000 + uint64(ts.Nsec)/1000000
	}
	if l.res.Logs == nil || !l.job.LogEpoch() {
		return
	}
	if unix.ClockGettime(int32(l.job.LogEpochClock), &ts) == nil {
		l.res.Logs.EpochMsec = uint64(ts.Sec)*1000 + uint64(ts.Nsec)/1000000
	}
}

// initPrios sets up the per-priority stats of the directions that use
// cmdprio, as fio's init_ts_clat_prio.
func (l *loop) initPrios() {
	for d, prios := range l.cmdprio.Prios {
		if len(prios) == 0 {
			continue
		}
		ps := make([]report.PrioStat, len(prios))
		for i, p := range prios {
			ps[i].IOPrio = p
		}
		l.res.Dirs[d].Prios = ps
	}
}
