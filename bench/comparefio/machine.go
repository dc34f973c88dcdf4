package main

import (
	"bufio"
	"cmp"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gofio/gofio/internal/hostinfo"
)

// Machine describes where the figures were taken.
type Machine struct {
	Kernel   string
	CPUs     int
	CPUModel string
	MemTotal string
	Date     time.Time
	// LoadStart and LoadEnd are /proc/loadavg's 1, 5 and 15 minute load
	// averages when the comparison started and when it ended: on a
	// shared machine they say how far the wall-clock ratios can be
	// trusted.
	LoadStart, LoadEnd string
}

// LoadAvg returns /proc/loadavg's three load averages, or "unknown".
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// DescribeMachine reads the kernel release, CPU count, CPU model and
// memory size of this machine.
func DescribeMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), Date: time.Now().UTC(), Kernel: "unknown", CPUModel: "unknown", MemTotal: "unknown", LoadStart: LoadAvg()}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	m.CPUModel = cmp.Or(hostinfo.CPUModel(), "unknown")
	if kb := procField("/proc/meminfo", "MemTotal"); kb != "unknown" {
		if n, err := strconv.ParseInt(strings.TrimSuffix(kb, " kB"), 10, 64); err == nil {
			m.MemTotal = strconv.FormatInt(n>>20, 10) + " GiB"
		}
	}
	return m
}

// procField returns the value of the first "key : value" line of a /proc
// file whose key is key.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// ToolVersion returns the first line of `path --version`.
func ToolVersion(ctx context.Context, path string) string {
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return firstLine(string(out))
}
