package uring

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"syscall"
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

// cqNeedsEnter adds IOPOLL without SQPOLL, where completions are only
// found by entering (liburing cq_ring_needs_enter).
func (r *Ring) cqNeedsEnter() bool {
	return r.cqNeedsEnterFlags(atomicLoad(r.sq.kflags))
}

// cqNeedsEnterFlags is cqNeedsEnter on an sq_flags word already loaded.
func (r *Ring) cqNeedsEnterFlags(sqFlags uint32) bool {
	return r.flags&(SetupIOPoll|SetupSQPoll) == SetupIOPoll || sqFlags&(SQCQOverflow|SQTaskrun) != 0
}

// sqNeedsEnter reports whether submitting needs a syscall and adds
// SQ_WAKEUP to flags when the SQPOLL thread sleeps. sqFlags must have been
// loaded after the SQ tail was stored: both are sequentially consistent
// atomics, which gives the full barrier the SQPOLL protocol needs.
func (r *Ring) sqNeedsEnter(submit, sqFlags uint32, flags *uint32) bool {
	if submit == 0 {
		return false
	}
	if r.flags&SetupSQPoll == 0 {
		return true
	}
	if sqFlags&SQNeedWakeup != 0 {
		*flags |= EnterSQWakeup
		return true
	}
	return false
}

// enter calls io_uring_enter on the ring (through the registered index
// after RegisterRingFd) and counts the call. sqFlags is the sq_flags word
// the caller decided on. An enter that cannot sleep (enterMayBlock) skips
// the runtime's syscall hand-off, and so does a wait after SetRawWaits.
// EBADR (CQEs dropped) is counted here; turn errno into an error with
// enterErr.
func (r *Ring) enter(toSubmit, minComplete, flags, sqFlags uint32, arg unsafe.Pointer, argSz uintptr) (uint32, unix.Errno) {
	flags |= r.enterFlags
	if flags&EnterExtArg == 0 {
		argSz = 8 // _NSIG/8 for a (nil) sigset
	}
	st := &r.stats
	st.Enters++
	if toSubmit > 0 {
		st.SubmitEnters++
	}
	ready := uint32(0)
	if flags&EnterGetEvents != 0 {
		st.WaitEnters++
		if sqFlags&SQCQOverflow != 0 {
			st.OverflowFlushes++
		}
		if minComplete > 0 {
			ready = r.CQReady()
		}
	}
	if flags&EnterSQWakeup != 0 {
		st.WakeupEnters++
	}
	// The syscalls are spelled out rather than called through sysEnter and
	// sysEnterNoWait, which are just over the compiler's inlining budget.
	var n uintptr
	var errno unix.Errno
	submitBlocks := r.submitsBlock && toSubmit > 0
	blocking := submitBlocks || enterMayBlock(r.flags, toSubmit, minComplete, flags, ready)
	if blocking && !submitBlocks && r.rawWaits && rawWaitable(r.flags, toSubmit, flags) {
		st.RawWaitEnters++
		blocking = false
	} else if !blocking {
		st.NoWaitEnters++
	}
	if blocking {
		n, _, errno = syscall.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.enterFd), uintptr(toSubmit),
			uintptr(minComplete), uintptr(flags), uintptr(arg), argSz)
	} else {
		n, _, errno = syscall.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.enterFd), uintptr(toSubmit),
			uintptr(minComplete), uintptr(flags), uintptr(arg), argSz)
	}
	if errno == unix.EBADR {
		st.DroppedReports++
	}
	return uint32(n), errno
}

// enterErr turns a failed enter's errno into an error: EBADR becomes one
// that wraps ErrCQEDropped with the kernel's drop count.
func (r *Ring) enterErr(errno unix.Errno) error {
	if errno == unix.EBADR {
		return fmt.Errorf("%w (%d dropped in total)", ErrCQEDropped, r.CQOverflowCount())
	}
	return errno
}

// Enter is the raw io_uring_enter(2) with a nil signal mask, for callers
// that drive the protocol themselves (for example a submitting helper
// thread). It does not update Stats and may be called from any goroutine
// unless the ring is SINGLE_ISSUER or uses a registered ring fd. Like the
// ring's own enters, one that cannot sleep (no wait, at most 256 SQEs)
// skips the runtime's syscall hand-off.
func (r *Ring) Enter(toSubmit, minComplete, flags uint32) (uint32, error) {
	var n uintptr
	var errno unix.Errno
	if enterMayBlock(r.flags, toSubmit, minComplete, flags, 0) {
		n, errno = sysEnter(r.fd, toSubmit, minComplete, flags, nil, 8)
	} else {
		n, errno = sysEnterNoWait(r.fd, toSubmit, minComplete, flags, nil, 8)
	}
	if errno != 0 {
		return uint32(n), errno
	}
	return uint32(n), nil
}

