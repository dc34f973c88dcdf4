package uring

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Support is what this kernel offers io_uring callers, found by setting up
// tiny rings: whether io_uring works at all, its feature bits, and which
// setup flags it accepts.
type Support struct {
	// Err is the failed plain io_uring_setup, a *SetupError that names the
	// cause; nil when io_uring works.
	Err error
	// Features are the IORING_FEAT_* bits of a plain ring.
	Features uint32
	// Accepted and Refused name the IORING_SETUP_* flags a tiny ring was set
	// up with, or refused (with EINVAL), each tried alone with the flags it
	// needs (DEFER_TASKRUN with SINGLE_ISSUER, ...). ATTACH_WQ, NO_MMAP and
	// REGISTERED_FD_ONLY need more than a tiny ring and are not tried.
	Accepted, Refused []string
	// SQPollDenied is the errno of an SQPOLL setup refused for lack of
	// privilege (EPERM), nil when SQPOLL was allowed or not tried.
	SQPollDenied error
}

// Available reports whether io_uring_setup works here.
func (s *Support) Available() bool { return s.Err == nil }

// SQPollUnprivileged reports whether the kernel lets a process without
// privilege use SQPOLL: Linux 5.13 and later (io_uring_setup(2); 5.11 and
// 5.12 still want CAP_SYS_NICE). IORING_FEAT_RSRC_TAGS came in 5.13 and
// marks it.
func (s *Support) SQPollUnprivileged() bool { return s.Features&FeatRsrcTags != 0 }

// SQPollNeedsNice reports a kernel (5.11, 5.12) whose SQPOLL wants
// CAP_SYS_NICE rather than root.
func (s *Support) SQPollNeedsNice() bool {
	return s.Features&FeatSQPollNonfixed != 0 && !s.SQPollUnprivileged()
}

// untriedFlags are the setup flags ProbeSupport leaves out: each needs a
// live ring or application memory to try.
const untriedFlags = SetupAttachWQ | SetupNoMmap | SetupRegisteredFdOnly

// ProbeSupport sets up tiny rings to find what the running kernel
// supports. It closes every ring it opens.
func ProbeSupport() *Support { return Kernel{}.ProbeSupport() }

// ProbeSupport is the package's ProbeSupport on k.
func (k Kernel) ProbeSupport() *Support {
	s := &Support{}
	p := Params{}
	fd, err := k.setup(2, &p)
	if err != nil {
		s.Err = k.diagnoseSetup(2, &p, err)
		return s
	}
	s.Features = p.Features
	unix.Close(fd)
	for i, name := range setupFlagNames {
		bit := uint32(1) << i
		if bit&untriedFlags != 0 {
			continue
		}
		tp := Params{Flags: bit | flagDeps[bit]}
		if bit == SetupCQSize {
			tp.CQEntries = 4
		}
		fd, err := k.setup(2, &tp)
		switch {
		case err == nil:
			unix.Close(fd)
			s.Accepted = append(s.Accepted, name)
		case bit == SetupSQPoll && errors.Is(err, unix.EPERM):
			s.SQPollDenied = err
			s.Refused = append(s.Refused, name)
		default:
			s.Refused = append(s.Refused, name)
		}
	}
	return s
}

// CheckAvailable sets up one plain tiny ring on k and closes it: nil when
// io_uring works here, else the *SetupError that names the cause and fix.
func (k Kernel) CheckAvailable() error {
	p := Params{}
	fd, err := k.setup(2, &p)
	if err != nil {
		return k.diagnoseSetup(2, &p, err)
	}
	unix.Close(fd)
	return nil
}
