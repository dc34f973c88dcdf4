package engines

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Trimmer discards ranges of a block device, as fio 3.33's os_trim does
// for every engine that trims (the sync family, mmap, libaio, io_uring):
// one BLKDISCARD ioctl per request. On anything but a block device the
// ioctl fails, a regular file with ENOTTY, and so does the trim, as in
// fio. The range lives in the Trimmer, so a trim allocates nothing.
type Trimmer struct {
	rng [2]uint64
}

// Discard discards n bytes at off of fd and returns n, or the negated
// errno.
func (t *Trimmer) Discard(fd int, off, n uint64) int32 {
	t.rng = [2]uint64{off, n}
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.BLKDISCARD, uintptr(unsafe.Pointer(&t.rng)))
	if errno != 0 {
		return -int32(errno)
	}
	return int32(n)
}

// Do is the trim of request r on fd, fio's do_io_u_trim: a zonemode=zbd
// trim completes whole without a discard (its zone's reset is the
// generator's), any other discards.
func (t *Trimmer) Do(fd int, r *Request) int32 {
	if r.ZoneReset {
		return int32(len(r.Buf))
	}
	return t.Discard(fd, r.Offset, uint64(len(r.Buf)))
}

// QueueTrims is the trim path of the asynchronous engines (io_uring,
// libaio). fio 3.33 runs their trims synchronously in the queue hook
// (do_io_u_trim, then FIO_Q_COMPLETED), not through the ring or io_submit:
// Queue discards at once and records the completion here, Submit counts
// the trims queued since the last Submit as submitted, and Reap hands
// their completions out first.
type QueueTrims struct {
	Trimmer
	done        DoneQueue
	unsubmitted int
}

// NewQueueTrims returns a trim path with room for depth completions.
func NewQueueTrims(depth int) QueueTrims {
	return QueueTrims{done: NewDoneQueue(depth)}
}

// Trim discards len(r.Buf) bytes at r.Offset of fd and records the
// completion of slot.
func (q *QueueTrims) Trim(slot uint32, fd int, r *Request) {
	q.Complete(slot, q.Do(fd, r))
}

// Complete records the completion, with result res, of a trim the
// engine ran in Queue, as fio's does in its queue hook.
func (q *QueueTrims) Complete(slot uint32, res int32) {
	q.done.Push(Completion{Slot: slot, Res: res})
	q.unsubmitted++
}

// Submitted returns how many trims were queued since the last call.
func (q *QueueTrims) Submitted() int {
	n := q.unsubmitted
	q.unsubmitted = 0
	return n
}

// Pop moves up to len(out) trim completions into out.
func (q *QueueTrims) Pop(out []Completion) int { return q.done.Pop(out) }

// Len returns how many trim completions wait to be reaped.
func (q *QueueTrims) Len() int { return q.done.Len() }
