package report

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gofio/gofio/jobfile"
)

// JobLogs are the samples of a job's write_lat_log, write_bw_log and
// write_iops_log files, in time order with the direction in each sample.
// The run core fills them while the job runs: for latencies through a
// LogWindow per kind (raw per-I/O samples, or log_avg_msec averages), for
// bw and iops with one sample per bwavgtime/iopsavgtime window (or per
// log_avg_msec window when set). Preallocate the slices with room for the
// expected samples so the hot path does not grow them.
type JobLogs struct {
	Lat, Clat, Slat []LogSample
	BW, IOPS        []LogSample
	// Hist are the write_hist_log lines.
	Hist []HistLogSample
	// LogOffset adds the offset column (log_offset=1).
	LogOffset bool
	// WindowBoth adds the window maximum column after the value
	// (log_window_value=both), IssueTime the issue time column last
	// (log_issue_time=1), as fio 3.42's flush_samples writes them.
	WindowBoth, IssueTime bool
	// EpochMsec is added to every sample's time when it is written: the
	// milliseconds of log_alternate_epoch_clock_id's clock when the job's
	// statistics started (fio's alternate_epoch), with log_unix_epoch or
	// log_alternate_epoch; 0 otherwise.
	EpochMsec uint64
}

// LogWindow collects latency samples for one log, averaging them per
// direction over AvgMsec windows as fio's add_log_sample does when
// log_avg_msec is set (the value is the window mean rounded to nearest, or
// its maximum with log_max_value; bs and offset are 0; the time is the ms
// at which the window closed).
type LogWindow struct {
	AvgMsec uint64
	Max     bool // log_max_value: the window's largest value, not its mean
	Both    bool // log_window_value=both: the mean, and the largest value in LogSample.Max
	Out     *[]LogSample
	sum     [jobfile.NumDirs]Stat
	last    [jobfile.NumDirs]uint64
}

// Add records value at msec since the job started, of an I/O issued at
// issue ns since then (0: not logged).
func (l *LogWindow) Add(msec, value uint64, dir jobfile.Dir, bs, offset, issue uint64) {
	if l.AvgMsec == 0 {
		*l.Out = append(*l.Out, LogSample{Msec: msec, Value: value, Dir: dir, BS: bs, Offset: offset, Issue: issue})
		return
	}
	l.sum[dir].Add(value)
	if msec < l.last[dir] || msec-l.last[dir] < l.AvgMsec {
		return
	}
	l.flushDir(dir, msec)
	l.last[dir] = msec - msec%l.AvgMsec
}

// Flush closes the open windows at msec, as fio does when a job ends.
func (l *LogWindow) Flush(msec uint64) {
	for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
		l.flushDir(d, msec)
	}
}

func (l *LogWindow) flushDir(d jobfile.Dir, msec uint64) {
	if l.sum[d].N == 0 {
		return
	}
	v := uint64(l.sum[d].Mean + 0.5)
	if l.Max {
		v = l.sum[d].Max
	}
	smp := LogSample{Msec: msec, Value: v, Dir: d}
	if l.Both {
		smp.Max = l.sum[d].Max
	}
	*l.Out = append(*l.Out, smp)
	l.sum[d] = Stat{}
}

