package uring

import (
	"errors"

	"golang.org/x/sys/unix"
)

// FallbackGroup is a set of setup flags dropped together when the kernel
// refuses them with EINVAL.
type FallbackGroup struct {
	Name  string
	Flags uint32
}

// defaultFallbacks is fio's order of optional flag groups (engines/io_uring.c
// fio_ioring_queue_init), preceded by NO_SQARRAY, which needs nothing from
// the caller: DEFER_TASKRUN with SINGLE_ISSUER, then COOP_TASKRUN, then
// CQSIZE.
var defaultFallbacks = []FallbackGroup{
	{Name: "NO_SQARRAY", Flags: SetupNoSQArray},
	{Name: "DEFER_TASKRUN+SINGLE_ISSUER", Flags: SetupDeferTaskrun | SetupSingleIssuer},
	{Name: "COOP_TASKRUN", Flags: SetupCoopTaskrun},
	{Name: "CQSIZE", Flags: SetupCQSize},
}

// QueueInitFallback is QueueInitParams that, when the kernel answers
// EINVAL, drops the groups of defaultFallbacks present in p.Flags one at a
// time, in order, and retries. It returns the names of the groups it
// dropped (so the caller can report them) and p holds what the kernel
// accepted. Other errors end the attempt at once.
func (r *Ring) QueueInitFallback(entries uint32, p *Params) ([]string, error) {
	return r.QueueInitGroups(entries, p, defaultFallbacks)
}

// QueueInitGroups is QueueInitFallback with the caller's own groups.
func (r *Ring) QueueInitGroups(entries uint32, p *Params, groups []FallbackGroup) ([]string, error) {
	var dropped []string
	want := *p
	err := r.QueueInitParams(entries, p)
	for _, g := range groups {
		if err == nil || !errors.Is(err, unix.EINVAL) {
			break
		}
		if want.Flags&g.Flags == 0 {
			continue
		}
		want.Flags &^= g.Flags
		if want.Flags&(SetupCoopTaskrun|SetupDeferTaskrun) == 0 {
			want.Flags &^= SetupTaskrunFlag // it needs one of them
		}
		if want.Flags&SetupCQSize == 0 {
			want.CQEntries = 0
		}
		dropped = append(dropped, g.Name)
		*p = want
		err = r.QueueInitParams(entries, p)
	}
	return dropped, err
}
