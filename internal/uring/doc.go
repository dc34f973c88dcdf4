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
// seccomp, the flag this kernel lacks); io_uring_setup goes through the
// SetupSyscall variable so tests can inject EPERM or ENOSYS. QueueInitFallback
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
// Speed against the C liburing floor (bench/liburing/run.sh 5 1: five
// alternating pairs of 1 s runs, medians, Linux 6.18, 2 shared vCPUs, ns per
// operation, go/C below 1 means gofio was faster):
//
//	case                     go ns/op   C ns/op   go/C
//	NOP, batch 1                726.1     570.2   1.27
//	NOP, batch 8                201.1     239.9   0.84
//	NOP, batch 32               100.6     185.3   0.54
//	NOP, batch 128              123.1     144.6   0.85
//	4 KiB O_DIRECT read, tmpfs 7310.0    8683.6   0.84
//
// The batch-1 NOP gap is Go's syscall entry and exit (unix.Syscall6, which
// hands off the P because GETEVENTS may block): about 40 ns of it goes away
// with RawSyscall6, which is unsafe for blocking waits and not used. The
// machine was shared with other builds, so the columns move by 20-30% from
// run to run; rerun the script for figures on another machine. tmpfs has no
// RWF_NOWAIT support, so its reads go through io-wq workers, which is why a
// 4 KiB read costs microseconds there.
package uring
