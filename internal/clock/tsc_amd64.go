package clock

import (
	"bytes"
	"os"
)

// rdtsc reads the time stamp counter (RDTSC, not serialising).
func rdtsc() uint64

// tscUsable reports whether the counter is a clock: invariant (the CPU
// flags constant_tsc and nonstop_tsc) and the kernel's own clocksource,
// which it picks only when the counters of all CPUs agree.
func tscUsable() bool {
	cs, err := os.ReadFile("/sys/devices/system/clocksource/clocksource0/current_clocksource")
	if err != nil || string(bytes.TrimSpace(cs)) != "tsc" {
		return false
	}
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false
	}
	i := bytes.Index(info, []byte("\nflags"))
	if i < 0 {
		return false
	}
	line := info[i+1:]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	var constant, nonstop bool
	for _, f := range bytes.Fields(line) {
		switch string(f) {
		case "constant_tsc":
			constant = true
		case "nonstop_tsc":
			nonstop = true
		}
	}
	return constant && nonstop
}
