package run

import (
	"fmt"

	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/jobfile"
	"golang.org/x/sys/unix"
)

// This file holds what a failed I/O does under continue_on_error and
// error_dump=.

// nonFatal reports whether errno e in direction d is one continue_on_error
// may skip: one of ignore_error='s list for the direction, or fio's
// default EIO and EILSEQ (td_non_fatal_error).
func nonFatal(j *jobfile.Job, d jobfile.Dir, e unix.Errno) bool {
	class := 0
	if d != jobfile.DirRead {
		class = 1
	}
	list := j.IgnoreError[class]
	if list == nil {
		return e == unix.EIO || e == unix.EILSEQ
	}
	for _, n := range list {
		if unix.Errno(n) == e {
			return true
		}
	}
	return false
}

// dumpError is error_dump=1: one line per I/O error, skipped ones too.
func (l *loop) dumpError(s *slot, e unix.Errno) {
	name := l.slotPath(s)
	fmt.Fprintf(l.warn, "gofio: %s: io_u error on file %s: %s: %s offset=%d, buflen=%d\n",
		l.job.Name, name, joberr.Strerror(e), s.dir, s.off, s.length-s.done)
}

// slotPath is the path of the file the I/O in slot s is on, for messages;
// empty when the slot holds no file of the job.
func (l *loop) slotPath(s *slot) string {
	if int(s.file) < len(l.files) {
		return l.files[s.file].Path
	}
	return ""
}

// ioError handles a failed I/O: errors continue_on_error allows (EIO and
// EILSEQ, fio's default ignore_error) are counted; any other ends the job
// with fn as the failing function of its error text.
func (l *loop) ioError(s *slot, errno int, fn string) {
	e := unix.Errno(errno)
	// fio counts a trim's error as a write's (td_error_type).
	allowed := (s.dir == jobfile.DirRead && l.coeRead) || (s.dir != jobfile.DirRead && l.coeWrite)
	if l.job.ErrorDump && l.warn != nil {
		l.dumpError(s, e)
	}
	if l.res.Blocks != nil && s.dir != jobfile.DirRead {
		l.res.Blocks.Failed(l.blockIndex(s), s.dir == jobfile.DirWrite)
	}
	if allowed && nonFatal(l.job, s.dir, e) {
		l.res.TotalErr++
		if l.res.FirstErr == 0 {
			l.res.FirstErr = errno
		}
		return
	}
	if l.fillDevice && (e == unix.ENOSPC || e == unix.EDQUOT) {
		// fill_device: the device is full, as asked. fio logs each such
		// I/O, clears the error and ends the job.
		if l.warn != nil {
			fmt.Fprintf(l.warn, "gofio: io_u error on file %s: %s: %s offset=%d, buflen=%d\n",
				l.slotPath(s), joberr.Strerror(e), s.dir, s.off, s.length-s.done)
		}
		l.stopIssue = true
		return
	}
	if l.warn != nil && l.res.Error == 0 {
		name := l.slotPath(s)
		fmt.Fprintf(l.warn, "gofio: io_u error on file %s: %s: %s offset=%d, buflen=%d\n",
			name, joberr.Strerror(e), s.dir, s.off, s.length-s.done)
	}
	l.setError(errno, fn, e)
	l.stopIssue = true
}

func (l *loop) setError(errno int, fn string, err error) {
	if l.res.Error != 0 {
		return
	}
	l.res.Error = errno
	l.res.ErrorText = fmt.Sprintf("func=%s, error=%s", fn, joberr.Text(errno, err))
	l.idleAtError = l.inflight == 0
	if l.prog != nil {
		l.prog.State.Store('X')
	}
}

// fail ends the job on an engine-level error; in-flight I/O is abandoned
// to the engine's Close.
func (l *loop) fail(errno int, fn string, err error) {
	if l.warn != nil && l.res.Error == 0 {
		fmt.Fprintf(l.warn, "gofio: %s: %s: %v\n", l.job.Name, fn, err)
	}
	l.setError(errno, fn, err)
	l.fatal = true
	l.stopIssue = true
}
