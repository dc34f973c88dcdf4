package placement

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/internal/target"
	"github.com/gofio/gofio/jobfile"
)

// SetCreds is fio 3.33's setgid and setuid at the start of thread_main,
// for gid= and uid=: the group first, while the thread still has the
// privilege. gofio runs each job on one locked OS thread and changes that
// thread's credentials alone, with the raw system calls (Go's
// syscall.Setuid would change every thread of the process); the caller
// must never hand the thread back to the Go scheduler. It returns the
// failed call's name ("setgid", "setuid") with its error.
func SetCreds(j *jobfile.Job) (fn string, err error) {
	if j.GIDSet {
		g := uintptr(j.GID)
		if _, _, e := unix.RawSyscall(unix.SYS_SETRESGID, g, g, g); e != 0 {
			return "setgid", fmt.Errorf("gid=%d: %w", j.GID, e)
		}
	}
	if j.UIDSet {
		u := uintptr(j.UID)
		if _, _, e := unix.RawSyscall(unix.SYS_SETRESUID, u, u, u); e != 0 {
			return "setuid", fmt.Errorf("uid=%d: %w", j.UID, e)
		}
	}
	return "", nil
}

// CheckAccess opens each of the job's files again on the calling thread,
// with the flags the job opened them with, and closes it: gofio opens a
// job's files before its thread takes uid= and gid=, and fio opens them
// after, so a file the new credentials may not open fails the job as in
// fio (func=open(PATH)).
func CheckAccess(j *jobfile.Job, targets []*target.Target, rw jobfile.RW) *joberr.Error {
	if j.Engine().Diskless {
		return nil
	}
	for _, t := range targets {
		flags, _ := target.OpenFlags(j, t, rw)
		fd, err := unix.Open(t.Path, flags&^(unix.O_CREAT|unix.O_TRUNC), 0)
		if err != nil {
			je := target.Fail(j.Name, t, "open", "open("+t.Path+")", unix.EACCES, err)
			je.InIO = true // fio opens the file for the job's first I/O
			return je
		}
		unix.Close(fd)
	}
	return nil
}
