package run

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

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
func layoutJob(jr *jobRun, fill []byte, info io.Writer, warn func(format string, args ...any)) *jobError {
	j := jr.job
	if diskless(j) || jr.replay != nil || j.CreateOnOpen {
		// fio neither sizes nor lays out a replay's files, nor those
		// of a create_on_open job, which its open creates.
		return nil
	}
	var todo []*target
	var total uint64
	for _, t := range jr.targets {
		if t.block || t.char {
			continue
		}
		if j.FillDevice {
			// fio neither lays out nor truncates a file it fills: the
			// job's writes grow it until the filesystem is full.
			if je := createEmpty(j, t); je != nil {
				return je
			}
			continue
		}
		need := t.region.Base + t.region.Size
		st, err := os.Stat(t.path)
		switch {
		case err == nil && uint64(st.Size()) >= need:
			t.curSize = uint64(st.Size())
			continue
		case err == nil:
			t.curSize = uint64(st.Size())
		case errors.Is(err, os.ErrNotExist) && t.exists:
			return targetError(j.Name, t, "open", "open("+t.path+")", unix.ENOENT, err)
		case errors.Is(err, os.ErrNotExist):
			t.curSize = 0
		default:
			return targetError(j.Name, t, "stat", "stat("+t.path+")", unix.EIO, err)
		}
		todo = append(todo, t)
		total += need
	}
	if len(todo) == 0 {
		return nil
	}
	if info != nil {
		fmt.Fprint(info, layoutLine(j.Name, len(todo), total))
	}
	for _, t := range todo {
		if je := layout(j, t, fill, jr.bufs, warn); je != nil {
			return je
		}
	}
	return nil
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
func layout(j *jobfile.Job, t *target, fill []byte, gen *iogen.Buffers, warn func(format string, args ...any)) *jobError {
	need := t.region.Base + t.region.Size
	flags := unix.O_RDWR | unix.O_CLOEXEC
	if !t.exists {
		flags |= unix.O_CREAT
		// fio creates the missing directories of a file it lays out
		// (create_work_dirs), mode 0755.
		if err := os.MkdirAll(filepath.Dir(t.path), 0o755); err != nil {
			return targetError(j.Name, t, "create its directory", "mkdir("+filepath.Dir(t.path)+")", unix.EIO, err)
		}
	}
	fd, err := unix.Open(t.path, flags, 0o644)
	if err != nil {
		return targetError(j.Name, t, "open", "open("+t.path+")", unix.EIO, err)
	}
	defer unix.Close(fd)
	if !t.exists {
		t.created = true
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return targetError(j.Name, t, "lay out: fstat", "fstat", unix.EIO, err)
	}
	cur := uint64(st.Size)
	if cur >= need {
		t.curSize = cur
		return nil
	}
	preallocate(j, t, fd, need, warn)
	// A job that reads, or writes with overwrite=1, gets its files laid
	// out with data (fio's extend_file new_layout).
	withData := j.RW.HasRead() || j.Overwrite
	if !withData && j.Engine().NeedsExtents {
		// EXT4_IOC_MOVE_EXT needs allocated extents: preallocate as fio's
		// default fallocate=native does for a file a job only writes.
		if err := unix.Fallocate(fd, 0, 0, int64(need)); err != nil {
			return targetError(j.Name, t, fmt.Sprintf("lay out: preallocate %d bytes", need), "fallocate", unix.ENOSPC, err)
		}
		t.curSize = need
		return nil
	}
	if !withData {
		if err := unix.Ftruncate(fd, int64(need)); err != nil {
			return targetError(j.Name, t, fmt.Sprintf("lay out: extend to %d bytes", need), "ftruncate", unix.EIO, err)
		}
		t.curSize = need
		return nil
	}
	piece := max(j.BSMax(jobfile.DirWrite), 1)
	if piece > uint64(len(fill)) {
		piece = uint64(len(fill))
	}
	chunk := uint64(len(fill)) / piece * piece
	for off := cur; off < need; {
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
			return targetError(j.Name, t, fmt.Sprintf("lay out: write at offset %d", off), "write", unix.ENOSPC, err)
		}
		off += uint64(w)
	}
	if !j.NoCreateFsync {
		if err := unix.Fsync(fd); err != nil {
			return targetError(j.Name, t, "lay out: fsync", "fsync", unix.EIO, err)
		}
	}
	t.curSize = need
	return nil
}
