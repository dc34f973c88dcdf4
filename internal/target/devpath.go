package target

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofio/gofio/jobfile"
)

// CheckTargets refuses, before anything runs, a job whose target lies
// under /dev (outside the tmpfs /dev/shm) and does not exist: a mistyped
// device name. fio would lay out a regular file there, in the RAM of
// devtmpfs; gofio stops before anything is created. Run checks this while
// planning; a caller that plans several runs (a --sweep) calls it on every
// run's jobs first, so that none starts. The null engine touches no file
// and is skipped.
func CheckTargets(jobs []*jobfile.Job) error {
	for _, j := range jobs {
		if err := CheckDev(j); err != nil {
			return err
		}
	}
	return nil
}

// CheckDev is CheckTargets for one job.
func CheckDev(j *jobfile.Job) error {
	if diskless(j) {
		return nil
	}
	if len(j.Filenames) == 0 {
		for _, d := range j.Directory {
			if underDev(d) {
				if _, err := os.Stat(d); err != nil {
					return devError(j, "directory", d, err)
				}
			}
		}
		return nil
	}
	for _, p := range Names(j) {
		if !underDev(p) {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			return devError(j, "filename", p, err)
		}
	}
	return nil
}

// underDev reports whether path resolves under /dev but not /dev/shm.
func underDev(path string) bool {
	if path == "" {
		return false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	if abs == "/dev/shm" || strings.HasPrefix(abs, "/dev/shm/") {
		return false
	}
	return abs == "/dev" || strings.HasPrefix(abs, "/dev/")
}

// devError words a missing /dev target with the file and line of the
// option that named it.
func devError(j *jobfile.Job, option, path string, err error) error {
	msg := "does not exist"
	if !errors.Is(err, os.ErrNotExist) {
		msg = err.Error()
	}
	e := &jobfile.Error{File: j.File, Line: j.Line, Option: option,
		Msg: fmt.Sprintf("%s %s; gofio never creates files under /dev (is the device name right?)", path, msg)}
	if o, ok := j.Setting(option); ok {
		e.File, e.Line, e.Option = o.File, o.Line, o.Name+"="+o.Value
	}
	return fmt.Errorf("%s: %w", j.Name, e)
}
