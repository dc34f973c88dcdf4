package placement

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/blockdev"
	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/internal/target"
	"github.com/gofio/gofio/jobfile"
)

// Placed is what Place changed of the calling thread, for the job's end
// to undo.
type Placed struct {
	Pinned bool // its CPUs were set
	Niced  bool // nice= changed its nice value
	// OldName is the thread's name before comm= renamed it ("": not
	// renamed), given back when the job ends: the thread may be the
	// process's main one, which the runtime never ends.
	OldName string
	// CredsSet: uid= or gid= changed the thread's credentials.
	CredsSet bool
	// CgroupSet: cgroup= or cgroup_weight= moved the thread; Cgroup is
	// where, left when the job ends.
	CgroupSet bool
	Cgroup    *CgroupJoin
}

// Place puts the calling thread, job j's (index: its place in the run,
// from 0), where the job asks: its credentials (gid=, uid=: fio's
// thread_main sets them first), its cgroup, the targets ts checked for
// access under the new credentials (read as rw), I/O priority, nice, the
// disk's I/O scheduler, and its CPUs (cpus_allowed, gtod_cpu,
// numa_cpu_nodes). What it changed is marked in p for the job's end to
// undo; warnf takes the I/O scheduler's messages.
func Place(j *jobfile.Job, index int, ts []*target.Target, rw jobfile.RW, warnf func(format string, args ...any), p *Placed) *joberr.Error {
	fail := func(where, op, fn string, errno unix.Errno, err error) *joberr.Error {
		return &joberr.Error{Job: j.Name, Where: where, Op: op, Fn: fn, Errno: errno, Err: err}
	}
	if j.UIDSet || j.GIDSet {
		p.CredsSet = true
		if fn, err := SetCreds(j); err != nil {
			return fail(fmt.Sprintf("uid=%d gid=%d", j.UID, j.GID), "credentials", fn, unix.Errno(joberr.ErrnoOf(err, unix.EPERM)), err)
		}
	}
	if j.Cgroup != "" {
		// fio's cgroup_setup (only with cgroup=), with the job's credentials:
		// as nobody, its mkdir fails with EACCES.
		p.CgroupSet = true
		mounts, err := os.ReadFile("/proc/mounts")
		if err != nil {
			return fail("cgroup="+j.Cgroup, "cgroup", "setmntent /proc/mounts", unix.Errno(joberr.ErrnoOf(err, unix.ENOENT)), err)
		}
		cg, err := JoinCgroup(j, string(mounts))
		if err != nil {
			fn := "cgroup"
			var ce *CgroupError
			if errors.As(err, &ce) {
				fn = ce.Fn
			}
			return fail("cgroup="+j.Cgroup, "cgroup", fn, unix.Errno(joberr.ErrnoOf(err, unix.EINVAL)), err)
		}
		p.Cgroup = cg
	}
	if p.CredsSet {
		// fio opens the files for the first I/O, under the new
		// credentials.
		if je := CheckAccess(j, ts, rw); je != nil {
			return je
		}
	}
	if err := SetIOPrio(j); err != nil {
		return fail(fmt.Sprintf("prioclass=%d prio=%d priohint=%d", j.PrioClass, j.Prio, j.PrioHint), "ioprio", "ioprio_set", unix.Errno(joberr.ErrnoOf(err, unix.EINVAL)), err)
	}
	if j.Comm != "" {
		// comm=: fio's prctl(PR_SET_NAME) in its job process; here the
		// job's own thread, named back when the job ends.
		old, err := OwnThreadName()
		if err == nil {
			err = NameThread(j.Comm)
		}
		if err != nil {
			return fail("comm="+j.Comm, "comm", "prctl", unix.Errno(joberr.ErrnoOf(err, unix.EINVAL)), err)
		}
		p.OldName = old
	}
	if j.Nice != 0 {
		p.Niced = true
		if err := NiceThread(j.Nice); err != nil {
			return fail(fmt.Sprintf("nice=%d", j.Nice), "nice", "nice", unix.Errno(joberr.ErrnoOf(err, unix.EPERM)), err)
		}
	}
	if j.IOScheduler != "" {
		if err := switchScheduler(j, ts, warnf); err != nil {
			var se *blockdev.SchedError
			fn := "iosched_switch"
			if errors.As(err, &se) {
				fn = se.Fn
			}
			return fail("ioscheduler="+j.IOScheduler, "ioscheduler", fn, unix.Errno(joberr.ErrnoOf(err, unix.EINVAL)), err)
		}
	}
	cpus := allowedCPUs(j, index)
	if len(j.CPUsAllowed) > 0 && len(cpus) == 0 {
		// gtod_cpu= took the only CPU: fio's affinity call fails on the empty mask.
		return fail(fmt.Sprintf("cpus_allowed=%v gtod_cpu=%d", j.CPUsAllowed, j.GtodCPU), "sched_setaffinity", "cpu_set_affinity", unix.EINVAL,
			fmt.Errorf("gtod_cpu=%d leaves no CPU of %v", j.GtodCPU, j.CPUsAllowed))
	}
	if len(j.NUMACPUNodes) > 0 {
		nc, err := NumaCPUs(j.NUMACPUNodes)
		if err != nil {
			return fail(fmt.Sprintf("numa_cpu_nodes=%v", j.NUMACPUNodes), "numa", "numa_run_on_node", unix.EINVAL, err)
		}
		if len(cpus) > 0 {
			nc = slices.DeleteFunc(nc, func(c int) bool { return !slices.Contains(cpus, c) })
		}
		cpus = nc
	}
	if len(cpus) > 0 {
		var set unix.CPUSet
		for _, c := range cpus {
			set.Set(c)
		}
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			return fail(fmt.Sprintf("cpus_allowed=%v", j.CPUsAllowed), "sched_setaffinity", "cpu_set_affinity", unix.Errno(joberr.ErrnoOf(err, unix.EINVAL)), err)
		}
		p.Pinned = true
	}
	return nil
}

