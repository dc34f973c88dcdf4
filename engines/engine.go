// Package engines defines the interface between the job event loop (run/)
// and the I/O engines: io_uring (engines/iouring), libaio (engines/libaio),
// the sync family (engines/psync), mmap (engines/mmap), null (engines/null)
// and the others jobfile's engine table lists.
//
// The interface is ring-shaped so that the hot path allocates nothing: the
// loop queues requests into numbered slots, submits them in batches and reaps
// completions into a caller-owned slice. A slot number is what travels as
// user data; it is never a pointer.
package engines

import (
	"io"
	"time"

	"github.com/gofio/gofio/jobfile"
)

// Op is the operation a request performs.
type Op uint8

// The operations an engine must support. Trim is optional (ErrUnsupported).
// OpSyncFileRange is sync_file_range(2) of Request.Offset and SyncLen with
// the job's sync_file_range= flags; an engine without it does what it does
// for an fsync, as fio's engines do for DDIR_SYNC_FILE_RANGE.
const (
	OpRead Op = iota
	OpWrite
	OpTrim
	OpFsync
	OpFdatasync
	OpSyncFileRange
)

// IsSync reports whether the operation is one of the syncs (fio's
// ddir_sync: fsync, fdatasync, sync_file_range).
func (o Op) IsSync() bool { return o >= OpFsync }

// Request is one I/O to prepare in a slot.
type Request struct {
	Op     Op
	File   int    // index into Setup.Files
	Offset uint64 // byte offset in the file
	Buf    []byte // data buffer: a window of the slot's buffer (len = transfer size)
	BufOff uint32 // offset of Buf inside the slot's buffer (non-zero when a short I/O is requeued)
	IOPrio uint16 // sqe->ioprio (cmdprio); 0 = none
	Async  bool   // IOSQE_ASYNC (force_async)
	// SyncLen is the length of an OpSyncFileRange from Offset: the span
	// of the file's writes completed since its last sync, fio's
	// last_write - first_write; 0 when none completed (fio's sync engines
	// then make no call).
	SyncLen uint64
	// ZoneReset is a zonemode=zbd trim: it resets its zone instead of
	// discarding (fio's zbd_do_io_u_trim) and completes whole.
	ZoneReset bool
}

// Completion is one finished request: the slot it was queued in and the
// kernel's result (bytes transferred, or a negative errno).
type Completion struct {
	Slot uint32
	Res  int32
}

// Engine runs requests for one job. One goroutine owns an engine; none of
// its methods may be called concurrently.
type Engine interface {
	// Queue prepares r in slot; it reaches the kernel on the next Submit.
	Queue(slot uint32, r *Request) error
	// Submit hands every queued request to the kernel and returns how many
	// were accepted.
	Submit() (int, error)
	// Reap copies up to len(out) completions into out, waiting until at
	// least min are available (min 0 never blocks).
	Reap(out []Completion, min int) (int, error)
	// Close releases rings, registrations and threads. Files are the
	// caller's.
	Close() error
}

// Setup is what an engine gets to open.
type Setup struct {
	Job   *jobfile.Job
	Files []int    // open file descriptors, indexed by Request.File (-1 for a diskless engine)
	Paths []string // the files' names, indexed like Files
	Bufs  [][]byte // one aligned, pinned buffer per slot, each of the job's max bs
	Depth int      // number of slots, the real queue depth (no rounding)
	// OwnP says the caller runs the engine on a goroutine locked to its
	// thread and has made GOMAXPROCS leave a P for every such goroutine,
	// one more for each sqthread_poll=1 job's SQPOLL goroutine, and one to
	// spare. Engines may then wait for completions without giving the P
	// back to the runtime (see uring.Ring.SetRawWaits), or busy-poll for
	// them as io_uring's does under SQPOLL.
	OwnP bool
	// Info receives the lines fio's engine prints on stdout when it is
	// set up, such as cpuio's "NAME (noop): ioengine=cpuio, cpuload=N,
	// cpucycle=N". Nil discards them.
	Info io.Writer
}

// Stats are engine-level counters the report shows as gofio extras. Engines
// that have none return the zero value.
type Stats struct {
	SubmitCalls   uint64 // io_uring_enter calls that submitted
	WaitCalls     uint64 // io_uring_enter calls that waited
	DroppedCQEs   uint64 // CQEs lost to overflow (should stay 0)
	OverflowFlush uint64 // CQ overflow flushes
	SQPollTID     int    // kernel SQPOLL thread id, 0 if none
	SetupFlags    []string
	Warnings      []string
}

// StatsReporter is implemented by engines that keep Stats.
type StatsReporter interface {
	Stats() Stats
}

// Opener opens an engine for a job.
type Opener func(s Setup) (Engine, error)

// TimedReaper is implemented by engines that can wait for completions
// with a time limit. ReapTimeout is Reap, except that it gives up after d
// and returns what it has, possibly fewer than min (even none), with a nil
// error. io_timeout uses it so that the job's own thread notices a hung
// request and can cancel it. CanReapTimeout reports whether the engine can
// wait so here (io_uring needs IORING_FEAT_EXT_ARG, Linux 5.11); where it
// cannot, io_timeout falls back to its watcher, which takes a job over
// when its thread sleeps in a wait past the timeout.
type TimedReaper interface {
	CanReapTimeout() bool
	ReapTimeout(out []Completion, min int, d time.Duration) (int, error)
}

// Failer is implemented by engines whose failed request can say more than
// its errno: net's connect, made at the first request, names the host and
// port it failed on. Failure returns, once, the function that failed
// (fio's func=, "connect") and its error, or a nil error when the last
// failed request has nothing to add.
type Failer interface {
	Failure() (fn string, err error)
}

// QueueCompleter is implemented by engines that run some requests to the
// end inside Queue, as their fio counterparts do in the queue hook when it
// answers FIO_Q_COMPLETED: libaio's fsync, fdatasync and sync_file_range
// (fio's do_io_u_sync). CompletedAtQueue returns the result of the
// request the last Queue ran in slot, once, and true; false when that
// Queue left the request to Submit. A request run at queue is neither
// submitted nor reaped: its slot is free again when Queue returns.
type QueueCompleter interface {
	CompletedAtQueue(slot uint32) (res int32, ok bool)
}

// SQThreader is implemented by engines whose ring may have the kernel's
// SQPOLL thread: SQThread returns that thread's id, 0 without one.
type SQThreader interface {
	SQThread() int
}

// Canceler is implemented by engines that can ask the kernel to cancel a
// request in flight (io_uring's IORING_OP_ASYNC_CANCEL). Cancel queues and
// submits the cancellation of the request in slot; the request itself
// then completes (with -ECANCELED, or its own result if it was too late)
// through Reap, unless the kernel cannot interrupt it. CancelResults
// reports the results of the cancellations so far: how many found the
// request and cancelled it, how many found it running (-EALREADY) and how
// many did not find it (-ENOENT).
type Canceler interface {
	Cancel(slot uint32) error
	CancelResults() (cancelled, running, notFound int)
}
