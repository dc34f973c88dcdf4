package uring

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// SetupSyscall performs io_uring_setup(2). It is a seam: tests (here and in
// other packages) replace it to inject EPERM or ENOSYS and check the errors
// gofio prints, without touching the host's sysctl. Replace it only while no
// ring is being set up concurrently, and restore it afterwards.
var SetupSyscall = SysSetup

// SysSetup is the real io_uring_setup(2): it returns the ring fd, and the
// kernel fills p.
func SysSetup(entries uint32, p *Params) (int, error) {
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(p)), 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// sysEnter is io_uring_enter(2). It uses Syscall6 rather than RawSyscall6
// because GETEVENTS blocks and the P must be handed off.
func sysEnter(fd int, toSubmit, minComplete, flags uint32, arg unsafe.Pointer, argSz uintptr) (uint32, error) {
	n, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(fd), uintptr(toSubmit),
		uintptr(minComplete), uintptr(flags), uintptr(arg), argSz)
	if errno != 0 {
		return 0, errno
	}
	return uint32(n), nil
}

// sysRegister is io_uring_register(2).
func sysRegister(fd int, opcode uint32, arg unsafe.Pointer, nrArgs uint32) (int, error) {
	n, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(fd), uintptr(opcode),
		uintptr(arg), uintptr(nrArgs), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
