package target

import (
	"errors"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/jobfile"
)

// PlanJob resolves job j's targets and checks what can be checked before
// any job starts: O_DIRECT alignment and the offset generator's block
// rules. An input error comes back as err; a target that cannot be
// examined now comes back as failed, to end the job when its group
// starts, with ts nil.
func PlanJob(j *jobfile.Job, thread int, mounted func(string) error, laidOut map[string]uint64) (ts []*Target, failed *joberr.Error, err error) {
	ts, err = Plan(j, thread, mounted, laidOut)
	if errors.As(err, &failed) {
		return nil, failed, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if j.Direct && !j.Engine().Diskless {
		for _, t := range ts {
			je, err := checkPlannedDirect(j, t)
			if err != nil {
				return nil, nil, err
			}
			if je != nil {
				return nil, je, nil
			}
		}
	}
	regions := make([]iogen.Region, len(ts))
	for i, t := range ts {
		regions[i] = t.Region
	}
	if err := iogen.CheckOffsets(j, regions); err != nil {
		return nil, nil, err
	}
	return ts, nil, nil
}

// checkPlannedDirect checks the O_DIRECT alignment of a target before
// anything is laid out or opened for writing: an existing file or device
// through a read-only open, a file still to be created through its
// directory (newFileAlign), so that a bad bs writes nothing. A target that
// cannot be opened or examined fails only its job (je).
func checkPlannedDirect(j *jobfile.Job, t *Target) (je *joberr.Error, err error) {
	if !t.Exists {
		return nil, checkDirect(j, t, newFileAlign(filepath.Dir(t.Path)))
	}
	fd, err := unix.Open(t.Path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return Fail(j.Name, t, "open", "open("+t.Path+")", unix.EIO, err), nil
	}
	defer unix.Close(fd)
	a, err := dioAlign(fd, t.Block)
	if err != nil {
		return Fail(j.Name, t, "O_DIRECT alignment", "statx", unix.EIO, err), nil
	}
	return nil, checkDirect(j, t, a)
}

// MadeByEarlier reports whether every file of job j that does not exist
// yet is a file one of the earlier jobs writes: with create_serialize=0,
// j's targets are then planned when its group starts.
func MadeByEarlier(earlier []*jobfile.Job, j *jobfile.Job) bool {
	if j.Engine().Diskless {
		return false
	}
	missing := 0
	for _, name := range Names(j) {
		if _, err := os.Stat(name); err == nil {
			continue
		}
		missing++
		found := false
		for _, p := range earlier {
			found = found || p.RW.HasWrite() && !p.Engine().Diskless && slices.Contains(Names(p), name)
		}
		if !found {
			return false
		}
	}
	return missing > 0
}
