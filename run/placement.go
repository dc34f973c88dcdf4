package run

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"unsafe"

	"github.com/gofio/gofio/internal/blockdev"
	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/internal/target"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"golang.org/x/sys/unix"
)

// This file holds the placement of a job's thread (placeThread) and the
// process-level options it applies: I/O priority
// (prio=, prioclass=), NUMA CPUs (numa_cpu_nodes=) and memory policy
// (numa_mem_policy=).

// setIOPrio applies prioclass= and prio= to the calling thread (the job's),
// as fio's ioprio_set(IOPRIO_WHO_PROCESS, 0, ...) at job start.
func setIOPrio(j *jobfile.Job) error {
	if !j.PrioSet {
		return nil
	}
	const whoProcess = 1
	if _, _, e := unix.Syscall(unix.SYS_IOPRIO_SET, whoProcess, 0, uintptr(j.IOPrio())); e != 0 {
		return e
	}
	return nil
}

// nameThread sets the calling thread's name (its comm) to name; the
// kernel keeps the first 15 bytes.
func nameThread(name string) error {
	p, err := unix.BytePtrFromString(name)
	if err != nil {
		return err
	}
	return unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(p)), 0, 0, 0)
}

// ownThreadName returns the calling thread's name.
func ownThreadName() (string, error) {
	var b [16]byte
	if err := unix.Prctl(unix.PR_GET_NAME, uintptr(unsafe.Pointer(&b[0])), 0, 0, 0); err != nil {
		return "", err
	}
	return unix.ByteSliceToString(b[:]), nil
}

// syncFilesystems calls syncfs(2) once for each filesystem under the
// open targets (end_syncfs), as fio's fio_syncfs syncs each mount of the
// job's files once.
func syncFilesystems(targets []*target.Target) error {
	seen := map[uint64]bool{}
	for _, t := range targets {
		if t.FD < 0 {
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstat(t.FD, &st); err != nil {
			return fmt.Errorf("fstat %s: %w", t.Path, err)
		}
		if seen[st.Dev] {
			continue
		}
		seen[st.Dev] = true
		if err := unix.Syncfs(t.FD); err != nil {
			return fmt.Errorf("syncfs %s: %w", t.Path, err)
		}
	}
	return nil
}

// numaCPUs returns the CPUs of the NUMA nodes numa_cpu_nodes= names, read
// from /sys/devices/system/node/nodeN/cpulist, or an error naming a node
// this machine does not have.
func numaCPUs(nodes []int) ([]int, error) {
	var cpus []int
	for _, n := range nodes {
		b, err := os.ReadFile(fmt.Sprintf("/sys/devices/system/node/node%d/cpulist", n))
		if err != nil {
			return nil, fmt.Errorf("numa_cpu_nodes: this machine has no NUMA node %d: %w", n, err)
		}
		list, err := jobfile.ParseCPUList(strings.TrimSpace(string(b)))
		if err != nil {
			return nil, fmt.Errorf("numa_cpu_nodes: node %d: %w", n, err)
		}
		cpus = append(cpus, list...)
	}
	return cpus, nil
}

// memPolicy applies numa_mem_policy=MODE[:NODES] to mem (the job's
// buffers) with mbind, moving pages already there, as fio's
// numa_set_membind and friends do for the job's memory. Each node must
// exist on this machine.
func memPolicy(spec string, mem []byte) error {
	if spec == "" || len(mem) == 0 {
		return nil
	}
	modeName, nodeList, _ := strings.Cut(spec, ":")
	modes := map[string]uintptr{"default": 0, "prefer": 1, "bind": 2, "interleave": 3, "local": 4}
	mode, ok := modes[modeName]
	if !ok {
		return fmt.Errorf("numa_mem_policy: unknown mode %q", modeName)
	}
	var mask [16]uint64 // 1024 nodes
	var maskp, maxnode uintptr
	if nodeList != "" {
		nodes, err := jobfile.ParseCPUList(nodeList)
		if err != nil {
			return fmt.Errorf("numa_mem_policy: %w", err)
		}
		for _, n := range nodes {
			if n >= len(mask)*64 {
				return fmt.Errorf("numa_mem_policy: node %d is out of range", n)
			}
			if _, err := os.Stat(fmt.Sprintf("/sys/devices/system/node/node%d", n)); err != nil {
				return fmt.Errorf("numa_mem_policy: this machine has no NUMA node %d", n)
			}
			mask[n/64] |= 1 << (n % 64)
		}
		maskp, maxnode = uintptr(unsafe.Pointer(&mask[0])), uintptr(len(mask)*64+1)
	}
	const mpolMFMove = 2
	_, _, e := unix.Syscall6(unix.SYS_MBIND, uintptr(unsafe.Pointer(&mem[0])), uintptr(len(mem)), mode, maskp, maxnode, mpolMFMove)
	if e != 0 {
		return fmt.Errorf("numa_mem_policy=%s: mbind: %w", spec, e)
	}
	return nil
}

// niceThread adds inc to the calling thread's nice value, as fio's nice()
// at the start of thread_main (glibc's nice: getpriority, then setpriority
// of the sum, which the kernel clamps to -20..19; EACCES reads EPERM).
func niceThread(inc int) error {
	raw, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		return err
	}
	// The system call answers 20 less the nice value.
	if err := unix.Setpriority(unix.PRIO_PROCESS, 0, 20-raw+inc); err != nil {
		if errors.Is(err, unix.EACCES) {
			return unix.EPERM
		}
		return err
	}
	return nil
}

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
		if fn, err := setCreds(j); err != nil {
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
		cg, err := joinCgroup(j, string(mounts))
		if err != nil {
			fn := "cgroup"
			var ce *cgroupError
			if errors.As(err, &ce) {
				fn = ce.fn
			}
			return fail("cgroup="+j.Cgroup, "cgroup", fn, unix.Errno(joberr.ErrnoOf(err, unix.EINVAL)), err)
		}
		p.cgroup = cg
	}
	if p.credsSet {
		// fio opens the files for the first I/O, under the new
		// credentials.
		if je := checkAccess(j, jr.targets, jr.rw()); je != nil {
			return je
		}
	}
	if err := setIOPrio(j); err != nil {
		return fail(fmt.Sprintf("prioclass=%d prio=%d priohint=%d", j.PrioClass, j.Prio, j.PrioHint), "ioprio", "ioprio_set", unix.Errno(joberr.ErrnoOf(err, unix.EINVAL)), err)
	}
	if j.Comm != "" {
		// comm=: fio's prctl(PR_SET_NAME) in its job process; here the
		// job's own thread, named back when the job ends.
		old, err := ownThreadName()
		if err == nil {
			err = nameThread(j.Comm)
		}
		if err != nil {
			return fail("comm="+j.Comm, "comm", "prctl", unix.Errno(joberr.ErrnoOf(err, unix.EINVAL)), err)
		}
		p.oldName = old
	}
	if j.Nice != 0 {
		p.niced = true
		if err := niceThread(j.Nice); err != nil {
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
		nc, err := numaCPUs(j.NUMACPUNodes)
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