// Submit publishes the prepared SQEs and submits them (io_uring_submit).
// Without SQPOLL it enters the kernel, looping on a partial submit. With
// SQPOLL it makes no syscall unless the thread sleeps (then SQ_WAKEUP). It
// also enters when the CQ needs a flush (overflow or pending task work). It
// returns how many SQEs were submitted.
func (r *Ring) Submit() (uint, error) {
	return r.submit(r.FlushSQ(), 0, false)
}

// SubmitAndWait is Submit plus waiting for at least waitNr CQEs
// (io_uring_submit_and_wait). Like liburing it submits and waits in one
// syscall, except while the ring's SQEs complete inline (see submit), where
// the submitting enter alone is enough. If the wait is interrupted after
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
// It loads sq_flags once per enter, after FlushSQ stored the tail.
//
// A submit that must also wait (waitNr > 0) may be split, as waitPredictor
// decides: the SQEs go in alone on the raw path, and the blocking wait
// follows only if they did not complete inside that enter. Ops that
// complete inline (NOPs, reads served from the page cache) then cost one
// enter without the runtime's hand-off; ops that go async cost one blocking
// enter, as in liburing, plus a raw one each time the split is retried.
// After SetRawWaits there is no hand-off to save, so it never splits.
func (r *Ring) submit(submitted, waitNr uint32, getEvents bool) (uint, error) {
	var done uint
	eagain := 0
	for {
		var flags uint32
		sqFlags := atomicLoad(r.sq.kflags)
		cqFlush := r.cqNeedsEnterFlags(sqFlags)
		cqEnter := getEvents || waitNr > 0 || cqFlush
		if !r.sqNeedsEnter(submitted, sqFlags, &flags) && !cqEnter {
			return done + uint(submitted), nil
		}
		wait := waitNr
		split := waitNr > 0 && submitted > 0 && !getEvents && !cqFlush && !r.rawWaits &&
			r.flags&(SetupSQPoll|SetupIOPoll) == 0 && r.CQReady() < waitNr && r.waitPred.trySplit()
		if split {
			wait = 0
		} else if cqEnter {
			flags |= EnterGetEvents
		}
		n, errno := r.enter(submitted, wait, flags, sqFlags, nil, 0)
		switch {
		case errno == 0:
		case errno == unix.EINTR:
			r.stats.Retries++
			continue
		case errno == unix.EAGAIN && eagain < maxEAgainRetries:
			if r.CQReady() > 0 {
				return done, nil // let the caller reap, then submit again
			}
			eagain++
			r.stats.Retries++
			runtime.Gosched()
			continue
		default:
			return done, fmt.Errorf("io_uring_enter(submit=%d, wait=%d): %w", submitted, wait, r.enterErr(errno))
		}
		done += uint(n)
		if split && n == submitted {
			inline := r.CQReady() >= waitNr
			r.waitPred.record(inline)
			if inline {
				return done, nil
			}
			submitted = 0 // the wait alone, on the blocking path
			continue
		}
		// A short submit skips the kernel's wait (as in liburing): submit
		// the rest, then wait.
		if r.flags&SetupSQPoll != 0 || n >= submitted || n == 0 {
			return done, nil
		}
		submitted -= n // partial submit: the rest stay in the SQ
		getEvents = false
	}
}

// splitRetryAfter is how many submit-and-waits go in as one blocking enter
// after a split found its SQEs still in flight, before the split is tried
// again: a ring whose ops never complete inline pays the extra raw enter on
// one wait in 64.
const splitRetryAfter = 63

// waitPredictor decides whether a submit-and-wait is split into a raw
// submit and, if still needed, a blocking wait. It splits while the SQEs
// keep completing inside the submitting enter, and after one that did not,
// goes back to liburing's single enter for splitRetryAfter calls.
type waitPredictor struct {
	skip uint32 // single-enter calls left before the next split
}

// trySplit reports whether this submit-and-wait should be split.
func (p *waitPredictor) trySplit() bool {
	if p.skip == 0 {
		return true
	}
	p.skip--
	return false
}

// record takes the outcome of a split: whether the wait was already
// satisfied when the submitting enter returned.
func (p *waitPredictor) record(inline bool) {
	if !inline {
		p.skip = splitRetryAfter
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
		_, errno := r.enter(0, 0, flags, 0, nil, 0)
		if errno == unix.EINTR {
			r.stats.Retries++
			continue
		}
		if errno != 0 {
			return fmt.Errorf("io_uring_enter(SQ_WAIT): %w", r.enterErr(errno))
		}
		return nil
	}
}

// EnableRings enables a ring created with SetupRDisabled; the calling
// thread becomes the SINGLE_ISSUER submitter.
func (r *Ring) EnableRings() error {
	return r.registerNoArg(registerEnableRings, "io_uring_register(ENABLE_RINGS)")
}
