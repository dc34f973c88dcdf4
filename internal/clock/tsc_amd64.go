package clock

import (
	"bytes"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/hostinfo"
)

// rdtsc reads the time stamp counter (RDTSC, not serialising).
func rdtsc() uint64

// tscUsable reports whether the counter is a clock, by fio 3.33's rule:
// invariant (the CPU flags constant_tsc and nonstop_tsc, the CPUID bit fio
// reads) and, where the kernel's own clocksource is not tsc (a KVM guest
// on kvm-clock), counters that agree across the CPUs this process may run
// on, as fio's fio_monotonic_clocktest checks before it takes the TSC.
func tscUsable() bool {
	var constant, nonstop bool
	for _, f := range strings.Fields(hostinfo.CPUInfo("flags")) {
		switch f {
		case "constant_tsc":
			constant = true
		case "nonstop_tsc":
			nonstop = true
		}
	}
	if !constant || !nonstop {
		return false
	}
	cs, err := os.ReadFile("/sys/devices/system/clocksource/clocksource0/current_clocksource")
	if err == nil && string(bytes.TrimSpace(cs)) == "tsc" {
		return true
	}
	return tscMonotonicAcrossCPUs(8)
}

// tscMonotonicAcrossCPUs moves the calling thread over every CPU of the
// process's affinity mask (its main thread's, not the caller's, which a
// job's cpus_allowed may have narrowed: the clock serves every job),
// rounds times, reading the counter on each, and reports whether every
// reading was above the one before it: a counter behind on some CPU by
// more than a migration takes shows as a step back. The calling thread's
// mask is restored.
func tscMonotonicAcrossCPUs(rounds int) bool {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var orig, all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &orig); err != nil {
		return false
	}
	if err := unix.SchedGetaffinity(os.Getpid(), &all); err != nil {
		return false
	}
	defer func() { _ = unix.SchedSetaffinity(0, &orig) }()
	var cpus []int
	for c := 0; c < len(all)*64; c++ {
		if all.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) < 2 {
		return true
	}
	last := rdtsc()
	for r := 0; r < rounds; r++ {
		for _, c := range cpus {
			var one unix.CPUSet
			one.Set(c)
			if err := unix.SchedSetaffinity(0, &one); err != nil {
				return false
			}
			t := rdtsc()
			if t <= last {
				return false
			}
			last = t
		}
	}
	return true
}
