package uring

import (
	"errors"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// procFiles returns a Kernel.ReadFile that serves /proc reads from files.
func procFiles(files map[string]string) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if v, ok := files[name]; ok {
			return []byte(v), nil
		}
		return nil, os.ErrNotExist
	}
}

// TestSetupErrorWords checks each refusal is explained in words.
func TestSetupErrorWords(t *testing.T) {
	tests := []struct {
		name  string
		errno unix.Errno
		proc  map[string]string
		want  []string
	}{
		// sysctl set to 2: nobody may use io_uring.
		{"disabled=2", unix.EPERM, map[string]string{"/proc/sys/kernel/io_uring_disabled": "2\n"},
			[]string{"kernel.io_uring_disabled=2", "fix: as root, sysctl -w kernel.io_uring_disabled=0", "--fallback-engine=psync"}},
		// sysctl set to 1: only admins and the group.
		{"disabled=1", unix.EPERM, map[string]string{"/proc/sys/kernel/io_uring_disabled": "1\n", "/proc/sys/kernel/io_uring_group": "42\n"},
			[]string{"kernel.io_uring_disabled=1", "io_uring_group=42", "fix: run as a member of group 42"}},
		// container: sysctl allows it, a seccomp filter refuses.
		{"seccomp EPERM", unix.EPERM, map[string]string{"/proc/sys/kernel/io_uring_disabled": "0\n", "/proc/self/status": "Name:\tx\nSeccomp:\t2\n"},
			[]string{"io_uring is blocked by seccomp", "kernel.io_uring_disabled=0", "seccomp filter active", "fix: allow io_uring_setup", "seccomp-io_uring.json"}},
		// no seccomp, no sysctl: a security module.
		{"LSM EPERM", unix.EPERM, map[string]string{"/proc/sys/kernel/io_uring_disabled": "0\n", "/proc/self/status": "Seccomp:\t0\n"},
			[]string{"io_uring is not permitted", "seccomp off", "fix: look for an io_uring denial"}},
		// custom seccomp profile answering ENOSYS.
		{"seccomp ENOSYS", unix.ENOSYS, map[string]string{"/proc/self/status": "Seccomp:\t2\n"},
			[]string{"io_uring is blocked by seccomp", "CONFIG_IO_URING", "seccomp filter active", "fix: allow io_uring_setup"}},
		// a kernel built without io_uring.
		{"old kernel", unix.ENOSYS, map[string]string{"/proc/self/status": "Seccomp:\t0\n"},
			[]string{"io_uring is not available", "CONFIG_IO_URING", "fix: run on Linux 5.1 or later"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := Kernel{
				Setup:    func(uint32, *Params) (int, error) { return -1, tt.errno },
				ReadFile: procFiles(tt.proc),
			}
			err := NewRingOn(k).QueueInit(8, 0)
			var se *SetupError
			if !errors.As(err, &se) || !errors.Is(err, tt.errno) {
				t.Fatalf("got %v, want a SetupError wrapping %v", err, tt.errno)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
}

// TestSetupEINVALNamesFlag checks a flag this kernel lacks is named: a fake
// kernel refuses NO_SQARRAY, the real one answers the rest.
func TestSetupEINVALNamesFlag(t *testing.T) {
	k := Kernel{Setup: func(e uint32, p *Params) (int, error) {
		if p.Flags&SetupNoSQArray != 0 {
			return -1, unix.EINVAL
		}
		return SysSetup(e, p)
	}}
	err := NewRingOn(k).QueueInit(8, SetupCoopTaskrun|SetupNoSQArray)
	var se *SetupError
	if !errors.As(err, &se) || se.Flag != "NO_SQARRAY" || !strings.Contains(err.Error(), "does not support IORING_SETUP_NO_SQARRAY") {
		t.Fatalf("got %v", err)
	}
}

// TestSetupEINVALRealKernel names causes the real kernel refuses.
func TestSetupEINVALRealKernel(t *testing.T) {
	tests := []struct {
		name    string
		entries uint32
		p       Params
		want    string
	}{
		{"zero entries", 0, Params{}, "at least 1"},
		{"too many", 65536, Params{}, "maximum 32768"},
		{"SQ_AFF alone", 8, Params{Flags: SetupSQAff}, "SQ_AFF requires SQPOLL"},
		{"DEFER alone", 8, Params{Flags: SetupDeferTaskrun}, "requires SINGLE_ISSUER"},
		{"SQPOLL+COOP", 8, Params{Flags: SetupSQPoll | SetupCoopTaskrun}, "SQPOLL cannot be combined"},
		{"CQ smaller than SQ", 8, Params{Flags: SetupCQSize, CQEntries: 4}, "smaller than the SQ size 8"},
		{"offline cpu", 8, Params{Flags: SetupSQPoll | SetupSQAff, SQThreadCPU: 4000}, "sq_thread_cpu 4000"},
		{"unknown bit", 8, Params{Flags: 1 << 30}, "does not support IORING_SETUP_bit 30"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			err := NewRing().QueueInitParams(tt.entries, &p)
			if !errors.Is(err, unix.EINVAL) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want EINVAL mentioning %q", err, tt.want)
			}
		})
	}
}

// TestQueueInitFallback drops flag groups in fio's order on a fake kernel
// that lacks DEFER_TASKRUN and COOP_TASKRUN, and reports them.
func TestQueueInitFallback(t *testing.T) {
	r := NewRingOn(Kernel{Setup: func(e uint32, p *Params) (int, error) {
		if p.Flags&(SetupDeferTaskrun|SetupCoopTaskrun|SetupTaskrunFlag) != 0 {
			return -1, unix.EINVAL
		}
		return SysSetup(e, p)
	}})
	p := Params{Flags: SetupCQSize | SetupCoopTaskrun | SetupTaskrunFlag | SetupSingleIssuer | SetupDeferTaskrun, CQEntries: 64}
	dropped, err := r.QueueInitFallback(16, &p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.QueueExit()
	if got := strings.Join(dropped, ","); got != "DEFER_TASKRUN+SINGLE_ISSUER,COOP_TASKRUN" {
		t.Fatalf("dropped %s", got)
	}
	if r.Flags() != SetupCQSize || r.CQEntries() != 64 {
		t.Fatalf("kept flags %v, cq %d", FlagNames(r.Flags()), r.CQEntries())
	}
}

// TestQueueInitFallbackStopsOnEPERM: only EINVAL falls back.
func TestQueueInitFallbackStopsOnEPERM(t *testing.T) {
	calls := 0
	k := Kernel{Setup: func(uint32, *Params) (int, error) { calls++; return -1, unix.EPERM }}
	p := Params{Flags: SetupCoopTaskrun}
	dropped, err := NewRingOn(k).QueueInitFallback(8, &p)
	if !errors.Is(err, unix.EPERM) || len(dropped) != 0 || calls != 1 {
		t.Fatalf("err %v, dropped %v, calls %d", err, dropped, calls)
	}
}
