// Package hostinfo names the machine a result comes from: its host name and
// kernel release. Results carry them so that a merge of many hosts' results
// (gofio merge) and a comparison across runs can say where each came from.
package hostinfo

import (
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Hostname is the kernel's host name (uname -n), "" when it cannot be read.
func Hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return h
}

// Kernel is the running kernel's release (uname -r), "" when unknown.
func Kernel() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}

// Machine is the kernel's machine name (uname -m: x86_64, aarch64).
func Machine() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Machine[:])
}

// CPUInfo returns the value of the first "key : value" line of
// /proc/cpuinfo whose key is one of keys, "" when there is none. x86 names
// the model "model name", arm64 "Model" or "Hardware"; every CPU has a
// "flags" line on x86.
func CPUInfo(keys ...string) string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && slices.Contains(keys, strings.TrimSpace(k)) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// CPUModel is the CPU's model name from /proc/cpuinfo, "" when unknown.
func CPUModel() string { return CPUInfo("model name", "Model", "Hardware") }