// WriteLogs writes the log files of every job of r that asked for them into
// dir, named as fio names them: <prefix>_lat.<N>.log, _clat, _slat, _bw and
// _iops, where N is the job's 1-based position in the run, or, with
// per_job_logs=0, <prefix>_lat.log and so on, which every job appends to
// (across runs too, as fio opens them for appending). Each line is "msec,
// value, ddir, bs, prio" (with the offset before prio when log_offset=1);
// prio is fio's: 1 when the job's prioclass is real-time (else 0), or with
// log_prio=1 the job's ioprio value as 0x%04x; 0 in averaged bandwidth and
// IOPS windows. Per-I/O cmdprio priorities are not logged.
func WriteLogs(dir string, r *Result) error {
	for i, j := range r.Jobs {
		if j.Job == nil || j.Logs == nil {
			continue
		}
		n := i + 1
		// Per-I/O samples carry the I/O's priority; averaged bw/iops
		// windows carry none (fio's __add_samples logs priority 0).
		latPrio, bwPrio := logPrioValue(j.Job, true), logPrioValue(j.Job, j.Job.LogAvgMsec == 0)
		files := []struct {
			prefix, kind string
			samples      []LogSample
			prio         uint16
		}{
			{j.Job.WriteLatLog, "lat", j.Logs.Lat, latPrio},
			{j.Job.WriteLatLog, "clat", j.Logs.Clat, latPrio},
			{j.Job.WriteLatLog, "slat", j.Logs.Slat, latPrio},
			{j.Job.WriteBWLog, "bw", j.Logs.BW, bwPrio},
			{j.Job.WriteIOPSLog, "iops", j.Logs.IOPS, bwPrio},
		}
		for _, f := range files {
			if f.prefix == "" {
				continue
			}
			name := logName(dir, j.Job, f.prefix, f.kind, n)
			var err error
			if j.Job.LogStoreCompressed {
				err = writeStoredLog(name+".fz", f.samples, j.Job, f.prio, j.Logs.EpochMsec)
			} else {
				err = writeLog(name, f.samples, logColumns{offset: j.Logs.LogOffset, max: j.Logs.WindowBoth, issue: j.Logs.IssueTime},
					!j.Job.PerJobLogs, formatPrio(j.Job, f.prio), j.Logs.EpochMsec)
			}
			if err != nil {
				return err
			}
		}
		if j.Job.WriteHistLog != "" {
			name := logName(dir, j.Job, j.Job.WriteHistLog, "clat_hist", n)
			if err := writeHistLog(name, j.Logs.Hist, !j.Job.PerJobLogs, j.Logs.EpochMsec); err != nil {
				return err
			}
		}
	}
	return nil
}

// logName is the path of job j's log of kind in dir, as fio's
// gen_log_name makes it: prefix_kind.N.log, or prefix_kind.log with
// per_job_logs=0; an absolute prefix names the file itself.
func logName(dir string, j *jobfile.Job, prefix, kind string, n int) string {
	name := fmt.Sprintf("%s_%s.%d.log", prefix, kind, n)
	if !j.PerJobLogs {
		name = fmt.Sprintf("%s_%s.log", prefix, kind)
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	return name
}

// writeHistLog writes a write_hist_log file as fio's flush_hist_samples
// does: "msec, ddir, bs, " and the bins, comma-separated, with epoch
// added to every time.
func writeHistLog(name string, samples []HistLogSample, appendTo bool, epoch uint64) error {
	return writeFile(name, appendTo, func(w *bufio.Writer) {
		for _, s := range samples {
			fmt.Fprintf(w, "%d, %d, %d", s.Msec+epoch, int(s.Dir), s.BS)
			for _, b := range s.Bins {
				fmt.Fprintf(w, ", %d", b)
			}
			w.WriteByte('\n')
		}
	})
}

// logColumns are a log's optional columns: the offset (log_offset), the
// window maximum (log_window_value=both) and the issue time
// (log_issue_time).
type logColumns struct{ offset, max, issue bool }

// writeLog writes samples to the log file name, replacing it, or adding to
// its end when appendTo is set, with epoch added to every time: "msec,
// value, [max,] ddir, bs, [offset,] prio[, issue]", as fio 3.42's
// flush_samples (fio 3.33's without max and issue).
func writeLog(name string, samples []LogSample, cols logColumns, appendTo bool, prio string, epoch uint64) error {
	return writeFile(name, appendTo, func(w *bufio.Writer) {
		for _, s := range samples {
			fmt.Fprintf(w, "%d, %d", s.Msec+epoch, s.Value)
			if cols.max {
				fmt.Fprintf(w, ", %d", s.Max)
			}
			fmt.Fprintf(w, ", %d, %d", int(s.Dir), s.BS)
			if cols.offset {
				fmt.Fprintf(w, ", %d", s.Offset)
			}
			fmt.Fprintf(w, ", %s", prio)
			if cols.issue {
				fmt.Fprintf(w, ", %d", s.Issue)
			}
			w.WriteByte('\n')
		}
	})
}

// writeFile replaces the file name, or adds to its end when appendTo is
// set, with what write writes.
func writeFile(name string, appendTo bool, write func(*bufio.Writer)) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(name, flags, 0o644)
	if err != nil {
		return fmt.Errorf("create log: %w", err)
	}
	w := bufio.NewWriter(f)
	write(w)
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write log %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close log %s: %w", name, err)
	}
	return nil
}

