package target

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/jobfile"
)

// CreateEmpty creates target t, and the directories it lacks, if it does
// not exist, without writing or extending it.
func CreateEmpty(j *jobfile.Job, t *Target) *joberr.Error {
	st, err := os.Stat(t.Path)
	switch {
	case err == nil:
		t.CurSize = uint64(st.Size())
		return nil
	case t.Exists:
		return Fail(j.Name, t, "open", "open("+t.Path+")", unix.ENOENT, err)
	}
	if err := os.MkdirAll(filepath.Dir(t.Path), 0o755); err != nil {
		return Fail(j.Name, t, "create its directory", "mkdir("+filepath.Dir(t.Path)+")", unix.EIO, err)
	}
	fd, err := unix.Open(t.Path, unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return Fail(j.Name, t, "open", "open("+t.Path+")", unix.EIO, err)
	}
	t.Created, t.CurSize = true, 0
	if err := unix.Close(fd); err != nil {
		return Fail(j.Name, t, "close", "close", unix.EIO, err)
	}
	return nil
}

// LayoutLine returns fio's "Laying out IO file" line for n files of total
// bytes.
func LayoutLine(name string, n int, total uint64) string {
	s, tot := "", ""
	if n > 1 {
		s, tot = "s", "total "
	}
	return fmt.Sprintf("%s: Laying out IO file%s (%d file%s / %s%dMiB)\n", name, s, n, s, tot, total>>20)
}

// layOut creates or extends one file, and the directories it lacks, so that
// the job's region exists. A reading job gets the missing part filled with
// data from the job's buffer generator gen, in fio's max_bs[write] pieces;
// a writing job gets a sparse extension. Nothing is ever truncated,
// and a file that existed when the run was planned is never created again.
// done says the file now has its size; it is false with a nil error when
// stop was set before the layout finished (checked before each write).
func layOut(j *jobfile.Job, t *Target, fill []byte, gen *iogen.Buffers, stop *atomic.Bool, warn func(format string, args ...any)) (done bool, je *joberr.Error) {
	need := t.Region.Base + t.Region.Size
	flags := unix.O_RDWR | unix.O_CLOEXEC
	if !t.Exists {
		flags |= unix.O_CREAT
		// fio creates the missing directories of a file it lays out
		// (create_work_dirs), mode 0755.
		if err := os.MkdirAll(filepath.Dir(t.Path), 0o755); err != nil {
			return false, Fail(j.Name, t, "create its directory", "mkdir("+filepath.Dir(t.Path)+")", unix.EIO, err)
		}
	}
	fd, err := unix.Open(t.Path, flags, 0o644)
	if err != nil {
		return false, Fail(j.Name, t, "open", "open("+t.Path+")", unix.EIO, err)
	}
	defer unix.Close(fd)
	if !t.Exists {
		t.Created = true
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false, Fail(j.Name, t, "lay out: fstat", "fstat", unix.EIO, err)
	}
	cur := uint64(st.Size)
	if cur >= need {
		t.CurSize = cur
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
			return false, Fail(j.Name, t, fmt.Sprintf("lay out: preallocate %d bytes", need), "fallocate", unix.ENOSPC, err)
		}
		t.CurSize = need
		return true, nil
	}
	if !withData {
		if err := unix.Ftruncate(fd, int64(need)); err != nil {
			return false, Fail(j.Name, t, fmt.Sprintf("lay out: extend to %d bytes", need), "ftruncate", unix.EIO, err)
		}
		t.CurSize = need
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
			return false, Fail(j.Name, t, fmt.Sprintf("lay out: write at offset %d", off), "write", unix.ENOSPC, err)
		}
		off += uint64(w)
	}
	if !j.NoCreateFsync {
		if err := unix.Fsync(fd); err != nil {
			return false, Fail(j.Name, t, "lay out: fsync", "fsync", unix.EIO, err)
		}
	}
	t.CurSize = need
	return true, nil
}
