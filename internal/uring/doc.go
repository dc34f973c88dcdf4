// Package uring is gofio's own io_uring layer: pure Go over
// golang.org/x/sys/unix, no cgo. Its API is shaped like liburing and
// giouring (NewRing, QueueInit, QueueInitParams, GetSQE, Prepare*, Submit,
// SubmitAndWait, PeekCQE, WaitCQE, CQAdvance, RegisterBuffers, ...) so a
// later swap is a small change, without giouring's ABI bugs: GetSQE zeroes
// all 64 bytes, RegisterFiles takes []int32, RegisterIOWQMaxWorkers takes
// and returns [2]uint32, PrepareTimeout passes the timespec itself, and
// NO_SQARRAY rings never get an array written over their header.
//
// Setup reads every ring offset from what the kernel returns and maps the
// rings once when the kernel has FeatSingleMmap. Setup failures are
// *SetupError values whose text names the cause (kernel.io_uring_disabled,
// seccomp, the flag this kernel lacks); io_uring_setup and the /proc reads
// behind those texts go through the ring's Kernel (NewRingOn), so tests can
// inject EPERM or ENOSYS without global state. QueueInitFallback
// drops optional flag groups in fio's order and reports what it dropped.
//
// Memory ordering follows the kernel's protocol with sync/atomic (sequentially
// consistent in Go): the SQ tail is an atomic store and, with SQPOLL, the
// NEED_WAKEUP flag is loaded after it; the CQ tail is an atomic load and the
// CQ head an atomic store. Submit enters the kernel only when liburing would:
// never with an awake SQPOLL thread, and PeekCQE on an empty CQ makes no
// syscall unless CQ_OVERFLOW, TASKRUN or IOPOLL require one.
//
// Threading: one goroutine owns a Ring. It must be locked to its OS thread
// (runtime.LockOSThread) when the ring uses SINGLE_ISSUER, DEFER_TASKRUN or
// RegisterRingFd, because the kernel keys those on the thread. Nothing
// outside this package sees unsafe: buffers are passed as []byte and
// []unix.Iovec, and must stay alive and unmoved until their CQE arrives
// (mmap'd or pinned memory).
//
// Syscall paths: an io_uring_enter that may sleep (a GETEVENTS wait for
// more CQEs than are ready, SQ_WAIT, EXT_ARG timeouts, IOPOLL waits, or a
// submit of more than 256 SQEs) goes through syscall.Syscall6, so the
// runtime hands the P off while the thread sleeps. One that cannot sleep
// (submit-only, SQ_WAKEUP, GETEVENTS with min_complete 0 to run
// DEFER_TASKRUN work or flush overflow, a wait the CQ already satisfies)
// goes through syscall.RawSyscall6, which saves the runtime's syscall
// bookkeeping; Stats.NoWaitEnters counts those. After SetRawWaits (for an
// owner that has a P of its own) the plain GETEVENTS waits take the raw
// path too: the wait keeps its P, and the runtime's preemption signal
// still interrupts it with EINTR; Stats.RawWaitEnters counts those.
// Submit of a batch makes
// exactly one enter. SubmitAndWait submits on the raw path first and waits
// only if the SQEs did not complete inside that enter; after one that did
// not, it uses liburing's single blocking enter for the next 63 calls before
// it tries again, so async I/O pays one extra raw enter in 64 calls.
//
// Its speed against the C liburing floor (bench/liburing/run.sh) is in
// bench/results.md.
package uring
