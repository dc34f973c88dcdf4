// Package hostinfo names the machine a result comes from: its host name and
// kernel release. Results carry them so that a merge of many hosts' results
// (gofio merge) and a comparison across runs can say where each came from.
package hostinfo

import (
	"os"

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
