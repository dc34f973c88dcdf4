package run

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/gofio/gofio/internal/blockdev"
	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/internal/placement"
	"github.com/gofio/gofio/report"
	"golang.org/x/sys/unix"
)

// This file holds the placement of a job's thread (placeThread) and the
// process-level options it applies: I/O priority
// (prio=, prioclass=), NUMA CPUs (numa_cpu_nodes=) and memory policy
// (numa_mem_policy=).

// initPrios sets up the per-priority stats of the directions that use
// cmdprio, as fio's init_ts_clat_prio.
func (l *loop) initPrios() {
	for d, prios := range l.cmdprio.Prios {
		if len(prios) == 0 {
			continue
		}
		ps := make([]report.PrioStat, len(prios))
		for i, p := range prios {
			ps[i].IOPrio = p
		}
		l.res.Dirs[d].Prios = ps
	}
}

// placeThread puts the job's thread where the job asks: its credentials
// (gid=, uid=: fio's thread_main sets them first), its cgroup, the
// targets checked for access under the new credentials, I/O priority,
// nice, the disk's I/O scheduler, and its CPUs
// (cpus_allowed, gtod_cpu, numa_cpu_nodes). What it changed is marked in p
// for the job's end to undo.
func (jr *jobRun) placeThread(e *env, p *prepared) *joberr.Error {
	j := jr.job
	fail := jr.failure
	if j.UIDSet || j.GIDSet {
		p.credsSet = true
		if fn, err := placement.SetCreds(j); err != nil {
			return fail(fmt.Sprintf("uid=%d gid=%d", j.UID, j.GID), "credentials", fn, unix.Errno(joberr.ErrnoOf(err, unix.EPERM)), err)
		}
	}
	if j.Cgroup != "" {
		// fio's cgroup_setup (only with cgroup=), with the job's credentials:
		// as nobody, its mkdir fails with EACCES.
		p.cgroupSet = true
		mounts, err := os.ReadFile("/proc/mounts")
		if err != nil {
			return fail("cgroup="+j.Cgroup, "cgroup", "setmntent /proc/mounts", unix.Errno(joberr.ErrnoOf(err, unix.ENOENT)), err)
		}
		cg, err := placement.JoinCgroup(j, string(mounts))
		if err != nil {
			fn := "cgroup"
			var ce *placement.CgroupError
			if errors.As(err, &ce) {
				fn = ce.Fn
			}
			return fail("cgroup="+j.Cgroup, "cgroup", fn, unix.Errno(joberr.ErrnoOf(err, unix.EINVAL)), err)
		}
		p.cgroup = cg
	}
	if p.credsSet {
		// fio opens the files for the first I/O, under the new
		// credentials.
		if je := placement.CheckAccess(j, jr.targets, jr.rw()); je != nil {
			return je
		}
	}
	if err := placement.SetIOPrio(j); err != nil {
		return fail(fmt.Sprintf("prioclass=%d prio=%d priohint=%d", j.PrioClass, j.Prio, j.PrioHint), "ioprio", "ioprio_set", unix.Errno(joberr.ErrnoOf(err, unix.EINVAL)), err)
	}
	if j.Comm != "" {
		// comm=: fio's prctl(PR_SET_NAME) in its job process; here the
		// job's own thread, named back when the job ends.
		old, err := placement.OwnThreadName()
		if err == nil {
			err = placement.NameThread(j.Comm)
		}
		if err != nil {
			return fail("comm="+j.Comm, "comm", "prctl", unix.Errno(joberr.ErrnoOf(err, unix.EINVAL)), err)
		}
		p.oldName = old
	}
	if j.Nice != 0 {
		p.niced = true
		if err := placement.NiceThread(j.Nice); err != nil {
			return fail(fmt.Sprintf("nice=%d", j.Nice), "nice", "nice", unix.Errno(joberr.ErrnoOf(err, unix.EPERM)), err)
		}
	}
	if j.IOScheduler != "" {
		if err := switchScheduler(e, jr); err != nil {
			var se *blockdev.SchedError
			fn := "iosched_switch"
			if errors.As(err, &se) {
				fn = se.Fn
			}
			return fail("ioscheduler="+j.IOScheduler, "ioscheduler", fn, unix.Errno(joberr.ErrnoOf(err, unix.EINVAL)), err)
		}
	}
	cpus := allowedCPUs(j, jr.index)
	if len(j.CPUsAllowed) > 0 && len(cpus) == 0 {
		// gtod_cpu= took the only CPU: fio's affinity call fails on the empty mask.
		return fail(fmt.Sprintf("cpus_allowed=%v gtod_cpu=%d", j.CPUsAllowed, j.GtodCPU), "sched_setaffinity", "cpu_set_affinity", unix.EINVAL,
			fmt.Errorf("gtod_cpu=%d leaves no CPU of %v", j.GtodCPU, j.CPUsAllowed))
	}
	if len(j.NUMACPUNodes) > 0 {
		nc, err := placement.NumaCPUs(j.NUMACPUNodes)
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
		p.pinned = true
	}
	return nil
}
