package target

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/jobfile"
)

// Layout is the layout of one job's files at its start, and what it needs
// of the run.
type Layout struct {
	Job     *jobfile.Job
	Targets []*Target
	// Fill is a zeroed buffer the run lends every layout; Bufs is the
	// job's buffer generator, whose content a reading job's files get.
	Fill []byte
	Bufs *iogen.Buffers
	// Stop is the run's stop flag, checked before each write.
	Stop *atomic.Bool
	// Info takes fio's stdout lines ("Laying out IO file"), Warnf its
	// warning lines; Notes is the job's notes, which a removed file joins.
	Info  io.Writer
	Warnf func(format string, args ...any)
	Notes *[]string
}

// Run lays out every regular file of the job that is missing or shorter
// than the end of the job's region, after one line on Info in fio's words
// (setup_files): "job: Laying out IO file (1 file / 64MiB)", or "job:
// Laying out IO files (3 files / total 192MiB)", the size being the sum
// of the regions' ends in whole MiB, rounded down as fio does. A target
// that existed when the run was planned and is gone now ends the job with
// ENOENT rather than being created again.
//
// A stop request (the run's stop flag) ends the layout before its next
// write; stopped then says so, and the job must not open its files. A
// file this layout created and did not finish, because it failed or was
// stopped, is removed, as fio's extend_file unlinks its file on a
// terminate; the job's notes and the warning stream say so. A file that
// existed before is never removed or truncated. Under --readonly nothing
// is laid out: fio's refusal goes to the warning stream instead.
func (lo *Layout) Run() (stopped bool, je *joberr.Error) {
	j := lo.Job
	if j.Engine().Diskless || j.CreateOnOpen {
		// fio does not lay out the files of a create_on_open job,
		// which its open creates.
		return false, nil
	}
	var todo []*Target
	var fresh []bool
	var total uint64
	for _, t := range lo.Targets {
		if t.Block || t.Char {
			continue
		}
		if j.FillDevice {
			// fio neither lays out nor truncates a file it fills: the
			// job's writes grow it until the filesystem is full.
			if je := CreateEmpty(j, t); je != nil {
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
			return false, Fail(j.Name, t, "open", "open("+t.Path+")", unix.ENOENT, err)
		case errors.Is(err, os.ErrNotExist):
			t.CurSize, missing = 0, true
		default:
			return false, Fail(j.Name, t, "stat", "stat("+t.Path+")", unix.EIO, err)
		}
		todo = append(todo, t)
		fresh = append(fresh, missing)
		total += need
	}
	if len(todo) == 0 {
		return false, nil
	}
	if lo.Stop.Load() {
		return true, nil
	}
	if lo.Info != nil {
		fmt.Fprint(lo.Info, LayoutLine(j.Name, len(todo), total))
	}
	if j.ReadOnly {
		// fio's extend_file under --readonly: one line per file on
		// stderr, nothing created or written, and the job goes on to
		// fail as fio's does, at the open of a missing file (ENOENT) or
		// at the end of a short one (EIO, "full resid").
		for range todo {
			lo.Warnf("fio: refusing extend of file due to read-only\n")
		}
		return false, nil
	}
	for i, t := range todo {
		done, je := layOut(j, t, lo.Fill, lo.Bufs, lo.Stop, lo.Warnf)
		if done {
			continue
		}
		if je != nil && (je.Errno == unix.ENOSPC || je.Errno == unix.EDQUOT) && je.Fn == "write" && lo.Info != nil {
			// fio's extend_file says so on stdout before its verror.
			fmt.Fprintf(lo.Info, "fio: %s on laying out file, stopping\n", unix.ErrnoName(je.Errno))
		}
		if fresh[i] {
			lo.removePartial(t, je)
		}
		return je == nil, je
	}
	return false, nil
}

// removePartial removes target t, which this layout created and did not
// finish, and says so: in je's message when the layout failed, on the
// warning stream when it was stopped, and in the job's notes either way.
func (lo *Layout) removePartial(t *Target, je *joberr.Error) {
	why := "stopped"
	if je != nil {
		why = "failed"
	}
	note := fmt.Sprintf("removed %s, which this run created and whose layout %s", t.Path, why)
	if err := os.Remove(t.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
		note = fmt.Sprintf("could not remove %s, which this run created and whose layout %s: %v", t.Path, why, err)
	}
	t.Created = false
	*lo.Notes = append(*lo.Notes, note)
	if je != nil {
		je.Cleanup = note
		return
	}
	lo.Warnf("gofio: job %s: %s: %s\n", lo.Job.Name, t.Label, note)
}

// Close closes job j's files ts, after fsync_on_close's fsync of a
// writing job's file (fio's put_file), and unlinks, with unlink=1, those
// that gofio created. warnf takes what fails.
func Close(j *jobfile.Job, ts []*Target, warnf func(format string, args ...any)) {
	for _, t := range ts {
		if t.FD >= 0 && j.FsyncOnClose && j.RW.HasWrite() && !t.Char {
			if err := unix.Fsync(t.FD); err != nil {
				warnf("gofio: job %s: %s: fsync_on_close: %v\n", j.Name, t.Label, err)
			}
		}
		if t.FD >= 0 {
			unix.Close(t.FD)
			t.FD = -1
		}
		if j.Unlink && t.Created {
			if err := os.Remove(t.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
				warnf("gofio: job %s: %s: unlink: %v\n", j.Name, t.Label, err)
			}
		}
	}
}

// UnlinkReopen is fio's unlink_all_files for target t at the start of a
// loop after the first (unlink_each_loop): a regular file is unlinked and
// opened again as fio's next loop opens it, created anew by a job that
// writes (fio's generic_open_file gives it O_CREAT), so that a job that
// only reads fails with ENOENT. The new file takes the old one's
// descriptor number (dup3), the number the engine holds. On failure it
// returns the call that failed.
func UnlinkReopen(j *jobfile.Job, t *Target, rw jobfile.RW) (fn string, err error) {
	if t.Block || t.Char || t.FD < 0 {
		return "", nil
	}
	if err := unix.Unlink(t.Path); err != nil {
		return "unlink_all_files", err
	}
	flags, _ := OpenFlags(j, t, rw)
	if rw.HasWrite() && !j.NoFileCreate {
		flags |= unix.O_CREAT
	}
	fd, err := unix.Open(t.Path, flags, 0o600)
	if err != nil {
		return "open(" + t.Path + ")", err
	}
	err = unix.Dup3(fd, t.FD, unix.O_CLOEXEC)
	unix.Close(fd)
	if err != nil {
		return "dup3", err
	}
	t.Created = true
	return "", nil
}

// EndSync is end_syncfs, fio's fio_syncfs once per filesystem under a
// writing job's files, or else end_fsync (and fsync_on_close): an fsync
// of each file. Each failure goes to fail with the option that failed.
func EndSync(j *jobfile.Job, ts []*Target, fail func(option string, err error)) {
	if j.EndSyncfs && j.RW.HasWrite() {
		if err := SyncFilesystems(ts); err != nil {
			fail("end_syncfs", err)
		}
		return
	}
	if !j.EndFsync && !j.FsyncOnClose {
		return
	}
	for _, t := range ts {
		if !j.RW.HasWrite() || t.FD < 0 {
			break
		}
		if err := unix.Fsync(t.FD); err != nil {
			fail("end_fsync", err)
		}
	}
}
