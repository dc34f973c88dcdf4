package run

import (
	"errors"
	"fmt"
	"os"

	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/internal/target"
	"golang.org/x/sys/unix"
)

// unlinkEachLoop is fio's unlink_all_files at the start of every loop
// after the first (unlink_each_loop): each regular file is unlinked and
// opened again as fio's next loop opens it, created anew by a job that
// writes (fio's generic_open_file gives it O_CREAT), so that a job that
// only reads fails with ENOENT. The new file takes the old one's
// descriptor number (dup3), the number the engine holds.
func (l *loop) unlinkEachLoop() {
	for _, t := range l.files {
		if t.Block || t.Char || t.FD < 0 {
			continue
		}
		if err := unix.Unlink(t.Path); err != nil {
			l.fail(joberr.ErrnoOf(err, unix.EIO), "unlink_all_files", err)
			return
		}
		flags, _ := target.OpenFlags(l.job, t, l.gen.RW)
		if l.gen.RW.HasWrite() && !l.job.NoFileCreate {
			flags |= unix.O_CREAT
		}
		fd, err := unix.Open(t.Path, flags, 0o600)
		if err != nil {
			l.fail(joberr.ErrnoOf(err, unix.EIO), "open("+t.Path+")", err)
			return
		}
		err = unix.Dup3(fd, t.FD, unix.O_CLOEXEC)
		unix.Close(fd)
		if err != nil {
			l.fail(joberr.ErrnoOf(err, unix.EIO), "dup3", err)
			return
		}
		t.Created = true
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

// layoutJob lays out, at the start of job jr, every regular file that is
// missing or shorter than the end of the job's region, after one line on
// info in fio's words (setup_files): "job: Laying out IO file (1 file /
// 64MiB)", or "job: Laying out IO files (3 files / total 192MiB)", the
// size being the sum of the regions' ends in whole MiB, rounded down as
// fio does. A target that existed when the run was planned and is gone
// now ends the job with ENOENT rather than being created again.
//
// A stop request (the run's stop flag) ends the layout before its next
// write; stopped then says so, and the job must not open its files. A
// file this layout created and did not finish, because it failed or was
// stopped, is removed, as fio's extend_file unlinks its file on a
// terminate; the job's notes and the warning stream say so. A file that
// existed before is never removed or truncated. Under --readonly nothing
// is laid out: fio's refusal goes to the warning stream instead.
func layoutJob(e *env, jr *jobRun, fill []byte) (stopped bool, je *joberr.Error) {
	j := jr.job
	if j.Engine().Diskless || jr.replay != nil || j.CreateOnOpen {
		// fio neither sizes nor lays out a replay's files, nor those
		// of a create_on_open job, which its open creates.
		return false, nil
	}
	var todo []*target.Target
	var fresh []bool
	var total uint64
	for _, t := range jr.targets {
		if t.Block || t.Char {
			continue
		}
		if j.FillDevice {
			// fio neither lays out nor truncates a file it fills: the
			// job's writes grow it until the filesystem is full.
			if je := target.CreateEmpty(j, t); je != nil {
				return false, je
			}
			continue
		}
		need := t.Region.Base + t.Region.Size
		st, err := os.Stat(t.Path)
		missing := false
		switch {
		case err == nil && uint64(st.Size()) >= need:
			t.CurSize = uint64(st.Size())
			continue
		case err == nil:
			t.CurSize = uint64(st.Size())
		case errors.Is(err, os.ErrNotExist) && t.Exists:
			return false, target.Fail(j.Name, t, "open", "open("+t.Path+")", unix.ENOENT, err)
		case errors.Is(err, os.ErrNotExist):
			t.CurSize, missing = 0, true
		default:
			return false, target.Fail(j.Name, t, "stat", "stat("+t.Path+")", unix.EIO, err)
		}
		todo = append(todo, t)
		fresh = append(fresh, missing)
		total += need
	}
	if len(todo) == 0 {
		return false, nil
	}
	if e.stop.Load() {
		return true, nil
	}
	if e.opts.Info != nil {
		fmt.Fprint(e.opts.Info, target.LayoutLine(j.Name, len(todo), total))
	}
	if j.ReadOnly {
		// fio's extend_file under --readonly: one line per file on
		// stderr, nothing created or written, and the job goes on to
		// fail as fio's does, at the open of a missing file (ENOENT) or
		// at the end of a short one (EIO, "full resid").
		for range todo {
			e.warnf("fio: refusing extend of file due to read-only\n")
		}
		return false, nil
	}
	for i, t := range todo {
		done, je := target.LayOut(j, t, fill, jr.bufs, e.stop, e.warnf)
		if done {
			continue
		}
		if je != nil && (je.Errno == unix.ENOSPC || je.Errno == unix.EDQUOT) && je.Fn == "write" && e.opts.Info != nil {
			// fio's extend_file says so on stdout before its verror.
			fmt.Fprintf(e.opts.Info, "fio: %s on laying out file, stopping\n", unix.ErrnoName(je.Errno))
		}
		if fresh[i] {
			removePartial(e, jr, t, je)
		}
		return je == nil, je
	}
	return false, nil
}

// removePartial removes target t, which this run's layout created and did
// not finish, and says so: in je's message when the layout failed, on the
// warning stream when it was stopped, and in the job's notes either way.
func removePartial(e *env, jr *jobRun, t *target.Target, je *joberr.Error) {
	why := "stopped"
	if je != nil {
		why = "failed"
	}
	note := fmt.Sprintf("removed %s, which this run created and whose layout %s", t.Path, why)
	if err := os.Remove(t.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
		note = fmt.Sprintf("could not remove %s, which this run created and whose layout %s: %v", t.Path, why, err)
	}
	t.Created = false
	jr.res.EngineNotes = append(jr.res.EngineNotes, note)
	if je != nil {
		je.Cleanup = note
		return
	}
	e.warnf("gofio: job %s: %s: %s\n", jr.job.Name, t.Label, note)
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

// endSync is end_syncfs, fio's fio_syncfs once per filesystem under the
// writing job's files, or else end_fsync (and fsync_on_close): an fsync
// of each file; a failure is the job's error.
func (jr *jobRun) endSync(l *loop) {
	j := jr.job
	if j.EndSyncfs && j.RW.HasWrite() {
		if err := target.SyncFilesystems(jr.targets); err != nil {
			l.setError(joberr.ErrnoOf(err, unix.EIO), "end_syncfs", err)
		}
		return
	}
	if !j.EndFsync && !j.FsyncOnClose {
		return
	}
	for _, t := range jr.targets {
		if !j.RW.HasWrite() || t.FD < 0 {
			break
		}
		if err := unix.Fsync(t.FD); err != nil {
			l.setError(joberr.ErrnoOf(err, unix.EIO), "end_fsync", err)
		}
	}
}
