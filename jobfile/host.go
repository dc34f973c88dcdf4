package jobfile

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Host holds the values of fio's job-file keywords $ncpus, $pagesize and
// $mb_memory.
type Host struct {
	NCPUs    int
	PageSize int
	MBMemory int
}

// DetectHost reads the keyword values of this machine: online CPUs, the page
// size and the physical memory in MiB, as fio's sysconf calls do.
func DetectHost() Host {
	h := Host{NCPUs: onlineCPUs(), PageSize: os.Getpagesize()}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
				h.MBMemory = kb / 1024
			}
		}
	}
	return h
}

// onlineCPUs counts the CPUs in /sys/devices/system/cpu/online, like
// sysconf(_SC_NPROCESSORS_ONLN), falling back to runtime.NumCPU.
func onlineCPUs() int {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return runtime.NumCPU()
	}
	cpus, err := parseCPUList(strings.TrimSpace(string(b)))
	if err != nil || len(cpus) == 0 {
		return runtime.NumCPU()
	}
	return len(cpus)
}
