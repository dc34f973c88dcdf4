package blockdev

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// SchedError is a failed ioscheduler= switch: Fn names the step as fio's
// job error does ("fopen iosched", "fread", "iosched_switch").
type SchedError struct {
	Fn  string
	Err error
}

func (e *SchedError) Error() string { return e.Fn + ": " + e.Err.Error() }

func (e *SchedError) Unwrap() error { return e.Err }

// SetScheduler is fio 3.33's set_ioscheduler for the disk named disk (a
// name under /sys/block): it writes sched to the disk's queue/scheduler
// and reads it back. It returns fio's message for the log, if any: a disk
// without the file ("os or kernel doesn't support IO scheduler
// switching") and one whose only scheduler is none ("io scheduler is not
// tunable") are not errors. A scheduler the kernel does not take is a
// *SchedError with EINVAL, after the message "unable to set io scheduler
// to X", as in fio. The switch is not undone: fio 3.33 leaves the disk on
// the new scheduler.
func SetScheduler(disk, sched string) (msg string, err error) {
	return sysfs{root: "/sys"}.setScheduler(disk, sched)
}

func (s sysfs) setScheduler(disk, sched string) (string, error) {
	if disk == "" || strings.ContainsRune(disk, '/') {
		return "", &SchedError{Fn: "fopen iosched", Err: fmt.Errorf("bad disk name %q: %w", disk, unix.EINVAL)}
	}
	f, err := os.OpenFile(filepath.Join(s.root, "block", disk, "queue", "scheduler"), os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return "fio: os or kernel doesn't support IO scheduler switching\n", nil
	}
	if err != nil {
		return "", &SchedError{Fn: "fopen iosched", Err: err}
	}
	defer f.Close()
	// fio's buffered fwrite does not see the kernel refuse a name: the
	// read-back below does. So a write error is left to it.
	_, _ = f.Write([]byte(sched))
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 4096))
	if err != nil {
		return "", &SchedError{Fn: "fread", Err: err}
	}
	line, _, _ := strings.Cut(string(b), "\n")
	if line == "none" {
		return "fio: io scheduler is not tunable\n", nil
	}
	if !strings.Contains(line, "["+sched+"]") {
		return fmt.Sprintf("fio: unable to set io scheduler to %s\n", sched),
			&SchedError{Fn: "iosched_switch", Err: fmt.Errorf("disk %s offers %q: %w", disk, strings.TrimSpace(line), unix.EINVAL)}
	}
	return "", nil
}
