package run

import (
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/iolog"
	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/internal/verifylog"
	"github.com/gofio/gofio/jobfile"
)

// replayDepth is the depth job j runs at: iodepth=, or for a blktrace
// replay without iodepth= the depth the trace shows, as fio probes it.
func replayDepth(j *jobfile.Job, log *iolog.Log) int {
	if log == nil || log.Depth == 0 {
		return jobDepth(j)
	}
	if j.Given("iodepth") {
		return jobDepth(j)
	}
	return log.Depth
}

// replaySleep sleeps usec microseconds in slices, after submitting what
// is queued, and stops early when the job is told to stop or reaches its
// runtime.
func (l *loop) replaySleep(usec uint64) {
	if l.pN > 0 {
		l.submit()
	}
	d := time.Duration(usec) * time.Microsecond
	for d > 0 && !l.stop.Load() && !l.kill.Load() {
		if l.deadline != 0 && l.clock() >= l.deadline {
			return
		}
		s := min(d, 50*time.Millisecond)
		l.sleep(s)
		d -= s
	}
	l.reapFresh = false
}

// openIOLog starts job jr's write_iolog= as fio's init_iolog_write does:
// the header and an add line per file, then an open line per file, which
// gofio has open from the start but logs, as fio opens them, before the
// first I/O on each.
func (jr *jobRun) openIOLog(l *loop) *joberr.Error {
	path := jr.job.IOLog.Write
	if path == "" || jr.replay != nil {
		return nil
	}
	names := make([]string, len(jr.targets))
	for i, t := range jr.targets {
		names[i] = t.Path
	}
	w, err := verifylog.CreateIOLog(path, names, l.clock())
	if err != nil {
		return &joberr.Error{Job: jr.job.Name, Where: "write_iolog=" + path, Op: "open", Fn: "failed initializing iolog", Errno: unix.EINVAL, Err: err}
	}
	l.iolog = w
	return nil
}

// logIO records an I/O at its issue (verifylog.IOLogWriter.IO). It is kept
// out of line, so that countIssued of a job without write_iolog pays one
// test, not the register moves of an inlined call.
//
//go:noinline
func (l *loop) logIO(now int64, op engines.Op, file int, off, n uint64) {
	l.iolog.IO(now, l.pass.passNr, l.gen, op, file, off, n)
}

// closeIOLog ends the write_iolog=, as fio logs the files' closing, and
// flushes it.
func (l *loop) closeIOLog() error {
	if l.iolog == nil {
		return nil
	}
	err := l.iolog.Close(l.clock())
	l.iolog = nil
	return err
}

// rw is the directions the job issues: its rw=, or for a replay its
// log's.
func (jr *jobRun) rw() jobfile.RW {
	if jr.replay != nil {
		return verifylog.ReplayRW(jr.replay)
	}
	return jr.job.RW
}

// loadReplay parses, when its group starts, the log of a replay job
// whose log an earlier job writes; a bad log then fails only this job,
// as in fio.
func (jr *jobRun) loadReplay(warn io.Writer, mounted func(string) error) *joberr.Error {
	j := jr.job
	if j.IOLog.Read == "" || jr.replay != nil {
		return nil
	}
	log, ts, merged, err := verifylog.PlanReplay(j, warn, mounted)
	if err != nil {
		return &joberr.Error{Job: j.Name, Where: "read_iolog=" + verifylog.ReplayPath(j), Op: "read", Fn: "failed initializing iolog", Errno: unix.EINVAL, Err: err}
	}
	jr.replay, jr.targets, jr.merged = log, ts, merged
	jr.prog.TotalBytes.Store(log.Bytes)
	return nil
}

// writeMerged writes the merged trace of a merge_blktrace_file= job, when
// the job starts.
func (jr *jobRun) writeMerged() *joberr.Error {
	if jr.merged == nil {
		return nil
	}
	path := jr.job.IOLog.MergeFile
	if err := os.WriteFile(path, jr.merged, 0o644); err != nil {
		return &joberr.Error{Job: jr.job.Name, Where: "merge_blktrace_file=" + path, Op: "write", Fn: "merge_blktrace_iologs", Errno: unix.Errno(joberr.ErrnoOf(err, unix.EIO)), Err: err}
	}
	jr.merged = nil
	return nil
}
