package run

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/iolog"
	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/internal/target"
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

// planReplay parses job j's read_iolog= before any job starts (a bad log
// is bad input) and returns it with the job's targets: the log's files,
// or replay_redirect's, neither laid out nor sized, as fio's setup_files
// skips both for a replay.
func planReplay(j *jobfile.Job, warn io.Writer, mounted func(string) error) (*iolog.Log, []*target.Target, []byte, error) {
	o := j.IOLog
	if j.Verify != "" && j.Verify != "0" {
		return nil, nil, nil, fmt.Errorf("%s: read_iolog with verify=%s is not supported by gofio", j.Name, j.Verify)
	}
	if j.Zones.Mode != "" && j.Zones.Mode != "none" {
		return nil, nil, nil, fmt.Errorf("%s: read_iolog with zonemode=%s is not supported by gofio", j.Name, j.Zones.Mode)
	}
	if j.Engine().Diskless {
		return nil, nil, nil, fmt.Errorf("%s: read_iolog with ioengine=%s is not supported by gofio: the engine works on no file", j.Name, j.IOEngine)
	}
	path := replayPath(j)
	opts := iolog.Options{
		Redirect:  o.ReplayRedirect,
		Scale:     uint64(max(o.ReplayScale, 0)),
		Align:     uint64(max(o.ReplayAlign, 0)),
		TimeScale: uint64(max(o.ReplayTimeScale, 1)),
		NoStall:   o.ReplayNoStall,
		ReadOnly:  j.ReadOnly,
		Skip:      replaySkip(j),
	}
	var log *iolog.Log
	var merged []byte
	var err error
	if j.IOLog.MergeFile != "" {
		if merged, err = mergeTraces(j); err == nil {
			log, err = iolog.Parse(bytes.NewReader(merged), path+" (merged from "+j.IOLog.Read+")", opts)
		}
	} else {
		log, err = iolog.ParseFile(path, opts)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: read_iolog: %w", j.Name, err)
	}
	if log.SkippedTrims > 0 && warn != nil {
		fmt.Fprintf(warn, "gofio: %s: read_iolog=%s: %d trim lines skipped, as fio 3.33 skips them in a text iolog (\"bad ddir: 2\")\n", j.Name, path, log.SkippedTrims)
	}
	if log.SkippedWrites > 0 && warn != nil {
		fmt.Fprintf(warn, "fio: <%s> skips replay of %d writes due to read-only\n", j.Name, log.SkippedWrites)
	}
	if log.Trims > 0 && log.Reads > 0 {
		return nil, nil, nil, fmt.Errorf("%s: read_iolog=%s: the log both reads and trims, which gofio does not replay yet (a log of trims, or of trims and writes, replays)", j.Name, path)
	}
	ts := make([]*target.Target, len(log.Files))
	for i, name := range log.Files {
		t := &target.Target{Path: name, Label: "read_iolog=" + path + ": file " + name, FD: -1}
		if o.ReplayRedirect != "" {
			t.Label = "replay_redirect=" + name
		}
		ts[i] = t
		st, err := os.Stat(name)
		switch {
		case err == nil && st.IsDir():
			return nil, nil, nil, target.BadTarget(j, t, "is a directory")
		case err == nil && st.Mode()&os.ModeDevice != 0 && st.Mode()&os.ModeCharDevice == 0:
			t.Block, t.Exists = true, true
			if je := target.SizeDevice(j, t); je != nil {
				return nil, nil, nil, je
			}
			if (log.Writes > 0 || log.Trims > 0) && !j.AllowMountedWrite {
				if err := mounted(name); err != nil {
					return nil, nil, nil, target.BadTarget(j, t, "%w", err)
				}
			}
		case err == nil && st.Mode().IsRegular():
			t.Exists, t.CurSize = true, uint64(st.Size())
		case err == nil:
			return nil, nil, nil, target.BadTarget(j, t, "is neither a regular file nor a block device")
		case os.IsNotExist(err):
			if log.Writes == 0 {
				return nil, nil, nil, target.BadTarget(j, t, "does not exist, and the log does not write it")
			}
		default:
			return nil, nil, nil, target.BadTarget(j, t, "%w", err)
		}
		t.Region = iogen.Region{Size: t.CurSize, End: t.CurSize, Name: name}
	}
	return log, ts, merged, nil
}

// replayPath is the log job j replays: merge_blktrace_file when it
// merges read_iolog='s traces, else with read_iolog=a:b:c the one at the
// clone's subjob number, round robin, as fio's get_name_by_idx picks it.
func replayPath(j *jobfile.Job) string {
	if j.IOLog.MergeFile != "" {
		return j.IOLog.MergeFile
	}
	names := strings.Split(j.IOLog.Read, ":")
	return names[j.SubjobNumber%len(names)]
}

