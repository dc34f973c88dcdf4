package uring

import (
	"fmt"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// CQReady returns how many CQEs are ready to be consumed.
func (r *Ring) CQReady() uint32 {
	return atomicLoad(r.cq.ktail) - *r.cq.khead
}

// peek returns the CQE at the head and how many are ready, without a
// syscall. The tail is loaded with acquire semantics so the CQE contents are
// visible.
func (r *Ring) peek() (*CompletionQueueEvent, uint32) {
	cq := &r.cq
	head := *cq.khead
	avail := atomicLoad(cq.ktail) - head
	if avail == 0 {
		return nil, 0
	}
	return cq.cqeAt(head), avail
}

// CQAdvance marks n CQEs as consumed (store-release of the CQ head). Copy
// what you need out of them first: the kernel reuses the slots.
func (r *Ring) CQAdvance(n uint32) {
	if n > 0 {
		atomicStore(r.cq.khead, *r.cq.khead+n)
	}
}

// CQEAt returns the ready CQE i places past the head (0 is the head),
// without consuming it; i must be below CQReady's count. With CQReady and
// CQAdvance it lets a caller read CQEs in place, copying only what it
// keeps.
func (r *Ring) CQEAt(i uint32) *CompletionQueueEvent { return r.cq.cqeAt(*r.cq.khead + i) }

// CQESeen marks one CQE as consumed.
func (r *Ring) CQESeen(*CompletionQueueEvent) { r.CQAdvance(1) }

// PeekCQE returns the next CQE without waiting. With an empty CQ it makes
// no syscall and returns unix.EAGAIN, unless the kernel holds CQEs back
// (CQ_OVERFLOW, TASKRUN, or IOPOLL), in which case it enters once with
// GETEVENTS to flush them.
func (r *Ring) PeekCQE() (*CompletionQueueEvent, error) {
	if cqe, _ := r.peek(); cqe != nil {
		return cqe, nil
	}
	return r.getCQE(0, 0, nil, 0)
}

// PeekBatchCQE fills cqes with pointers to up to len(cqes) ready CQEs and
// returns how many. Like PeekCQE it enters the kernel only when CQEs are
// held back. Call CQAdvance with the count once they are consumed.
func (r *Ring) PeekBatchCQE(cqes []*CompletionQueueEvent) uint32 {
	ready := r.CQReady()
	if ready == 0 && r.cqNeedsEnter() {
		r.GetEvents()
		ready = r.CQReady()
	}
	dst := cqes[:min(int(ready), len(cqes))]
	cq := &r.cq
	head := *cq.khead
	for i := range dst {
		dst[i] = cq.cqeAt(head + uint32(i))
	}
	return uint32(len(dst))
}

// CopyCQEs copies up to len(out) ready CQEs into out, advances the CQ head
// past them and returns how many. It makes no syscall and does not
// allocate.
func (r *Ring) CopyCQEs(out []CompletionQueueEvent) int {
	cq := &r.cq
	head := *cq.khead
	dst := out[:min(int(atomicLoad(cq.ktail)-head), len(out))]
	for i := range dst {
		dst[i] = *cq.cqeAt(head + uint32(i))
	}
	if len(dst) > 0 {
		atomicStore(cq.khead, head+uint32(len(dst)))
	}
	return len(dst)
}

// WaitCQE waits for one CQE and returns it (not consumed). When one is
// ready it returns it inline, with no call and no syscall.
func (r *Ring) WaitCQE() (*CompletionQueueEvent, error) {
	if cqe, _ := r.peek(); cqe != nil {
		return cqe, nil
	}
	return r.getCQE(0, 1, nil, 0)
}

// WaitCQENr waits until at least waitNr CQEs are ready and returns the
// first. EINTR is retried. Overflowed CQEs are flushed on the way. An EBADR
// from the kernel (CQEs dropped) is returned as an error wrapping
// ErrCQEDropped.
func (r *Ring) WaitCQENr(waitNr uint32) (*CompletionQueueEvent, error) {
	if cqe, avail := r.peek(); cqe != nil && avail >= waitNr {
		return cqe, nil
	}
	return r.getCQE(0, waitNr, nil, 0)
}

// WaitCQETimeout waits up to d for one CQE using EXT_ARG (5.11+). It
// returns unix.ETIME when none arrived in time.
func (r *Ring) WaitCQETimeout(d time.Duration) (*CompletionQueueEvent, error) {
	if r.features&FeatExtArg == 0 {
		return nil, fmt.Errorf("io_uring: wait with timeout needs FEAT_EXT_ARG (5.11): %w", unix.EOPNOTSUPP)
	}
	r.waitTS = unix.NsecToTimespec(int64(d))
	r.waitArg = geteventsArg{SigmaskSz: 8, Ts: uint64(uintptr(unsafe.Pointer(&r.waitTS)))}
	return r.getCQE(0, 1, unsafe.Pointer(&r.waitArg), unsafe.Sizeof(r.waitArg))
}

// GetEvents enters with GETEVENTS and min_complete 0: it runs
// DEFER_TASKRUN task work (only the submitter thread may) and flushes the
// overflow list, without waiting.
func (r *Ring) GetEvents() error {
	for {
		_, errno := r.enter(0, 0, EnterGetEvents, atomicLoad(r.sq.kflags), nil, 0)
		if errno == unix.EINTR {
			r.stats.Retries++
			continue
		}
		if errno != 0 {
			return fmt.Errorf("io_uring_enter(GETEVENTS): %w", r.enterErr(errno))
		}
		return nil
	}
}

// getCQE is liburing's _io_uring_get_cqe: it enters only when it has to
// (waitNr more than ready, or held-back CQEs), retries EINTR, and returns
// EAGAIN for a peek that finds nothing. sq_flags is loaded once per round,
// and only when the CQ alone cannot answer.
func (r *Ring) getCQE(submit, waitNr uint32, arg unsafe.Pointer, argSz uintptr) (*CompletionQueueEvent, error) {
	looped := false
	for {
		cqe, avail := r.peek()
		if cqe != nil && waitNr <= avail && submit == 0 {
			return cqe, nil // the common case: no flags to look at
		}
		sqFlags := atomicLoad(r.sq.kflags)
		var flags uint32
		needEnter := false
		if cqe == nil && waitNr == 0 && submit == 0 {
			if looped || !r.cqNeedsEnterFlags(sqFlags) {
				return nil, unix.EAGAIN
			}
			needEnter = true
		}
		if waitNr > avail || needEnter {
			flags = EnterGetEvents
			needEnter = true
		}
		if r.sqNeedsEnter(submit, sqFlags, &flags) {
			needEnter = true
		}
		if !needEnter {
			return cqe, nil
		}
		if arg != nil {
			flags |= EnterExtArg
		}
		n, errno := r.enter(submit, waitNr, flags, sqFlags, arg, argSz)
		switch errno {
		case 0:
		case unix.EINTR:
			r.stats.Retries++
			continue
		case unix.ETIME:
			return nil, unix.ETIME
		default:
			err := r.enterErr(errno)
			if errno == unix.EBADR {
				return nil, err
			}
			return nil, fmt.Errorf("io_uring_enter(wait=%d): %w", waitNr, err)
		}
		submit -= min(n, submit)
		if cqe != nil {
			return cqe, nil
		}
		looped = true
	}
}
