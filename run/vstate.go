package run

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/internal/placement"
	"github.com/gofio/gofio/internal/verifylog"
	"github.com/gofio/gofio/jobfile"
)

// replayWrites is verify_only's write phase: it draws the offsets the
// write phase would have issued, one pass for a time_based job, and logs
// the writes among them without issuing anything.
func (l *loop) replayWrites() {
	t := l.verify.wlog.Trim
	for {
		if t != nil && l.trimDue() == trimNow {
			// fio's dry run takes trim verify's trims too: the
			// blocks they trimmed read back as zeroes, or not at all.
			l.verify.wlog.TakeTrim()
			continue
		}
		if !l.job.TimeBased && !l.budgetLeft() && (t == nil || t.Listed == 0) {
			return
		}
		var d jobfile.Dir
		var file int
		var off, n uint64
		var ok bool
		if l.job.TimeBased {
			d, file, off, n, ok = l.gen.Fill()
		} else {
			d, file, off, n, ok = l.fillIO()
		}
		if !ok {
			return
		}
		if l.zones != nil {
			// Nothing is issued: the write completes here for its zone.
			l.zones.End(file, d, off, n, l.zones.Holds(file, d))
		}
		if d != jobfile.DirTrim || !l.hasWrite {
			l.issued += n // a trimwrite job's size= counts its writes (countIssued)
		}
		if d == jobfile.DirWrite {
			l.verify.wlog.Issued(0, int32(file), off, uint32(n))
			l.verify.wlog.Completed(0, int32(file), off, uint32(n))
		}
	}
}

// keepSaved drops from the write log the blocks the loaded state does not
// mark as completed, and returns how many it dropped.
func (l *loop) keepSaved(vs *verifylog.State) int {
	kept := l.verify.wlog.Ents[:0]
	dropped := 0
	for _, e := range l.verify.wlog.Ents {
		if vs.Done(e.File, e.Off, e.N) {
			kept = append(kept, e)
		} else {
			dropped++
		}
	}
	l.verify.wlog.Ents = kept
	return dropped
}

// runVerifyOnly is a verify_only job: replay, optionally narrowed to the
// loaded state, then the verify phase.
func (l *loop) runVerifyOnly(vs *verifylog.State) string {
	now := l.clock()
	l.started, l.statsStart = now, now
	placement.GetrusageThread(&l.rusageStart)
	l.bw.reset(now, &l.bytesDone)
	l.iops.reset(now, &l.iosDone)
	l.replayWrites()
	l.issued = 0
	l.verify.wlog.Finish()
	note := ""
	if vs != nil {
		total := len(l.verify.wlog.Ents)
		skipped := l.keepSaved(vs)
		note = fmt.Sprintf("verify_state_load: %s: verifying the %d of %d blocks whose writes completed, skipping %d", vs.Path, total-skipped, total, skipped)
	}
	l.runVerify()
	return note
}

// regions returns the job's target regions.
func (jr *jobRun) regions() []iogen.Region {
	rs := make([]iogen.Region, len(jr.targets))
	for i, t := range jr.targets {
		rs[i] = t.Region
	}
	return rs
}

// saveVerifyState opens the state file of a verifying write job with
// verify_state_save=1; a file that cannot be created ends the job.
func (jr *jobRun) saveVerifyState(e *env, l *loop) {
	j := jr.job
	if !j.VerifyStateSave || l.verify.ver == nil || !l.hasWrite {
		return
	}
	vs, err := verifylog.CreateState(verifylog.StatePath(e.opts.AuxPath, j.Name, jr.index), jr.regions(), l.gen.MinBS[jobfile.DirWrite])
	if err != nil {
		e.warnf("gofio: job %s: %v\n", j.Name, err)
		l.fail(joberr.ErrnoOf(err, unix.EIO), "verify_state_save", err)
		return
	}
	l.verify.vstate = vs
}

// verifyOnly runs a verify_only job, with verify_state_load's state when
// asked for.
func (jr *jobRun) verifyOnly(e *env, l *loop) {
	j := jr.job
	if l.verify.wlog == nil {
		// fio's verify_only with do_verify=0 neither writes nor verifies.
		now := l.clock()
		l.started, l.statsStart, l.ended = now, now, now
		return
	}
	var vs *verifylog.State
	if j.VerifyStateLoad {
		var err error
		vs, err = verifylog.LoadState(verifylog.StatePath(e.opts.AuxPath, j.Name, jr.index), jr.regions(), l.gen.MinBS[jobfile.DirWrite])
		if err != nil {
			now := l.clock()
			l.started, l.statsStart, l.ended = now, now, now
			l.fail(joberr.ErrnoOf(err, unix.ENOENT), "verify_state_load", err)
			return
		}
	}
	if note := l.runVerifyOnly(vs); note != "" {
		jr.res.EngineNotes = append(jr.res.EngineNotes, note)
		e.warnf("%s: %s\n", j.Name, note)
	}
}
