package uring

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

func atomicLoad(p *uint32) uint32     { return atomic.LoadUint32(p) }
func atomicStore(p *uint32, v uint32) { atomic.StoreUint32(p, v) }

// ErrCQEDropped is wrapped by errors from calls whose io_uring_enter
// returned EBADR: the kernel had to drop CQEs (its overflow list could not
// allocate). errors.Is(err, unix.EBADR) holds too.
var ErrCQEDropped = fmt.Errorf("io_uring: completion queue overflowed and the kernel dropped CQEs: %w", unix.EBADR)

// maxEAgainRetries bounds how often an enter that submitted nothing with
// EAGAIN is retried before the error goes back to the caller.
const maxEAgainRetries = 64

// FlushSQ publishes the prepared SQEs to the kernel by storing the SQ tail
// with release semantics, and returns how many SQEs the kernel has not
// consumed yet. It makes no syscall.
func (r *Ring) FlushSQ() uint32 {
	sq := &r.sq
	tail := sq.sqeTail
	if sq.sqeHead != tail {
		sq.sqeHead = tail
		atomicStore(sq.ktail, tail)
	}
	return tail - atomicLoad(sq.khead)
}

// SQPending returns how many published SQEs the kernel has not consumed.
// Unlike most methods it may be called from any goroutine.
func (r *Ring) SQPending() uint32 {
	return atomicLoad(r.sq.ktail) - atomicLoad(r.sq.khead)
}

// SQFlags returns the shared sq_flags word (SQNeedWakeup, SQCQOverflow,
// SQTaskrun).
func (r *Ring) SQFlags() uint32 { return atomicLoad(r.sq.kflags) }

// SQNeedsWakeup reports whether the SQPOLL thread is asleep.
func (r *Ring) SQNeedsWakeup() bool { return r.SQFlags()&SQNeedWakeup != 0 }

// CQHasOverflow reports whether CQEs wait in the kernel's overflow list.
func (r *Ring) CQHasOverflow() bool { return r.SQFlags()&SQCQOverflow != 0 }

// SQDropped returns the kernel's count of invalid SQ entries it skipped.
func (r *Ring) SQDropped() uint32 { return atomicLoad(r.sq.kdropped) }

// CQOverflowCount returns the kernel's count of CQEs it had to drop.
func (r *Ring) CQOverflowCount() uint32 { return atomicLoad(r.cq.koverflow) }

// cqNeedsFlush reports whether only an enter can make CQEs visible: the
// overflow list is non-empty or task work is pending (liburing
// cq_ring_needs_flush).
func (r *Ring) cqNeedsFlush() bool {
	return atomicLoad(r.sq.kflags)&(SQCQOverflow|SQTaskrun) != 0
}

// cqNeedsEnter adds IOPOLL without SQPOLL, where completions are only
// found by entering (liburing cq_ring_needs_enter).
func (r *Ring) cqNeedsEnter() bool {
	return r.flags&(SetupIOPoll|SetupSQPoll) == SetupIOPoll || r.cqNeedsFlush()
}

// sqNeedsEnter reports whether submitting needs a syscall and adds
// SQ_WAKEUP to flags when the SQPOLL thread sleeps. The tail was stored with
// a sequentially consistent atomic before this load, which gives the full
// barrier the SQPOLL protocol needs.
func (r *Ring) sqNeedsEnter(submit uint32, flags *uint32) bool {
	if submit == 0 {
		return false
	}
	if r.flags&SetupSQPoll == 0 {
		return true
	}
	if atomicLoad(r.sq.kflags)&SQNeedWakeup != 0 {
		*flags |= EnterSQWakeup
		return true
	}
	return false
}

// enter calls io_uring_enter on the ring (through the registered index when
// RegisterRingFd was used) and counts the call.
func (r *Ring) enter(toSubmit, minComplete, flags uint32, arg unsafe.Pointer, argSz uintptr) (uint32, error) {
	fd := r.fd
	if r.intFlags&intFlagRegRing != 0 {
		fd = r.enterFd
		flags |= EnterRegisteredRing
	}
	if flags&EnterExtArg == 0 {
		argSz = 8 // _NSIG/8 for a (nil) sigset
	}
	r.stats.Enters++
	if toSubmit > 0 {
		r.stats.SubmitEnters++
	}
	if flags&EnterGetEvents != 0 {
		r.stats.WaitEnters++
		if atomicLoad(r.sq.kflags)&SQCQOverflow != 0 {
			r.stats.OverflowFlushes++
		}
	}
	if flags&EnterSQWakeup != 0 {
		r.stats.WakeupEnters++
	}
	n, err := sysEnter(fd, toSubmit, minComplete, flags, arg, argSz)
	if err == unix.EBADR {
		r.stats.DroppedReports++
		return n, fmt.Errorf("%w (%d dropped in total)", ErrCQEDropped, r.CQOverflowCount())
	}
	return n, err
}

