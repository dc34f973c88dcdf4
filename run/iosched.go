package run

import (
	"os"
	"path/filepath"

	"github.com/gofio/gofio/internal/blockdev"
)

// switchScheduler is fio 3.33's switch_ioscheduler for ioscheduler=: on
// the job's thread, after nice= and before its files are laid out, it sets
// the scheduler of the disk under each regular file and block device
// target (a file not laid out yet: the disk of its directory). Targets
// with no disk (tmpfs), character devices and diskless engines are
// skipped, and so is every target with disk_util=0, where fio knows no
// disk for a file. fio's messages go to the warnings; the first failure
// fails the job. The scheduler stays switched after the job, as in fio.
func switchScheduler(e *env, jr *jobRun) error {
	j := jr.job
	if j.Engine().Diskless || j.NoDiskUtil {
		return nil
	}
	for _, t := range jr.targets {
		if t.Char {
			continue
		}
		p := t.Path
		if _, err := os.Stat(p); err != nil {
			p = filepath.Dir(p)
		}
		disk, ok := blockdev.DiskFor(p)
		if !ok {
			continue
		}
		msg, err := blockdev.SetScheduler(disk, j.IOScheduler)
		if msg != "" {
			e.warnf("%s", msg)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