// allowedCPUs returns the CPUs job number index (0-based, over the whole
// run) may use: all of cpus_allowed, or with cpus_allowed_policy=split the
// one at position index modulo their count, in ascending order, as fio's
// fio_cpus_split picks it for thread_number - 1. A gtod_cpu= CPU is not
// among them, as in fio.
func allowedCPUs(j *jobfile.Job, index int) []int {
	cpus := j.CPUsAllowed
	if j.GtodCPU != 0 && len(cpus) > 0 {
		// fio's thread_main takes gtod_cpu out of the job's cpumask.
		cpus = slices.DeleteFunc(slices.Clone(cpus), func(c int) bool { return c == j.GtodCPU })
	}
	if j.CPUsAllowedPolicy != "split" || len(cpus) == 0 {
		return cpus
	}
	cpus = slices.Clone(cpus)
	slices.Sort(cpus)
	cpus = slices.Compact(cpus)
	return cpus[index%len(cpus) : index%len(cpus)+1]
}

// switchScheduler is fio 3.33's switch_ioscheduler for ioscheduler=: on
// the job's thread, after nice= and before its files are laid out, it sets
// the scheduler of the disk under each regular file and block device
// target (a file not laid out yet: the disk of its directory). Targets
// with no disk (tmpfs), character devices and diskless engines are
// skipped, and so is every target with disk_util=0, where fio knows no
// disk for a file. fio's messages go to the warnings; the first failure
// fails the job. The scheduler stays switched after the job, as in fio.
func switchScheduler(j *jobfile.Job, ts []*target.Target, warnf func(format string, args ...any)) error {
	if j.Engine().Diskless || j.NoDiskUtil {
		return nil
	}
	for _, t := range ts {
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
			warnf("%s", msg)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
