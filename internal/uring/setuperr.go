package uring

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// SetupError is a failed io_uring_setup with the cause in words.
type SetupError struct {
	Entries uint32
	Flags   uint32
	Err     error  // the errno
	Reason  string // what it means here
	Flag    string // for EINVAL: the IORING_SETUP_* flag this kernel lacks, if one was found
	Fix     string // what the user can do about it, "" when there is nothing general to say
}

// Unavailable reports whether the error refuses io_uring as a whole (a
// sysctl, seccomp, a security module, a kernel without io_uring) rather
// than one flag or size: no ring can be set up on this host as it stands.
func (e *SetupError) Unavailable() bool {
	return errors.Is(e.Err, unix.EPERM) || errors.Is(e.Err, unix.ENOSYS)
}

// Error implements error.
func (e *SetupError) Error() string {
	flags := "none"
	if e.Flags != 0 {
		flags = strings.Join(FlagNames(e.Flags), "|")
	}
	msg := fmt.Sprintf("io_uring_setup(entries=%d, flags=%s): %s: %v", e.Entries, flags, e.Reason, e.Err)
	if e.Fix != "" {
		msg += "; fix: " + e.Fix
	}
	return msg
}

// Unwrap returns the errno.
func (e *SetupError) Unwrap() error { return e.Err }

// diagnoseSetup turns a setup errno into a SetupError that names the cause.
func (k Kernel) diagnoseSetup(entries uint32, p *Params, err error) error {
	e := &SetupError{Entries: entries, Flags: p.Flags, Err: err}
	switch {
	case errors.Is(err, unix.EPERM):
		e.Reason, e.Fix = k.explainEPERM()
	case errors.Is(err, unix.ENOSYS):
		if k.seccompState() == "seccomp filter active" {
			e.Reason = "io_uring is blocked by seccomp: the kernel lacks CONFIG_IO_URING, or a seccomp filter (seccomp filter active) answers ENOSYS, as custom container profiles do"
			e.Fix = fixSeccomp
		} else {
			e.Reason = fmt.Sprintf("io_uring is not available: the kernel lacks CONFIG_IO_URING (%s)", k.seccompState())
			e.Fix = "run on Linux 5.1 or later built with CONFIG_IO_URING=y, or add --fallback-engine=psync"
		}
	case errors.Is(err, unix.EINVAL):
		e.Reason, e.Flag = k.explainEINVAL(entries, p)
	case errors.Is(err, unix.ENOMEM):
		e.Reason = "the kernel could not allocate the rings (memory cgroup limit, or RLIMIT_MEMLOCK on kernels before 5.12)"
	case errors.Is(err, unix.EMFILE), errors.Is(err, unix.ENFILE):
		e.Reason = "out of file descriptors"
	case errors.Is(err, unix.EFAULT):
		e.Reason = "the kernel could not read the parameters"
	case errors.Is(err, unix.ENXIO):
		e.Reason = "ATTACH_WQ: wq_fd is not a live io_uring"
	default:
		e.Reason = "setup failed"
	}
	return e
}

// fixSeccomp is the fix for io_uring refused by a seccomp filter.
const fixSeccomp = "allow io_uring_setup, io_uring_enter and io_uring_register in the seccomp profile " +
	"(Kubernetes: deploy/kubernetes/seccomp-io_uring.json as a Localhost profile; Docker: --security-opt seccomp=that file), " +
	"or add --fallback-engine=psync"

// explainEPERM reads the sysctl and the seccomp mode so the message says
// which of them (or neither) refuses io_uring, and returns the fix.
func (k Kernel) explainEPERM() (reason, fix string) {
	disabled := "unknown"
	if b, err := k.readFile("/proc/sys/kernel/io_uring_disabled"); err == nil {
		disabled = strings.TrimSpace(string(b))
	}
	switch disabled {
	case "2":
		return "io_uring is disabled for everyone by sysctl kernel.io_uring_disabled=2",
			"as root, sysctl -w kernel.io_uring_disabled=0 (or =1 with kernel.io_uring_group), or add --fallback-engine=psync"
	case "1":
		group := "-1"
		if b, err := k.readFile("/proc/sys/kernel/io_uring_group"); err == nil {
			group = strings.TrimSpace(string(b))
		}
		return fmt.Sprintf("sysctl kernel.io_uring_disabled=1 allows io_uring only to CAP_SYS_ADMIN and group kernel.io_uring_group=%s", group),
			fmt.Sprintf("run as a member of group %s or with CAP_SYS_ADMIN, or as root sysctl -w kernel.io_uring_disabled=0, or add --fallback-engine=psync", group)
	}
	sec := k.seccompState()
	if sec == "seccomp filter active" {
		return fmt.Sprintf("io_uring is blocked by seccomp: kernel.io_uring_disabled=%s, so a seccomp filter (%s; Docker 25+ and containerd 2.0 block io_uring by default) or a security module refuses it",
			disabled, sec), fixSeccomp
	}
	return fmt.Sprintf("io_uring is not permitted: kernel.io_uring_disabled=%s, so a seccomp filter (%s; Docker 25+ and containerd 2.0 block io_uring by default) or a security module refuses it",
			disabled, sec),
		"look for an io_uring denial of SELinux or AppArmor in the audit log, or add --fallback-engine=psync"
}

