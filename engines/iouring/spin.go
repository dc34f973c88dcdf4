package iouring

import (
	"time"
)

// spinCheck is how many polls of the CQ tail a spinning reap makes between
// its slower checks: the sq_flags word (overflow, task work), the SQPOLL
// stand-in's error and, in a timed reap, the clock. At a few ns a poll it
// reads the clock about once a microsecond.
const spinCheck = 256

// spinReaps reports whether Reap with min > 0 busy-polls the CQ ring, as
// fio's getevents does under sqthread_poll=1: it never enters the kernel
// to wait, it loops reading the CQ tail until min completions arrived.
// gofio does so wherever a thread submits for the job, the kernel's SQPOLL
// thread or the stand-in, provided the job's goroutine has a P of its own
// (Setup.OwnP: run reserves one for the job and one for the stand-in) and
// the stand-in need not reap IOPOLL completions, which only an enter with
// GETEVENTS finds.
func spinReaps(sqpoll, stand, iopoll, ownP bool) bool {
	return ownP && (sqpoll || stand && !iopoll)
}

// spinCQ busy-polls the CQ ring until want CQEs are ready, as fio's
// fio_ioring_getevents does with sqpoll_thread set. Every spinCheck polls
// it enters the kernel once with GETEVENTS if the kernel holds CQEs back
// (CQ_OVERFLOW, TASKRUN in sq_flags, as liburing's peek does), returns the
// stand-in's error, and, with d >= 0, returns false once d has passed
// since it began. It reports whether want CQEs are ready. It makes no
// system call while the ring has nothing held back and allocates nothing.
func (e *Engine) spinCQ(want uint32, d time.Duration) (bool, error) {
	var start time.Time
	if d >= 0 {
		start = time.Now()
	}
	for polls := uint32(1); ; polls++ {
		if e.ring.CQReady() >= want {
			return true, nil
		}
		if polls%spinCheck != 0 {
			continue
		}
		if _, err := e.ring.PeekCQE(); err != nil && !isEAGAIN(err) {
			return false, e.reapErr(err)
		}
		if e.poller != nil {
			if err := e.poller.failed(); err != nil {
				return false, err
			}
		}
		if d >= 0 && time.Since(start) >= d {
			return e.ring.CQReady() >= want, nil
		}
	}
}