// maxLogEntries is fio's MAX_LOG_ENTRIES: a log's chunks double from
// log_entries samples up to this many.
const maxLogEntries = 1024 * 1024

// writeStoredLog writes samples as fio's log_store_compressed stores a
// log (iolog.c's gz_work and flush_log): each chunk of samples, as fio
// grows its log arrays (log_entries, then doubling up to
// maxLogEntries), is one zlib stream of fio's binary struct io_sample
// records (little-endian, 32 bytes, 40 with log_offset's offset), the
// streams back to back; fio --inflate-log prints the lines. With
// per_job_logs=0 the streams are added to the file's end.
func writeStoredLog(name string, samples []LogSample, j *jobfile.Job, prio uint16, epoch uint64) error {
	ddirBits := uint32(0)
	size := 32
	if j.LogOffset {
		ddirBits |= 0x80000000 // LOG_OFFSET_SAMPLE_BIT
		size = 40
	}
	if j.LogPrio {
		ddirBits |= 0x40000000 // LOG_PRIO_SAMPLE_BIT
	}
	var werr error
	err := writeFile(name, !j.PerJobLogs, func(w *bufio.Writer) {
		chunk := max(j.LogEntries, 1)
		rec := make([]byte, size)
		for len(samples) > 0 && werr == nil {
			n := min(chunk, len(samples))
			zw, _ := zlib.NewWriterLevel(w, zlib.DefaultCompression)
			for _, s := range samples[:n] {
				binary.LittleEndian.PutUint64(rec[0:], s.Msec+epoch)
				binary.LittleEndian.PutUint64(rec[8:], s.Value)
				binary.LittleEndian.PutUint32(rec[16:], uint32(s.Dir)|ddirBits)
				binary.LittleEndian.PutUint16(rec[20:], prio)
				binary.LittleEndian.PutUint64(rec[24:], s.BS)
				if j.LogOffset {
					binary.LittleEndian.PutUint64(rec[32:], s.Offset)
				}
				if _, werr = zw.Write(rec); werr != nil {
					break
				}
			}
			if err := zw.Close(); werr == nil {
				werr = err
			}
			samples = samples[n:]
			chunk = min(chunk*2, maxLogEntries)
		}
	})
	if err == nil && werr != nil {
		err = fmt.Errorf("write log %s: %w", name, werr)
	}
	return err
}

// WriteAggBWLogs writes fio's --bandwidth-log files agg-read_bw.log,
// agg-write_bw.log and agg-trim_bw.log into dir, one "msec, KiB/s, ddir,
// 0, 0" line per sample.
func WriteAggBWLogs(dir string, samples [3][]LogSample) error {
	for d, name := range []string{"agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"} {
		if err := writeLog(filepath.Join(dir, name), samples[d], logColumns{}, false, "0", 0); err != nil {
			return err
		}
	}
	return nil
}

// logPrioValue is the priority of a log's samples, fio's ioprio value:
// the job's prioclass and prio for per-I/O samples (perIO), else 0.
func logPrioValue(j *jobfile.Job, perIO bool) uint16 {
	if perIO && j.PrioSet {
		return uint16(j.PrioClass<<13 | j.Prio)
	}
	return 0
}

// formatPrio is the priority column of a log line for the ioprio value v:
// 1 when its class is real-time (1), else 0, or with log_prio=1 the
// value as 0x%04x, as fio 3.33 writes it.
func formatPrio(j *jobfile.Job, v uint16) string {
	if j.LogPrio {
		return fmt.Sprintf("0x%04x", v)
	}
	if v>>13 == 1 {
		return "1"
	}
	return "0"
}
