package run

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/jobfile"
)

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
func layoutJob(e *env, jr *jobRun, fill []byte) (stopped bool, je *jobError) {
	j := jr.job
	if diskless(j) || jr.replay != nil || j.CreateOnOpen {
		// fio neither sizes nor lays out a replay's files, nor those
		// of a create_on_open job, which its open creates.
		return false, nil
	}
	var todo []*target
	var fresh []bool
	var total uint64
	for _, t := range jr.targets {
		if t.block || t.char {
			continue
		}
		if j.FillDevice {
			// fio neither lays out nor truncates a file it fills: the
			// job's writes grow it until the filesystem is full.
			if je := createEmpty(j, t); je != nil {
				return false, je
			}
			continue
		}
		need := t.region.Base + t.region.Size
		st, err := os.Stat(t.path)
		missing := false
		switch {
		case err == nil && uint64(st.Size()) >= need:
			t.curSize = uint64(st.Size())
			continue
		case err == nil:
			t.curSize = uint64(st.Size())
		case errors.Is(err, os.ErrNotExist) && t.exists:
			return false, targetError(j.Name, t, "open", "open("+t.path+")", unix.ENOENT, err)
		case errors.Is(err, os.ErrNotExist):
			t.curSize, missing = 0, true
		default:
			return false, targetError(j.Name, t, "stat", "stat("+t.path+")", unix.EIO, err)
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
		fmt.Fprint(e.opts.Info, layoutLine(j.Name, len(todo), total))
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
		done, je := layout(j, t, fill, jr.bufs, e.stop, e.warnf)
		if done {
			continue
		}
		if je != nil && (je.errno == unix.ENOSPC || je.errno == unix.EDQUOT) && je.fn == "write" && e.opts.Info != nil {
			// fio's extend_file says so on stdout before its verror.
			fmt.Fprintf(e.opts.Info, "fio: %s on laying out file, stopping\n", unix.ErrnoName(je.errno))
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
func removePartial(e *env, jr *jobRun, t *target, je *jobError) {
	why := "stopped"
	if je != nil {
		why = "failed"
	}
	note := fmt.Sprintf("removed %s, which this run created and whose layout %s", t.path, why)
	if err := os.Remove(t.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		note = fmt.Sprintf("could not remove %s, which this run created and whose layout %s: %v", t.path, why, err)
	}
	t.created = false
	jr.res.EngineNotes = append(jr.res.EngineNotes, note)
	if je != nil {
		je.cleanup = note
		return
	}
	e.warnf("gofio: job %s: %s: %s\n", jr.job.Name, t.label, note)
}

// createEmpty creates target t, and the directories it lacks, if it does
// not exist, without writing or extending it.
func createEmpty(j *jobfile.Job, t *target) *jobError {
	st, err := os.Stat(t.path)
	switch {
	case err == nil:
		t.curSize = uint64(st.Size())
		return nil
	case t.exists:
		return targetError(j.Name, t, "open", "open("+t.path+")", unix.ENOENT, err)
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o755); err != nil {
		return targetError(j.Name, t, "create its directory", "mkdir("+filepath.Dir(t.path)+")", unix.EIO, err)
	}
	fd, err := unix.Open(t.path, unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return targetError(j.Name, t, "open", "open("+t.path+")", unix.EIO, err)
	}
	t.created, t.curSize = true, 0
	if err := unix.Close(fd); err != nil {
		return targetError(j.Name, t, "close", "close", unix.EIO, err)
	}
	return nil
}

// layoutLine returns fio's "Laying out IO file" line for n files of total
// bytes.
func layoutLine(name string, n int, total uint64) string {
	s, tot := "", ""
	if n > 1 {
		s, tot = "s", "total "
	}
	return fmt.Sprintf("%s: Laying out IO file%s (%d file%s / %s%dMiB)\n", name, s, n, s, tot, total>>20)
}

// layout creates or extends one file, and the directories it lacks, so that
// the job's region exists. A reading job gets the missing part filled with
// data from the job's buffer generator gen, in fio's max_bs[write] pieces;
// a writing job gets a sparse extension. Nothing is ever truncated,
// and a file that existed when the run was planned is never created again.
// done says the file now has its size; it is false with a nil error when
// stop was set before the layout finished (checked before each write).
func layout(j *jobfile.Job, t *target, fill []byte, gen *iogen.Buffers, stop *atomic.Bool, warn func(format string, args ...any)) (done bool, je *jobError) {
	need := t.region.Base + t.region.Size
	flags := unix.O_RDWR | unix.O_CLOEXEC
	if !t.exists {
		flags |= unix.O_CREAT
		// fio creates the missing directories of a file it lays out
		// (create_work_dirs), mode 0755.
		if err := os.MkdirAll(filepath.Dir(t.path), 0o755); err != nil {
			return false, targetError(j.Name, t, "create its directory", "mkdir("+filepath.Dir(t.path)+")", unix.EIO, err)
		}
	}
	fd, err := unix.Open(t.path, flags, 0o644)
	if err != nil {
		return false, targetError(j.Name, t, "open", "open("+t.path+")", unix.EIO, err)
	}
	defer unix.Close(fd)
	if !t.exists {
		t.created = true
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false, targetError(j.Name, t, "lay out: fstat", "fstat", unix.EIO, err)
	}
	cur := uint64(st.Size)
	if cur >= need {
		t.curSize = cur
		return true, nil
	}
	preallocate(j, t, fd, need, warn)
	if stop.Load() {
		return false, nil
	}
	// A job that reads, or writes with overwrite=1, gets its files laid
	// out with data (fio's extend_file new_layout).
	withData := j.RW.HasRead() || j.Overwrite
	if !withData && j.Engine().NeedsExtents {
		// EXT4_IOC_MOVE_EXT needs allocated extents: preallocate as fio's
		// default fallocate=native does for a file a job only writes.
		if err := unix.Fallocate(fd, 0, 0, int64(need)); err != nil {
			return false, targetError(j.Name, t, fmt.Sprintf("lay out: preallocate %d bytes", need), "fallocate", unix.ENOSPC, err)
		}
		t.curSize = need
		return true, nil
	}
	if !withData {
		if err := unix.Ftruncate(fd, int64(need)); err != nil {
			return false, targetError(j.Name, t, fmt.Sprintf("lay out: extend to %d bytes", need), "ftruncate", unix.EIO, err)
		}
		t.curSize = need
		return true, nil
	}
	piece := max(j.BSMax(jobfile.DirWrite), 1)
	if piece > uint64(len(fill)) {
		piece = uint64(len(fill))
	}
	chunk := uint64(len(fill)) / piece * piece
	for off := cur; off < need; {
		if stop.Load() {
			// fio's extend_file loops while !td->terminate.
			return false, nil
		}
		n := chunk
		if need-off < n {
			n = need - off
		}
		// fio's extend_file fills each max_bs[write] piece with
		// fill_io_buffer(b, bs, bs).
		for p := uint64(0); p < n; p += piece {
			b := fill[p:min(p+piece, n)]
			gen.Fill(b, uint64(len(b)))
		}
		w, err := unix.Pwrite(fd, fill[:n], int64(off))
		if err == nil && w == 0 {
			err = io.ErrShortWrite
		}
		if err != nil {
			return false, targetError(j.Name, t, fmt.Sprintf("lay out: write at offset %d", off), "write", unix.ENOSPC, err)
		}
		off += uint64(w)
	}
	if !j.NoCreateFsync {
		if err := unix.Fsync(fd); err != nil {
			return false, targetError(j.Name, t, "lay out: fsync", "fsync", unix.EIO, err)
		}
	}
	t.curSize = need
	return true, nil
}
