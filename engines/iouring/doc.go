// Package iouring is gofio's io_uring engine, on the project's own ring
// layer (internal/uring).
//
// Threading: one goroutine owns the engine. The caller (run/) locks that
// goroutine to its OS thread with runtime.LockOSThread before calling Open
// and keeps it locked until Close returns, because the kernel keys
// SINGLE_ISSUER, DEFER_TASKRUN, the registered ring fd and the io-wq pool on
// the thread that submits. Queue, Submit, Reap and Close are then called from
// that goroutine only. With Setup.OwnP (run/ reserves a P per job) the
// ring's waits keep the P (uring.Ring.SetRawWaits).
//
// Every submit without SQPOLL also asks for events (GETEVENTS with
// min_complete 0), as fio's commit does, so DEFER_TASKRUN completions are
// posted while submitting rather than only when the job waits.
//
// The ring is sized from Setup.Depth: SQ entries = depth (the kernel rounds
// the ring up to a power of two, the engine never has more than depth
// requests in flight) and a CQ of at least depth entries (CQSIZE), so the CQ
// never overflows. Options from the job: direct (files are opened by the
// caller), fixedbufs (READ_FIXED/WRITE_FIXED, buffer index = slot),
// registerfiles, nonvectored (-1 probes the kernel), nowait (RWF_NOWAIT),
// force_async (IOSQE_ASYNC every Nth request), hipri (IOPOLL, refused at Open
// with a clear error when a file cannot be polled), cmdprio
// (Request.IOPrio), coop_taskrun, defer_taskrun (+single_issuer),
// iowq_max_workers and sqthread_poll with sqthread_poll_cpu and
// sqthread_idle (registerfiles forced, as fio does).
//
// Where the kernel refuses SQPOLL, a goroutine locked to its own OS thread
// plays the SQPOLL thread: Submit only publishes the SQ tail, and that
// goroutine enters the kernel, sleeping after sqthread_idle without work and
// woken like the kernel thread. Stats().Warnings says so in one line.
//
// Under SQPOLL, the kernel's or the stand-in's, a Reap that waits
// busy-polls the CQ ring as fio's getevents does there (spinReaps, spinCQ):
// the job's thread never sleeps in io_uring_enter for a completion. It
// enters with GETEVENTS only when sq_flags says the kernel holds CQEs back,
// and checks the stand-in's error and a timed reap's clock every spinCheck
// polls.
package iouring
