package verifylog

import (
	"time"

	"github.com/gofio/gofio/internal/fiostat"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// perIOLogCap is the first capacity of a per-I/O log: appends past it grow
// the slice by doubling, so the cost per I/O stays amortised.
const perIOLogCap = 1 << 14

// JobLogger fills a job's write_lat_log, write_bw_log and write_iops_log
// samples (report.JobLogs) as fio 3.33 does (stat.c):
//   - without log_avg_msec every log gets one line per I/O: lat, clat and
//     slat in ns, bw as bytes*1e6/clat, iops as 1, each with the I/O's size
//     and offset; the per-I/O bw and iops values are also the job's bw and
//     iops statistics samples (per_unit_log), and the periodic windows of
//     that kind stop;
//   - with log_avg_msec the latency logs hold per-direction means over
//     log_avg_msec windows (report.LogWindow, closed by the first I/O past
//     the window and once more when the job ends), and bw and iops are
//     sampled every log_avg_msec instead of every bwavgtime/iopsavgtime,
//     each window a log line with bs 0.
//
// A job that asks for no log has no JobLogger (nil), so the hot path costs
// one nil check and allocates nothing.
type JobLogger struct {
	out             *report.JobLogs
	lat, clat, slat report.LogWindow
	latOn           bool // write_lat_log is set
	noClat, noLat   bool // disable_clat, disable_lat or gtod_reduce
	bwUnit          bool // per-I/O bw log
	iopsUnit        bool // per-I/O iops log
	hist            *histLogger
}

// histLogger fills a job's write_hist_log samples as fio 3.33's
// add_clat_sample does: per direction, the first completion at least
// log_hist_msec after the direction's last sample copies the clat
// histogram (fio's io_u_plat, empty with clat_percentiles=0), and the log
// line is that copy less the one before, summed over 2^coarseness
// buckets. The next window starts log_hist_msec after the last, less
// the drift (fio's hist_last).
type histLogger struct {
	msec    uint64
	stride  int
	zero    bool // clat_percentiles=0: fio's histogram stays empty
	last    [jobfile.NumDirs]uint64
	prev    [jobfile.NumDirs]report.Hist
	samples *[]report.HistLogSample
}

// sample logs the histogram of direction d when its window is over; h is
// the direction's clat histogram with the completion of bs bytes in it.
func (hl *histLogger) sample(h *report.Hist, msec uint64, d jobfile.Dir, bs uint64) {
	if hl.last[d] == 0 {
		hl.last[d] = msec
	}
	window := msec - hl.last[d]
	if window < hl.msec {
		return
	}
	bins := make([]uint64, (fiostat.HistBuckets+hl.stride-1)/hl.stride)
	if !hl.zero {
		for i := range h {
			bins[i/hl.stride] += h[i] - hl.prev[d][i]
		}
		hl.prev[d] = *h
	}
	*hl.samples = append(*hl.samples, report.HistLogSample{Msec: msec, Dir: d, BS: bs, Bins: bins})
	hl.last[d] = msec - (window - hl.msec)
}

// RateLog is what a job's bw or iops sampler does for its write_bw_log or
// write_iops_log: with log_avg_msec it writes one line per window of
// AvgNs into Out; without it the log is per I/O and the sampler stops
// (AvgNs 0), as in fio. Out is nil when the job writes no such log.
type RateLog struct {
	Out   *[]report.LogSample
	AvgNs int64
}

// NewJobLogger returns the logger for j, or nil when j writes no log, and
// what the job's bw and iops samplers must do for their logs. res
// receives the samples.
func NewJobLogger(j *jobfile.Job, res *report.JobResult, noClat, noLat bool) (lg *JobLogger, bw, iops RateLog) {
	if !j.WritesLogs() {
		return nil, bw, iops
	}
	avg := uint64(max(j.LogAvgMsec, 0))
	lg = &JobLogger{out: &report.JobLogs{LogOffset: j.LogOffset, WindowBoth: j.LogWindowBoth, IssueTime: j.LogIssueTime}, noClat: noClat, noLat: noLat}
	res.Logs = lg.out
	// Windows per direction for the averaged logs: the run time over the
	// window, with room for the first and the closing window.
	windows := 0
	if avg > 0 {
		if d := j.Runtime + j.RampTime; d > 0 {
			windows = int(d/(time.Duration(avg)*time.Millisecond)) + 2
		}
		windows *= int(jobfile.NumDirs)
	}
	capFor := func() int {
		if avg > 0 {
			return windows
		}
		return perIOLogCap
	}
	if j.WriteLatLog != "" {
		lg.latOn = true
		lg.out.Lat = make([]report.LogSample, 0, capFor())
		lg.out.Clat = make([]report.LogSample, 0, capFor())
		lg.out.Slat = make([]report.LogSample, 0, capFor())
		lg.lat = report.LogWindow{AvgMsec: avg, Max: j.LogMaxValue, Both: j.LogWindowBoth, Out: &lg.out.Lat}
		lg.clat = report.LogWindow{AvgMsec: avg, Max: j.LogMaxValue, Both: j.LogWindowBoth, Out: &lg.out.Clat}
		lg.slat = report.LogWindow{AvgMsec: avg, Max: j.LogMaxValue, Both: j.LogWindowBoth, Out: &lg.out.Slat}
	}
	// fio's account_io_completion takes per-I/O bw samples unless
	// disable_bw_measurement, and iops samples unless gtod_reduce, or
	// disable_clat, disable_slat and disable_bw together.
	reduce := j.GtodReduce || j.DisableClat && j.DisableSlat && j.DisableBW
	if j.WriteBWLog != "" {
		bw = rateLog(&lg.out.BW, avg, capFor())
		lg.bwUnit = bw.AvgNs == 0 && !j.DisableBW
	}
	if j.WriteIOPSLog != "" {
		iops = rateLog(&lg.out.IOPS, avg, capFor())
		lg.iopsUnit = iops.AvgNs == 0 && !reduce
	}
	if j.WriteHistLog != "" && j.LogHistMsec > 0 && !noClat {
		lg.hist = &histLogger{msec: uint64(j.LogHistMsec), stride: 1 << j.LogHistCoarseness,
			zero: !j.ClatPercentiles, samples: &lg.out.Hist}
	}
	return lg, bw, iops
}

// rateLog sets up a bw or iops log out, per I/O without log_avg_msec
// (avg 0).
func rateLog(out *[]report.LogSample, avg uint64, capacity int) RateLog {
	*out = make([]report.LogSample, 0, capacity)
	return RateLog{Out: out, AvgNs: int64(avg) * int64(time.Millisecond)}
}

// Issued logs the slat of an I/O at its submission, as fio's
// add_slat_sample does; msec counts from the stats origin.
func (lg *JobLogger) Issued(msec uint64, d jobfile.Dir, slat, bs, off uint64) {
	if lg.latOn {
		lg.slat.Add(msec, slat, d, bs, off, 0)
	}
}

// Completed logs one accounted completion of bs bytes at offset off,
// issued at issue ns (log_issue_time's column of the clat log), and takes
// the per-I/O bw and iops statistics samples into ds; msec and issue count
// from the stats origin.
func (lg *JobLogger) Completed(ds *report.DirStats, msec uint64, d jobfile.Dir, clat, lat, bs, off, issue uint64) {
	if lg.latOn {
		if !lg.noClat {
			lg.clat.Add(msec, clat, d, bs, off, issue)
		}
		if !lg.noLat {
			lg.lat.Add(msec, lat, d, bs, off, 0)
		}
	}
	if lg.hist != nil {
		lg.hist.sample(&ds.ClatHist, msec, d, bs)
	}
	if lg.bwUnit {
		var rate uint64
		if clat > 0 {
			rate = bs * 1000000 / clat
		}
		ds.BW.Add(rate)
		lg.out.BW = append(lg.out.BW, report.LogSample{Msec: msec, Value: rate, Dir: d, BS: bs, Offset: off})
	}
	if lg.iopsUnit {
		ds.IOPS.Add(1)
		lg.out.IOPS = append(lg.out.IOPS, report.LogSample{Msec: msec, Value: 1, Dir: d, BS: bs, Offset: off})
	}
}

// Finish closes the open latency windows at msec, as fio's finalize_logs
// does when the job ends.
func (lg *JobLogger) Finish(msec uint64) {
	if lg.latOn && lg.lat.AvgMsec > 0 {
		lg.lat.Flush(msec)
		lg.clat.Flush(msec)
		lg.slat.Flush(msec)
	}
}
