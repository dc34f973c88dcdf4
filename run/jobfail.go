package run

import (
	"errors"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines/iouring"
	"github.com/gofio/gofio/internal/joberr"
)

// engineErrno returns the errno a failed engine setup ends its job with:
// the one the error carries, EOPNOTSUPP for something the kernel or the
// device cannot do (hipri without poll queues), or EINVAL.
func engineErrno(err error) unix.Errno {
	var e unix.Errno
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, iouring.ErrNoPollQueues), errors.Is(err, errors.ErrUnsupported):
		return unix.EOPNOTSUPP
	}
	return unix.EINVAL
}

// failJob ends job jr before it issued any I/O: its result carries the
// error, its status shows 'X', and the error goes to the warning stream
// in gofio's words (fio prints its verror there). A job that fio ends
// before its I/O loop reports no latency depth, as fio's (lat_target_init
// sets it when do_io starts).
func failJob(e *env, jr *jobRun, je *joberr.Error) {
	jr.started = true
	if !je.InIO {
		jr.res.LatencyDepth = 0
	}
	jr.res.Error = int(je.Errno)
	jr.res.ErrorText = je.Verror()
	jr.prog.State.Store('X')
	e.warnf("gofio: %v\n", je)
}
