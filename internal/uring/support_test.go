package uring

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestProbeSupportRealKernel probes the running kernel: io_uring either
// works, with the plain flags accepted, or the probe says why not.
func TestProbeSupportRealKernel(t *testing.T) {
	s := ProbeSupport()
	if !s.Available() {
		var se *SetupError
		if !errors.As(s.Err, &se) || se.Reason == "" {
			t.Fatalf("unavailable without a reason: %v", s.Err)
		}
		t.Skipf("io_uring unavailable here: %v", s.Err)
	}
	if len(s.Accepted)+len(s.Refused) == 0 {
		t.Fatal("no flag was tried")
	}
	for _, f := range []string{"IOPOLL", "CQSIZE", "CLAMP"} { // all in 5.1..5.6
		if !contains(s.Accepted, f) {
			t.Errorf("%s not accepted: accepted %v, refused %v", f, s.Accepted, s.Refused)
		}
	}
	for _, f := range []string{"ATTACH_WQ", "NO_MMAP", "REGISTERED_FD_ONLY"} {
		if contains(s.Accepted, f) || contains(s.Refused, f) {
			t.Errorf("%s was tried; it needs more than a tiny ring", f)
		}
	}
}

// TestProbeSupportFake drives the probe through a stand-in Kernel: a
// kernel that refuses DEFER_TASKRUN and denies SQPOLL, and one that
// refuses io_uring altogether.
func TestProbeSupportFake(t *testing.T) {
	k := Kernel{Setup: func(_ uint32, p *Params) (int, error) {
		switch {
		case p.Flags&SetupDeferTaskrun != 0, p.Flags >= 1<<16:
			return -1, unix.EINVAL
		case p.Flags&SetupSQPoll != 0:
			return -1, unix.EPERM
		}
		p.Features = FeatSingleMmap | FeatNoDrop
		return SysSetup(2, &Params{})
	}}
	s := k.ProbeSupport()
	if !s.Available() {
		t.Fatalf("unavailable: %v", s.Err)
	}
	if s.SQPollUnprivileged() || s.SQPollNeedsNice() {
		t.Error("SQPOLL privilege read from features that have neither SQPOLL_NONFIXED nor RSRC_TAGS")
	}
	if !errors.Is(s.SQPollDenied, unix.EPERM) {
		t.Errorf("SQPollDenied = %v, want EPERM", s.SQPollDenied)
	}
	if !contains(s.Refused, "DEFER_TASKRUN") || !contains(s.Refused, "NO_SQARRAY") || contains(s.Accepted, "DEFER_TASKRUN") {
		t.Errorf("accepted %v, refused %v", s.Accepted, s.Refused)
	}
	if !contains(s.Accepted, "SINGLE_ISSUER") {
		t.Errorf("SINGLE_ISSUER not accepted: %v", s.Accepted)
	}

	s = Kernel{Setup: func(uint32, *Params) (int, error) { return -1, unix.ENOSYS }}.ProbeSupport()
	if s.Available() || !strings.Contains(s.Err.Error(), "seccomp") {
		t.Errorf("ENOSYS: Err = %v, want the seccomp cause", s.Err)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
