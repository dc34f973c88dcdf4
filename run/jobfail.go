package run

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines/iouring"
)

// jobError is a failure at a job's start that is no fault of the input:
// a target that cannot be opened or laid out (EACCES, ENOSPC, a path that
// went away), an engine or buffer set that cannot be set up. Like fio's
// file setup and td_io_init errors it ends only its own job, which is
// reported with the error (JobResult.Error and ErrorText) while the other
// jobs run; the exit status counts it as a failed job.
type jobError struct {
	job   string     // the job's name
	where string     // the option and path it concerns: "filename=/x"
	op    string     // what failed, in words: "open", "lay out"
	fn    string     // fio's func= of the verror: "open(/x)", "write"
	errno unix.Errno // the job's error number
	err   error
	// cleanup says what gofio undid after the failure ("removed /x, ...");
	// empty when nothing.
	cleanup string
	// inIO says fio meets the failure inside its I/O loop (do_io opens a
	// job's files for its first I/O), after it set the latency depth its
	// report shows; every other failure ends a fio job before that loop.
	inIO bool
}

// Error says which job, which option and path, and what failed, and what
// gofio undid after it: "job bad: filename=/x: open: permission denied".
func (e *jobError) Error() string {
	var b strings.Builder
	b.WriteString("job ")
	b.WriteString(e.job)
	for _, s := range []string{e.where, e.op} {
		if s != "" {
			b.WriteString(": ")
			b.WriteString(s)
		}
	}
	b.WriteString(": ")
	b.WriteString(e.err.Error())
	if e.cleanup != "" {
		b.WriteString("; ")
		b.WriteString(e.cleanup)
	}
	return b.String()
}

func (e *jobError) Unwrap() error { return e.err }

// verror returns the job's error text in fio's td_verror shape,
// "func=open(/x), error=Permission denied", without fio's source
// location.
func (e *jobError) verror() string {
	return fmt.Sprintf("func=%s, error=%s", e.fn, errText(int(e.errno), e.err))
}

// targetError returns the jobError of a failed operation on target t of
// job j: op is the operation in words, fn fio's func= name, and def the
// errno when err carries none.
func targetError(jobName string, t *target, op, fn string, def unix.Errno, err error) *jobError {
	// The label and op name the path and the call already.
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &jobError{job: jobName, where: t.label, op: op, fn: fn, errno: unix.Errno(errnoOf(err, def)), err: err}
}

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
func failJob(e *env, jr *jobRun, je *jobError) {
	jr.started = true
	if !je.inIO {
		jr.res.LatencyDepth = 0
	}
	jr.res.Error = int(je.errno)
	jr.res.ErrorText = je.verror()
	jr.prog.State.Store('X')
	e.warnf("gofio: %v\n", je)
}

// strerror returns the C library's text for errno: Go's table is glibc's
// with the first letter lowered, so it is raised again ("Permission
// denied"), as fio prints it.
func strerror(errno unix.Errno) string {
	s := errno.Error()
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
