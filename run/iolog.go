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

// replay is the state of a read_iolog= job: the parsed log, where the
// replay stands in it, and fio's iolog_delay bookkeeping.
type replay struct {
	log  *iolog.Log
	next int
	// lastIssue is fio's td->last_issue: when the last entry was issued
	// (0: none yet, so the first delay is skipped as in fio).
	lastIssue int64
	// timeOffset is fio's td->time_offset: how far the last sleep
	// overslept, in microseconds, taken off the next delay.
	timeOffset uint64
	// genesis is fio's genesis on the loop's clock: the start of the
	// run, which a version 2 wait counts from.
	genesis int64
}

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

// replayNext is fio's read_iolog_get: the next I/O of the log, after the
// file actions and waits before it and the delay it asks for. ok is false
// at the end of the log.
func (l *loop) replayNext() (op engines.Op, d jobfile.Dir, file int, off, n uint64, ok bool) {
	r := l.replay
	for r.next < len(r.log.Entries) {
		e := &r.log.Entries[r.next]
		r.next++
		switch e.Kind {
		case iolog.Wait:
			// A version 2 wait: until Delay ms after the run started.
			until := r.genesis + int64(e.Delay)*int64(time.Millisecond)
			if now := l.clock(); until > now {
				l.replaySleep(uint64(until-now) / 1000)
			}
			continue
		case iolog.AddFile, iolog.OpenFile, iolog.CloseFile:
			// gofio keeps every file of the log open for the whole job.
			if e.Delay > 0 {
				l.replayDelay(e.Delay)
			}
			r.lastIssue = l.clock()
			continue
		}
		if e.Delay > 0 {
			l.replayDelay(e.Delay)
		}
		switch e.Kind {
		case iolog.Read:
			op, d = engines.OpRead, jobfile.DirRead
		case iolog.Write:
			op, d = engines.OpWrite, jobfile.DirWrite
		case iolog.Sync:
			op, d = engines.OpFsync, jobfile.DirWrite
		case iolog.Datasync:
			op, d = engines.OpFdatasync, jobfile.DirWrite
		case iolog.Trim:
			op, d = engines.OpTrim, jobfile.DirTrim
		}
		if op == engines.OpRead || op == engines.OpWrite || op == engines.OpTrim {
			off, n = e.Offset, e.Len
		}
		return op, d, e.File, off, n, true
	}
	return 0, 0, 0, 0, 0, false
}

// replayDelay is fio's iolog_delay: wait until delay microseconds after
// the last issue, less what the last sleep overslept.
func (l *loop) replayDelay(delay uint64) {
	r := l.replay
	if r.lastIssue == 0 {
		return
	}
	since := uint64(max(l.clock()-r.lastIssue, 0)) / 1000
	orig := delay
	if delay < r.timeOffset {
		r.timeOffset = 0
		return
	}
	delay -= r.timeOffset
	if delay < since {
		return
	}
	delay -= since
	t0 := l.clock()
	l.replaySleep(delay)
	slept := uint64(max(l.clock()-t0, 0)) / 1000
	r.timeOffset = 0
	if slept > orig {
		r.timeOffset = slept - orig
	}
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

// iologWriter is write_iolog='s state in a loop: the writer and the time
// its microseconds count from.
type iologWriter struct {
	w      *iolog.Writer
	start  int64
	opened []bool // an open line was written for the file
	closed []bool // a close line was written for the file
	nrDone int    // the generator's done files already looked at
	passNr uint64 // the loop the lines so far belong to
}

// usec is the log's time of now.
func (w *iologWriter) usec(now int64) uint64 { return uint64(max(now-w.start, 0)) / 1000 }

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
	start := l.clock()
	w, err := iolog.Create(path, names, 0)
	if err != nil {
		return &joberr.Error{Job: jr.job.Name, Where: "write_iolog=" + path, Op: "open", Fn: "failed initializing iolog", Errno: unix.EINVAL, Err: err}
	}
	l.iolog = &iologWriter{w: w, start: start, opened: make([]bool, len(names)), closed: make([]bool, len(names))}
	return nil
}

// logIO records an I/O at its issue, as fio's log_io_u does in
// td_io_queue.
func (l *loop) logIO(now int64, op engines.Op, file int, off, n uint64) {
	k := iolog.Read
	switch op {
	case engines.OpWrite:
		k = iolog.Write
	case engines.OpFsync:
		k = iolog.Sync
	case engines.OpFdatasync:
		k = iolog.Datasync
	case engines.OpSyncFileRange:
		k = iolog.SyncFileRange
	case engines.OpTrim:
		k = iolog.Trim
	}
	w := l.iolog
	if w.passNr != l.pass.passNr {
		// A new loop: fio found every file done and closed them.
		if w.passNr != 0 {
			l.closeIOLogFiles(now)
		}
		w.passNr = l.pass.passNr
	}
	if w.nrDone != l.gen.NrDone {
		// fio closes a file once it finds it done, before it moves on.
		w.nrDone = l.gen.NrDone
		for i := range l.gen.Files {
			if l.gen.Files[i].Done && w.opened[i] && !w.closed[i] {
				w.closed[i] = true
				w.w.FileAction(w.usec(now), i, iolog.CloseFile)
			}
		}
	}
	if !w.opened[file] || w.closed[file] {
		w.opened[file], w.closed[file] = true, false
		w.w.FileAction(w.usec(now), file, iolog.OpenFile)
	}
	w.w.IO(w.usec(now), file, k, off, n)
}

// closeIOLogFiles writes a close line for every file the log has open.
func (l *loop) closeIOLogFiles(now int64) {
	w := l.iolog
	if w == nil {
		return
	}
	for i, opened := range w.opened {
		if opened && !w.closed[i] {
			w.closed[i] = true
			w.w.FileAction(w.usec(now), i, iolog.CloseFile)
		}
	}
}

// closeIOLog ends the log with a close line per file, as fio logs the
// files' closing, and flushes it.
func (l *loop) closeIOLog() error {
	if l.iolog == nil {
		return nil
	}
	l.closeIOLogFiles(l.clock())
	err := l.iolog.w.Close()
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
