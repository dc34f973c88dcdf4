package run

import (
	"fmt"

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
		l.job.Name, name, strerror(e), s.dir, s.off, s.length-s.done)
}