// Enter is the raw io_uring_enter(2) with a nil signal mask, for callers
// that drive the protocol themselves (for example a submitting helper
// thread). It does not update Stats and may be called from any goroutine
// unless the ring is SINGLE_ISSUER or uses a registered ring fd.
func (r *Ring) Enter(toSubmit, minComplete, flags uint32) (uint32, error) {
	return sysEnter(r.fd, toSubmit, minComplete, flags, nil, 8)
}

// Submit publishes the prepared SQEs and submits them (io_uring_submit).
// Without SQPOLL it enters the kernel, looping on a partial submit. With
// SQPOLL it makes no syscall unless the thread sleeps (then SQ_WAKEUP). It
// also enters when the CQ needs a flush (overflow or pending task work). It
// returns how many SQEs were submitted.
func (r *Ring) Submit() (uint, error) {
	return r.submit(r.FlushSQ(), 0, false)
}

// SubmitAndWait is Submit plus waiting for at least waitNr CQEs in the same
// syscall (io_uring_submit_and_wait). If the wait is interrupted after
// something was submitted, it returns the submit count and no error: do not
// assume waitNr CQEs are ready.
func (r *Ring) SubmitAndWait(waitNr uint32) (uint, error) {
	return r.submit(r.FlushSQ(), waitNr, false)
}

// SubmitAndGetEvents submits and always enters with GETEVENTS, which runs
// DEFER_TASKRUN work and flushes overflow.
func (r *Ring) SubmitAndGetEvents() (uint, error) {
	return r.submit(r.FlushSQ(), 0, true)
}

// submit implements liburing's __io_uring_submit plus the retry rules: a
// partial submit loops for the rest, EINTR is retried, EAGAIN is retried a
// bounded number of times (or returned at once if CQEs are ready to reap).
func (r *Ring) submit(submitted, waitNr uint32, getEvents bool) (uint, error) {
	var done uint
	eagain := 0
	for {
		var flags uint32
		cqEnter := getEvents || waitNr > 0 || r.cqNeedsEnter()
		if !r.sqNeedsEnter(submitted, &flags) && !cqEnter {
			return done + uint(submitted), nil
		}
		if cqEnter {
			flags |= EnterGetEvents
		}
		n, err := r.enter(submitted, waitNr, flags, nil, 0)
		switch {
		case err == nil:
		case errors.Is(err, unix.EINTR):
			r.stats.Retries++
			continue
		case errors.Is(err, unix.EAGAIN) && eagain < maxEAgainRetries:
			if r.CQReady() > 0 {
				return done, nil // let the caller reap, then submit again
			}
			eagain++
			r.stats.Retries++
			runtime.Gosched()
			continue
		default:
			return done, fmt.Errorf("io_uring_enter(submit=%d, wait=%d): %w", submitted, waitNr, err)
		}
		done += uint(n)
		if r.flags&SetupSQPoll != 0 || n >= submitted || n == 0 {
			return done, nil
		}
		submitted -= n // partial submit: the rest stay in the SQ
		getEvents = false
	}
}

// SQRingWait blocks until the SQPOLL thread has consumed at least one SQE
// (io_uring_sqring_wait), waking it if it sleeps. Without SQPOLL it returns
// at once.
func (r *Ring) SQRingWait() error {
	if r.flags&SetupSQPoll == 0 || r.SQSpaceLeft() > 0 {
		return nil
	}
	for {
		flags := EnterSQWait
		if r.SQNeedsWakeup() {
			flags |= EnterSQWakeup
		}
		_, err := r.enter(0, 0, flags, nil, 0)
		if errors.Is(err, unix.EINTR) {
			r.stats.Retries++
			continue
		}
		if err != nil {
			return fmt.Errorf("io_uring_enter(SQ_WAIT): %w", err)
		}
		return nil
	}
}

// EnableRings enables a ring created with SetupRDisabled; the calling
// thread becomes the SINGLE_ISSUER submitter.
func (r *Ring) EnableRings() error {
	_, err := sysRegister(r.fd, registerEnableRings, nil, 0)
	if err != nil {
		return fmt.Errorf("io_uring_register(ENABLE_RINGS): %w", err)
	}
	return nil
}
