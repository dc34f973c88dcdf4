package placement

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"github.com/gofio/gofio/jobfile"
	"golang.org/x/sys/unix"
)

// SetIOPrio applies prioclass= and prio= to the calling thread (the job's),
// as fio's ioprio_set(IOPRIO_WHO_PROCESS, 0, ...) at job start.
func SetIOPrio(j *jobfile.Job) error {
	if !j.PrioSet {
		return nil
	}
	const whoProcess = 1
	if _, _, e := unix.Syscall(unix.SYS_IOPRIO_SET, whoProcess, 0, uintptr(j.IOPrio())); e != 0 {
		return e
	}
	return nil
}

// NameThread sets the calling thread's name (its comm) to name; the
// kernel keeps the first 15 bytes.
func NameThread(name string) error {
	p, err := unix.BytePtrFromString(name)
	if err != nil {
		return err
	}
	return unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(p)), 0, 0, 0)
}

// OwnThreadName returns the calling thread's name.
func OwnThreadName() (string, error) {
	var b [16]byte
	if err := unix.Prctl(unix.PR_GET_NAME, uintptr(unsafe.Pointer(&b[0])), 0, 0, 0); err != nil {
		return "", err
	}
	return unix.ByteSliceToString(b[:]), nil
}

// NumaCPUs returns the CPUs of the NUMA nodes numa_cpu_nodes= names, read
// from /sys/devices/system/node/nodeN/cpulist, or an error naming a node
// this machine does not have.
func NumaCPUs(nodes []int) ([]int, error) {
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

// MemPolicy applies numa_mem_policy=MODE[:NODES] to mem (the job's
// buffers) with mbind, moving pages already there, as fio's
// numa_set_membind and friends do for the job's memory. Each node must
// exist on this machine.
func MemPolicy(spec string, mem []byte) error {
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

// NiceThread adds inc to the calling thread's nice value, as fio's nice()
// at the start of thread_main (glibc's nice: getpriority, then setpriority
// of the sum, which the kernel clamps to -20..19; EACCES reads EPERM).
func NiceThread(inc int) error {
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
