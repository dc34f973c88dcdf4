package run

import (
	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/internal/target"
	"golang.org/x/sys/unix"
)

// unlinkEachLoop is fio's unlink_all_files at the start of every loop
// after the first (unlink_each_loop): target.UnlinkReopen for each file.
func (l *loop) unlinkEachLoop() {
	for _, t := range l.files {
		if fn, err := target.UnlinkReopen(l.job, t, l.gen.RW); err != nil {
			l.fail(joberr.ErrnoOf(err, unix.EIO), fn, err)
			return
		}
	}
}

// dropPageCache drops the page cache of every buffered regular file of
// the job, at the start of a new pass.
func (l *loop) dropPageCache() {
	for _, t := range l.files {
		if !t.Block && !t.Char && t.FD > 0 {
			target.DropPageCache(l.fadvise, t.FD)
		}
	}
}

// planLockSections gives each job the index of its job section's first
// job (itself, or the job a numjobs clone was copied from): the jobs of
// one section share their files' locks.
func planLockSections(runs []*jobRun) {
	section := 0
	for i, jr := range runs {
		if jr.job.SubjobNumber == 0 {
			section = i
		}
		jr.lockSection = section
	}
}

// plannedTargets is the run's jobs' targets for target.CheckSpace: a
// replay's, and those of a job planned when its group starts
// (create_serialize=0), come later.
func plannedTargets(runs []*jobRun) []target.Planned {
	out := make([]target.Planned, len(runs))
	for i, jr := range runs {
		out[i] = target.Planned{Job: jr.job, Targets: jr.targets, Later: jr.replay != nil || jr.replan}
	}
	return out
}

// fadviseHintFailed says once per run that a fadvise_hint failed, in
// fio's words.
func (e *env) fadviseHintFailed() {
	if e.fadviseWarned.CompareAndSwap(false, true) {
		e.warnf("fio: fadvise hint failed\n")
	}
}

// endSync is end_syncfs or end_fsync (target.EndSync); a failure is the
// job's error.
func (jr *jobRun) endSync(l *loop) {
	target.EndSync(jr.job, jr.targets, func(option string, err error) {
		l.setError(joberr.ErrnoOf(err, unix.EIO), option, err)
	})
}