// seccompState describes the process's seccomp mode from /proc/self/status.
func (k Kernel) seccompState() string {
	b, err := k.readFile("/proc/self/status")
	if err != nil {
		return "seccomp mode unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Seccomp:"); ok {
			switch strings.TrimSpace(v) {
			case "0":
				return "seccomp off"
			case "1":
				return "seccomp strict mode"
			case "2":
				return "seccomp filter active"
			}
		}
	}
	return "seccomp mode unknown"
}

// flagDeps lists, for each setup flag, what it needs to be tried alone.
var flagDeps = map[uint32]uint32{
	SetupSQAff:        SetupSQPoll,
	SetupTaskrunFlag:  SetupCoopTaskrun,
	SetupDeferTaskrun: SetupSingleIssuer,
	1 << 17:           SetupIOPoll, // HYBRID_IOPOLL
}

// explainEINVAL finds why the kernel refused: sizes out of range, a known
// bad combination, or a flag this kernel does not have (found by trying
// each flag alone on a tiny ring, through k.Setup).
func (k Kernel) explainEINVAL(entries uint32, p *Params) (reason, flag string) {
	f := p.Flags
	clamp := f&SetupClamp != 0
	switch {
	case entries == 0:
		return "entries must be at least 1", ""
	case entries > MaxEntries && !clamp:
		return fmt.Sprintf("entries %d is over the kernel's maximum %d (CLAMP would clamp it)", entries, MaxEntries), ""
	case p.Resv != [3]uint32{}:
		return "reserved Params fields must be zero", ""
	case f&SetupSQAff != 0 && f&SetupSQPoll == 0:
		return "SQ_AFF requires SQPOLL", "SQ_AFF"
	case f&SetupDeferTaskrun != 0 && f&SetupSingleIssuer == 0:
		return "DEFER_TASKRUN requires SINGLE_ISSUER", "DEFER_TASKRUN"
	case f&SetupTaskrunFlag != 0 && f&(SetupCoopTaskrun|SetupDeferTaskrun) == 0:
		return "TASKRUN_FLAG requires COOP_TASKRUN or DEFER_TASKRUN", "TASKRUN_FLAG"
	case f&SetupSQPoll != 0 && f&(SetupCoopTaskrun|SetupTaskrunFlag|SetupDeferTaskrun) != 0:
		return "SQPOLL cannot be combined with COOP_TASKRUN, TASKRUN_FLAG or DEFER_TASKRUN", "SQPOLL"
	case f&SetupAttachWQ != 0 && p.WQFd == 0:
		return "ATTACH_WQ needs wq_fd", "ATTACH_WQ"
	}
	if f&SetupCQSize != 0 {
		sq := roundPow2(min(entries, MaxEntries))
		switch {
		case p.CQEntries == 0:
			return "CQSIZE with cq_entries 0", "CQSIZE"
		case p.CQEntries > MaxCQEntries && !clamp:
			return fmt.Sprintf("cq_entries %d is over the kernel's maximum %d", p.CQEntries, MaxCQEntries), "CQSIZE"
		case p.CQEntries < sq:
			return fmt.Sprintf("cq_entries %d is smaller than the SQ size %d", p.CQEntries, sq), "CQSIZE"
		}
	}
	for bit := uint32(1); bit != 0; bit <<= 1 {
		if f&bit == 0 {
			continue
		}
		tp := Params{Flags: bit | flagDeps[bit]}
		if bit == SetupCQSize {
			tp.CQEntries = 4
		}
		if bit == SetupAttachWQ {
			continue // needs a live ring to try
		}
		if bit == SetupSQAff {
			tp.SQThreadCPU = p.SQThreadCPU
		}
		fd, err := k.setup(2, &tp)
		if err == nil {
			unix.Close(fd)
			continue
		}
		name := FlagNames(bit)[0]
		if bit == SetupSQAff && errors.Is(err, unix.EINVAL) {
			return fmt.Sprintf("sq_thread_cpu %d is offline or outside this process's allowed CPUs", p.SQThreadCPU), name
		}
		if errors.Is(err, unix.EINVAL) {
			return fmt.Sprintf("this kernel does not support IORING_SETUP_%s", name), name
		}
	}
	return "the kernel refused this combination of flags and sizes", ""
}

func roundPow2(v uint32) uint32 {
	n := uint32(1)
	for n < v {
		n <<= 1
	}
	return n
}
