package target

import (
	"errors"

	"github.com/gofio/gofio/jobfile"
	"golang.org/x/sys/unix"
)

// preallocate is fallocate= for a file being laid out, as fio's
// extend_file and fallocate_file: native and posix allocate the whole
// size, keep allocates without changing the size, truncate and none
// allocate nothing here. As in fio, a failed allocation is only reported
// (native says nothing where the file system cannot allocate): the layout
// and the job go on, and a full file system shows at the first write.
func preallocate(j *jobfile.Job, t *Target, fd int, need uint64, warn func(format string, args ...any)) {
	mode := -1
	switch j.Fallocate {
	case "native", "posix", "":
		mode = 0
	case "keep":
		mode = unix.FALLOC_FL_KEEP_SIZE
	}
	if mode < 0 || j.Engine().NeedsExtents {
		return
	}
	err := unix.Fallocate(fd, uint32(mode), 0, int64(need))
	if err == nil || ((j.Fallocate == "native" || j.Fallocate == "") && (errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS))) {
		return
	}
	if warn != nil {
		warn("gofio: %s: fallocate=%s of %s failed: %v\n", j.Name, j.Fallocate, t.Path, err)
	}
}
