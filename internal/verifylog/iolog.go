package verifylog

import (
	"time"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/iolog"
	"github.com/gofio/gofio/jobfile"
)

// Replay is the state of a read_iolog= job: the parsed log, where the
// replay stands in it, and fio's iolog_delay bookkeeping.
type Replay struct {
	log  *iolog.Log
	next int
	// LastIssue is fio's td->last_issue: when the last entry was issued
	// (0: none yet, so the first delay is skipped as in fio).
	LastIssue int64
	// timeOffset is fio's td->time_offset: how far the last sleep
	// overslept, in microseconds, taken off the next delay.
	timeOffset uint64
	// genesis is fio's genesis on the loop's clock: the start of the
	// run, which a version 2 wait counts from.
	genesis int64
	// now is the loop's clock; sleep waits usec microseconds, after
	// submitting what the loop has queued, less when the job stops.
	now   func() int64
	sleep func(usec uint64)
}

// NewReplay returns the replay of log, the run having started at genesis
// on the clock now.
func NewReplay(log *iolog.Log, genesis int64, now func() int64, sleep func(usec uint64)) *Replay {
	return &Replay{log: log, genesis: genesis, now: now, sleep: sleep}
}

// Next is fio's read_iolog_get: the next I/O of the log, after the file
// actions and waits before it and the delay it asks for. ok is false at
// the end of the log.
func (r *Replay) Next() (op engines.Op, d jobfile.Dir, file int, off, n uint64, ok bool) {
	for r.next < len(r.log.Entries) {
		e := &r.log.Entries[r.next]
		r.next++
		switch e.Kind {
		case iolog.Wait:
			// A version 2 wait: until Delay ms after the run started.
			until := r.genesis + int64(e.Delay)*int64(time.Millisecond)
			if now := r.now(); until > now {
				r.sleep(uint64(until-now) / 1000)
			}
			continue
		case iolog.AddFile, iolog.OpenFile, iolog.CloseFile:
			// gofio keeps every file of the log open for the whole job.
			if e.Delay > 0 {
				r.delay(e.Delay)
			}
			r.LastIssue = r.now()
			continue
		}
		if e.Delay > 0 {
			r.delay(e.Delay)
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

// delay is fio's iolog_delay: wait until delay microseconds after the last
// issue, less what the last sleep overslept.
func (r *Replay) delay(delay uint64) {
	if r.LastIssue == 0 {
		return
	}
	since := uint64(max(r.now()-r.LastIssue, 0)) / 1000
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
	t0 := r.now()
	r.sleep(delay)
	slept := uint64(max(r.now()-t0, 0)) / 1000
	r.timeOffset = 0
	if slept > orig {
		r.timeOffset = slept - orig
	}
}

// IOLogWriter is write_iolog='s state in a job: the writer and the time
// its microseconds count from.
type IOLogWriter struct {
	w      *iolog.Writer
	start  int64
	opened []bool // an open line was written for the file
	closed []bool // a close line was written for the file
	nrDone int    // the generator's done files already looked at
	passNr uint64 // the loop the lines so far belong to
}

// CreateIOLog starts a write_iolog= at path as fio's init_iolog_write
// does: the header and an add line per file of names, then an open line
// per file, which gofio has open from the start but logs, as fio opens
// them, before the first I/O on each. start is now on the loop's clock.
func CreateIOLog(path string, names []string, start int64) (*IOLogWriter, error) {
	w, err := iolog.Create(path, names, 0)
	if err != nil {
		return nil, err
	}
	return &IOLogWriter{w: w, start: start, opened: make([]bool, len(names)), closed: make([]bool, len(names))}, nil
}

// usec is the log's time of now.
func (w *IOLogWriter) usec(now int64) uint64 { return uint64(max(now-w.start, 0)) / 1000 }

// IO records an I/O at its issue in loop passNr of the job's generator
// gen, as fio's log_io_u does in td_io_queue.
func (w *IOLogWriter) IO(now int64, passNr uint64, gen *iogen.Offsets, op engines.Op, file int, off, n uint64) {
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
	if w.passNr != passNr {
		// A new loop: fio found every file done and closed them.
		if w.passNr != 0 {
			w.CloseFiles(now)
		}
		w.passNr = passNr
	}
	if w.nrDone != gen.NrDone {
		// fio closes a file once it finds it done, before it moves on.
		w.nrDone = gen.NrDone
		for i := range gen.Files {
			if gen.Files[i].Done && w.opened[i] && !w.closed[i] {
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

// CloseFiles writes a close line for every file the log has open; on a
// nil log it does nothing.
func (w *IOLogWriter) CloseFiles(now int64) {
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

// Close ends the log with a close line per file, as fio logs the files'
// closing, and flushes it.
func (w *IOLogWriter) Close(now int64) error {
	w.CloseFiles(now)
	return w.w.Close()
}
