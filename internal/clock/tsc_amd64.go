package clock

import (
	"bytes"
	"os"
	"strings"

	"github.com/gofio/gofio/internal/hostinfo"
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
	var constant, nonstop bool
	for _, f := range strings.Fields(hostinfo.CPUInfo("flags")) {
		switch f {
		case "constant_tsc":
			constant = true
		case "nonstop_tsc":
			nonstop = true
		}
	}
	return constant && nonstop
}