// replayRW is the rw= a replay runs as, as fio's read_iolog sets
// td_ddir from the log: read, write or both, trim, or trim and write
// (planReplay refuses a log that reads and trims).
func replayRW(log *iolog.Log) jobfile.RW {
	switch {
	case log.Trims > 0 && log.Writes > 0:
		return jobfile.RWTrimWrite
	case log.Trims > 0:
		return jobfile.RWTrim
	case log.Writes == 0:
		return jobfile.RWRead
	case log.Reads == 0:
		return jobfile.RWWrite
	}
	return jobfile.RWReadWrite
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

// replaySkip is replay_skip= as the parser takes it.
func replaySkip(j *jobfile.Job) iolog.Skip {
	var s iolog.Skip
	for _, d := range j.IOLog.ReplaySkip {
		switch d {
		case "read":
			s |= iolog.SkipRead
		case "write":
			s |= iolog.SkipWrite
		case "trim":
			s |= iolog.SkipTrim
		case "sync":
			s |= iolog.SkipSync
		}
	}
	return s
}

// replayMaxBS is the buffer size a replay needs: the job's own, or the
// log's largest I/O, as fio's read_iolog raises max_bs.
func replayMaxBS(j *jobfile.Job, log *iolog.Log) uint64 {
	m := j.MaxBS()
	if log != nil {
		for _, n := range log.MaxLen {
			m = max(m, n)
		}
	}
	return m
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
		return replayRW(jr.replay)
	}
	return jr.job.RW
}

// writtenBefore reports whether one of the earlier jobs writes the iolog
// at path: a replay of it is parsed when its group starts, as fio reads
// the log at the job's start, not when the run is planned.
func writtenBefore(earlier []*jobfile.Job, path string) bool {
	for _, j := range earlier {
		if j.IOLog.Write != "" && j.IOLog.Read == "" && filepath.Clean(j.IOLog.Write) == filepath.Clean(path) {
			return true
		}
	}
	return false
}

// checkReplayStdin refuses a run where more than one job replays
// read_iolog=- (standard input), as fio does.
func checkReplayStdin(jobs []*jobfile.Job) error {
	var first *jobfile.Job
	for _, j := range jobs {
		if j.IOLog.Read == "" || replayPath(j) != "-" {
			continue
		}
		if first != nil {
			return fmt.Errorf("%s: read_iolog=-: only one user of stdin is permitted at once (job %s reads it too)", j.Name, first.Name)
		}
		first = j
	}
	return nil
}

// loadReplay parses, when its group starts, the log of a replay job
// whose log an earlier job writes; a bad log then fails only this job,
// as in fio.
func (jr *jobRun) loadReplay(warn io.Writer, mounted func(string) error) *joberr.Error {
	j := jr.job
	if j.IOLog.Read == "" || jr.replay != nil {
		return nil
	}
	log, ts, merged, err := planReplay(j, warn, mounted)
	if err != nil {
		return &joberr.Error{Job: j.Name, Where: "read_iolog=" + replayPath(j), Op: "read", Fn: "failed initializing iolog", Errno: unix.EINVAL, Err: err}
	}
	jr.replay, jr.targets, jr.merged = log, ts, merged
	jr.prog.TotalBytes.Store(log.Bytes)
	return nil
}

// mergeTraces merges job j's read_iolog= blktraces as fio's
// merge_blktrace_iologs, with merge_blktrace_scalars and
// merge_blktrace_iters (100 and 1 where not given), and returns the
// merged trace, which the job writes to merge_blktrace_file when it
// starts (writeMerged) and replays.
func mergeTraces(j *jobfile.Job) ([]byte, error) {
	names := strings.Split(j.IOLog.Read, ":")
	inputs := make([]iolog.MergeInput, len(names))
	for i, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("merge_blktrace_file: could not open file: %w", err)
		}
		defer f.Close()
		inputs[i] = iolog.MergeInput{Name: name, R: f, Scalar: 100, Iters: 1}
		if s := j.IOLog.MergeScalars; len(s) > 0 {
			inputs[i].Scalar = s[i]
		}
		if it := j.IOLog.MergeIters; len(it) > 0 {
			inputs[i].Iters = it[i]
		}
	}
	var buf bytes.Buffer
	if err := iolog.MergeBlktraces(&buf, inputs); err != nil {
		return nil, fmt.Errorf("merge_blktrace_file: %w", err)
	}
	return buf.Bytes(), nil
}

// MergeBlktraces writes the merge_blktrace_file of every job that has one,
// merged from its read_iolog= blktraces, and runs nothing: fio's
// --merge-blktrace-only. Every merge is made before any is written.
func MergeBlktraces(jobs []*jobfile.Job) error {
	merged := map[int][]byte{}
	for i, j := range jobs {
		if j.IOLog.MergeFile == "" || j.SubjobNumber > 0 {
			continue
		}
		b, err := mergeTraces(j)
		if err != nil {
			return fmt.Errorf("%s: %w", j.Name, err)
		}
		merged[i] = b
	}
	for i, b := range merged {
		if err := os.WriteFile(jobs[i].IOLog.MergeFile, b, 0o644); err != nil {
			return fmt.Errorf("%s: merge_blktrace_file: %w", jobs[i].Name, err)
		}
	}
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
