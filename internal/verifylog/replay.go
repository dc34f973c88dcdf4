package verifylog

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/iolog"
	"github.com/gofio/gofio/internal/target"
	"github.com/gofio/gofio/jobfile"
)

// PlanReplay parses job j's read_iolog= before any job starts (a bad log
// is bad input) and returns it with the job's targets: the log's files,
// or replay_redirect's, neither laid out nor sized, as fio's setup_files
// skips both for a replay.
func PlanReplay(j *jobfile.Job, warn io.Writer, mounted func(string) error) (*iolog.Log, []*target.Target, []byte, error) {
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
	path := ReplayPath(j)
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
		if merged, err = MergeTraces(j); err == nil {
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

// ReplayPath is the log job j replays: merge_blktrace_file when it
// merges read_iolog='s traces, else with read_iolog=a:b:c the one at the
// clone's subjob number, round robin, as fio's get_name_by_idx picks it.
func ReplayPath(j *jobfile.Job) string {
	if j.IOLog.MergeFile != "" {
		return j.IOLog.MergeFile
	}
	names := strings.Split(j.IOLog.Read, ":")
	return names[j.SubjobNumber%len(names)]
}

// ReplayRW is the rw= a replay runs as, as fio's read_iolog sets
// td_ddir from the log: read, write or both, trim, or trim and write
// (PlanReplay refuses a log that reads and trims).
func ReplayRW(log *iolog.Log) jobfile.RW {
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

// ReplayMaxBS is the buffer size a replay needs: the job's own, or the
// log's largest I/O, as fio's read_iolog raises max_bs.
func ReplayMaxBS(j *jobfile.Job, log *iolog.Log) uint64 {
	m := j.MaxBS()
	if log != nil {
		for _, n := range log.MaxLen {
			m = max(m, n)
		}
	}
	return m
}

// WrittenBefore reports whether one of the earlier jobs writes the iolog
// at path: a replay of it is parsed when its group starts, as fio reads
// the log at the job's start, not when the run is planned.
func WrittenBefore(earlier []*jobfile.Job, path string) bool {
	for _, j := range earlier {
		if j.IOLog.Write != "" && j.IOLog.Read == "" && filepath.Clean(j.IOLog.Write) == filepath.Clean(path) {
			return true
		}
	}
	return false
}

// CheckReplayStdin refuses a run where more than one job replays
// read_iolog=- (standard input), as fio does.
func CheckReplayStdin(jobs []*jobfile.Job) error {
	var first *jobfile.Job
	for _, j := range jobs {
		if j.IOLog.Read == "" || ReplayPath(j) != "-" {
			continue
		}
		if first != nil {
			return fmt.Errorf("%s: read_iolog=-: only one user of stdin is permitted at once (job %s reads it too)", j.Name, first.Name)
		}
		first = j
	}
	return nil
}

// MergeTraces merges job j's read_iolog= blktraces as fio's
// merge_blktrace_iologs, with merge_blktrace_scalars and
// merge_blktrace_iters (100 and 1 where not given), and returns the
// merged trace, which the job writes to merge_blktrace_file when it
// starts (writeMerged) and replays.
func MergeTraces(j *jobfile.Job) ([]byte, error) {
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
		b, err := MergeTraces(j)
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
