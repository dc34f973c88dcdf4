package placement

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/jobfile"
)

// CgroupJoin is a job thread's place in a cgroup, as fio 3.33's cgroup.c
// sets it up for cgroup=, cgroup_weight= and cgroup_nodelete=.
type CgroupJoin struct {
	mnt     string // the blkio (v1) or cgroup2 mount
	v2      bool
	dir     string // the job's cgroup
	created bool   // gofio made dir (and removes it, without cgroup_nodelete)
}

// CgroupMount finds the cgroup mount fio's find_cgroup_mnt picks from
// mounts (the text of /proc/mounts): the first v1 mount with the blkio
// controller or cgroup2 mount, whichever comes first.
func CgroupMount(mounts string) (dir string, v2 bool, ok bool) {
	sc := bufio.NewScanner(strings.NewReader(mounts))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 {
			continue
		}
		if f[2] == "cgroup" && strings.Contains(f[3], "blkio") {
			return f[1], false, true
		}
		if f[2] == "cgroup2" {
			return f[1], true, true
		}
	}
	return "", false, false
}

// CgroupError is a failed cgroup step: fn is fio's name for it.
type CgroupError struct {
	Fn  string // fio's func= of the failure
	err error
}

func (e *CgroupError) Error() string { return e.Fn + ": " + e.err.Error() }

func (e *CgroupError) Unwrap() error { return e.err }

// JoinCgroup is fio's cgroup_setup on the job's thread: it makes the
// cgroup <mount>/<cgroup= or the job's name> if it is not there, writes
// cgroup_weight= to its blkio.weight (refused on cgroup2, as fio refuses
// it) and moves the calling thread in: on cgroup v1 through tasks, the
// thread alone; on cgroup2 through cgroup.procs, which moves the whole
// process, as it moves fio's with thread=1.
func JoinCgroup(j *jobfile.Job, mounts string) (*CgroupJoin, error) {
	mnt, v2, ok := CgroupMount(mounts)
	if !ok {
		return nil, &CgroupError{"cgroup mount", errors.New("fio: cgroup blkio does not appear to be mounted")}
	}
	name := j.Cgroup
	if name == "" {
		name = j.Name
	}
	cg := &CgroupJoin{mnt: mnt, v2: v2, dir: filepath.Join(mnt, name)}
	if err := os.Mkdir(cg.dir, 0o755); err == nil {
		cg.created = !j.CgroupNodelete
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, &CgroupError{"cgroup mkdir", fmt.Errorf("fio: path %s: %w", cg.dir, err)}
	}
	if j.CgroupWeight != 0 {
		if v2 {
			cg.Leave()
			return nil, &CgroupError{"cgroup weight", errors.New("fio: cgroup weit doesn't work with cgroup2")}
		}
		if err := writeUint(cg.dir, "blkio.weight", uint64(j.CgroupWeight)); err != nil {
			cg.Leave()
			return nil, &CgroupError{"cgroup open weight", err}
		}
	}
	if err := cg.move(cg.dir); err != nil {
		cg.Leave()
		return nil, &CgroupError{"cgroup write pid", err}
	}
	return cg, nil
}

// move writes the calling thread's id to dir's tasks (v1) or
// cgroup.procs (v2).
func (cg *CgroupJoin) move(dir string) error {
	file := "tasks"
	if cg.v2 {
		file = "cgroup.procs"
	}
	return writeUint(dir, file, uint64(unix.Gettid()))
}

// Leave is fio's cgroup_shutdown and cgroup_kill for one job: the thread
// goes back to the mount's root cgroup and the cgroup gofio made is
// removed (a cgroup another job still uses stays: rmdir fails busy).
func (cg *CgroupJoin) Leave() {
	if cg == nil {
		return
	}
	_ = cg.move(cg.mnt)
	if cg.created {
		_ = os.Remove(cg.dir)
	}
}

// writeUint writes v to dir/name, as fio's write_int_to_file.
func writeUint(dir, name string, v uint64) error {
	return os.WriteFile(filepath.Join(dir, name), []byte(strconv.FormatUint(v, 10)), 0o644)
}
