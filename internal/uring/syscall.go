package uring

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Kernel is what the ring layer asks of the kernel outside a live ring:
// io_uring_setup(2), and the /proc files that explain a refusal. The zero
// Kernel is the running kernel. Tests fill in stand-ins (EPERM, ENOSYS, a
// sysctl's value) and hand the Kernel down through NewRingOn, the io_uring
// engine's OpenOn or run.Options.Engines, so nothing global is swapped.
type Kernel struct {
	// Setup is io_uring_setup(2); nil means SysSetup.
	Setup func(entries uint32, p *Params) (int, error)
	// ReadFile reads a /proc file; nil means os.ReadFile.
	ReadFile func(name string) ([]byte, error)
}

// setup calls k.Setup, or SysSetup when it is nil.
func (k Kernel) setup(entries uint32, p *Params) (int, error) {
	if k.Setup != nil {
		return k.Setup(entries, p)
	}
	return SysSetup(entries, p)
}

// readFile calls k.ReadFile, or os.ReadFile when it is nil.
func (k Kernel) readFile(name string) ([]byte, error) {
	if k.ReadFile != nil {
		return k.ReadFile(name)
	}
	return os.ReadFile(name)
}

// SysSetup is the real io_uring_setup(2): it returns the ring fd, and the
// kernel fills p.
func SysSetup(entries uint32, p *Params) (int, error) {
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(p)), 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// sysEnter is io_uring_enter(2) for an enter that may sleep (a GETEVENTS
// wait, SQ_WAIT). It goes through syscall.Syscall6, whose entersyscall and
// exitsyscall let the runtime hand the P to other goroutines while the
// thread sleeps and keep the sleeping thread out of the way of the
// runtime's preemption signals. The syscall package is called directly:
// x/sys's unix.Syscall6 is an assembly jump to it through an ABI wrapper.
func sysEnter(fd int, toSubmit, minComplete, flags uint32, arg unsafe.Pointer, argSz uintptr) (uintptr, syscall.Errno) {
	n, _, errno := syscall.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(fd), uintptr(toSubmit),
		uintptr(minComplete), uintptr(flags), uintptr(arg), argSz)
	return n, errno
}

// sysEnterNoWait is io_uring_enter(2) for an enter that cannot sleep (see
// enterMayBlock). It goes through syscall.RawSyscall6, which skips the
// runtime's syscall bookkeeping (about 40 ns a call on the test machine) and
// keeps the P for the length of the call, as a short computation would.
func sysEnterNoWait(fd int, toSubmit, minComplete, flags uint32, arg unsafe.Pointer, argSz uintptr) (uintptr, syscall.Errno) {
	n, _, errno := syscall.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(fd), uintptr(toSubmit),
		uintptr(minComplete), uintptr(flags), uintptr(arg), argSz)
	return n, errno
}

// maxNoWaitSubmit bounds how many SQEs a raw (sysEnterNoWait) enter may
// submit. Inline submission never sleeps (the kernel issues with NONBLOCK
// and punts what would block to io-wq), but its length grows with the
// batch: 256 SQEs take about 20 us as NOPs and a few hundred us when each is
// punted to io-wq, well under the 10 ms the runtime lets a goroutine run
// before preempting it. Longer submits keep the runtime's hand-off: through
// Syscall6, a submit that lasts past sysmon's 20 us tick gets its P handed
// off, which cost about 15% CPU per NOP at batch 128 when the bound was 32.
const maxNoWaitSubmit = 256

// enterMayBlock reports whether io_uring_enter(toSubmit, minComplete,
// flags) on a ring with setup flags ringFlags may sleep or run long, so it
// must go through sysEnter. ready is how many CQEs the caller knows to be
// in the CQ already: only the ring's owner consumes CQEs, so a wait for no
// more than that returns at once (io_cqring_wait checks the CQ before it
// sleeps). IOPOLL waits poll the device in a loop, and SQ_WAIT and EXT_ARG
// (timeouts) are waits by nature.
func enterMayBlock(ringFlags, toSubmit, minComplete, flags, ready uint32) bool {
	switch {
	case toSubmit > maxNoWaitSubmit, flags&(EnterSQWait|EnterExtArg) != 0:
		return true
	case flags&EnterGetEvents == 0, minComplete == 0:
		return false
	case ringFlags&SetupIOPoll != 0:
		return true
	}
	return minComplete > ready
}

// rawWaitable reports whether an enter that may sleep can still skip the
// runtime's hand-off on a ring whose owner asked for raw waits: a GETEVENTS
// wait without a timeout, on a ring without IOPOLL, submitting no more than
// maxNoWaitSubmit SQEs. Such a wait sleeps in io_cqring_wait, which returns
// EINTR as soon as a signal is pending, so the runtime's preemption signal
// still gets the goroutine back within one delivery. IOPOLL waits spin on
// the device, and SQ_WAIT and EXT_ARG waits may last as long as the caller
// asked: those keep the hand-off.
func rawWaitable(ringFlags, toSubmit, flags uint32) bool {
	return toSubmit <= maxNoWaitSubmit && flags&(EnterSQWait|EnterExtArg) == 0 && ringFlags&SetupIOPoll == 0
}

// SetRawWaits makes the ring's own waits for completions (WaitCQE,
// WaitCQENr, SubmitAndWait and the like, without a timeout) go through
// syscall.RawSyscall6 instead of Syscall6, so the waiting thread keeps its
// P and the runtime does no entersyscall/exitsyscall bookkeeping around
// each wait. That bookkeeping is cheap, but a goroutine that never
// reschedules is found by sysmon every 10 ms and its P is retaken while it
// sleeps in the kernel, after which sysmon polls every 20 us for a while:
// about 5,000 extra wake-ups a second on a ring that waits for every I/O.
//
// Turn it on only from a goroutine locked to its OS thread, and only where
// GOMAXPROCS leaves a P for every other goroutine that must make progress
// while the ring waits: a raw wait holds its P until a completion or a
// signal (the runtime's preemption signal, every 10 ms at worst, interrupts
// it with EINTR and the wait is retried). Timed waits, SQ_WAIT and IOPOLL
// waits keep the hand-off (see rawWaitable).
func (r *Ring) SetRawWaits(on bool) { r.rawWaits = on }

// SetSubmitsBlock says the ring's I/O may sleep inside the submitting
// io_uring_enter (files without IOCB_NOWAIT, such as FUSE, are issued
// inline): every enter that submits then goes through the runtime's
// syscall hand-off, as a wait does, never a raw call that keeps the P.
func (r *Ring) SetSubmitsBlock(on bool) { r.submitsBlock = on }

// sysRegister is io_uring_register(2).
func sysRegister(fd int, opcode uint32, arg unsafe.Pointer, nrArgs uint32) (int, error) {
	n, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(fd), uintptr(opcode),
		uintptr(arg), uintptr(nrArgs), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
