// Package joberr is a job's failure as gofio reports it: which job, which
// option and path, what failed and with which errno, in fio's words
// (td_verror's "func=open(/x), error=Permission denied"). The run core and
// the packages it calls to set a job up (targets) build an *Error; the
// run core ends only that job with it.
package joberr

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// Error is a failure at a job's start that is no fault of the input: a
// target that cannot be opened or laid out (EACCES, ENOSPC, a path that
// went away), an engine or buffer set that cannot be set up. Like fio's
// file setup and td_io_init errors it ends only its own job, which is
// reported with the error (JobResult.Error and ErrorText) while the other
// jobs run; the exit status counts it as a failed job.
type Error struct {
	Job   string     // the job's name
	Where string     // the option and path it concerns: "filename=/x"
	Op    string     // what failed, in words: "open", "lay out"
	Fn    string     // fio's func= of the verror: "open(/x)", "write"
	Errno unix.Errno // the job's error number
	Err   error
	// Cleanup says what gofio undid after the failure ("removed /x,
	// ..."); empty when nothing.
	Cleanup string
	// InIO says fio meets the failure inside its I/O loop (do_io opens a
	// job's files for its first I/O), after it set the latency depth its
	// report shows; every other failure ends a fio job before that loop.
	InIO bool
}

// Error says which job, which option and path, and what failed, and what
// gofio undid after it: "job bad: filename=/x: open: permission denied".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("job ")
	b.WriteString(e.Job)
	for _, s := range []string{e.Where, e.Op} {
		if s != "" {
			b.WriteString(": ")
			b.WriteString(s)
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	if e.Cleanup != "" {
		b.WriteString("; ")
		b.WriteString(e.Cleanup)
	}
	return b.String()
}

// Unwrap returns the error underneath.
func (e *Error) Unwrap() error { return e.Err }

// Verror returns the job's error text in fio's td_verror shape,
// "func=open(/x), error=Permission denied", without fio's source
// location.
func (e *Error) Verror() string {
	return fmt.Sprintf("func=%s, error=%s", e.Fn, Text(int(e.Errno), e.Err))
}

// Of returns the Error of a failed operation of job jobName on the file
// or option where: op is the operation in words, fn fio's func= name, and
// def the errno when err carries none.
func Of(jobName, where, op, fn string, def unix.Errno, err error) *Error {
	// where and op name the path and the call already.
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &Error{Job: jobName, Where: where, Op: op, Fn: fn, Errno: unix.Errno(ErrnoOf(err, def)), Err: err}
}

// Text returns the error= part of a job's error text: the C library's
// text of the errno err carries (fio prints strerror), else err's own
// text, else that of errno.
func Text(errno int, err error) string {
	var e unix.Errno
	if errors.As(err, &e) {
		return Strerror(e)
	}
	if err != nil {
		return err.Error()
	}
	return Strerror(unix.Errno(errno))
}

// ErrnoOf returns the errno err carries, or def.
func ErrnoOf(err error, def unix.Errno) int {
	var e unix.Errno
	if errors.As(err, &e) {
		return int(e)
	}
	return int(def)
}

// Strerror returns the C library's text for errno: Go's table is glibc's
// with the first letter lowered, so it is raised again ("Permission
// denied"), as fio prints it.
func Strerror(errno unix.Errno) string {
	s := errno.Error()
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
