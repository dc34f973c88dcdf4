// Package libaio is gofio's libaio I/O engine: Linux native AIO through the
// raw io_setup, io_submit, io_getevents and io_destroy system calls (no
// libaio, no cgo), as fio's engines/libaio.c drives them.
//
// Requests are queued as iocbs whose aio_data is the slot number; Submit
// hands every queued iocb to io_submit (keeping those the kernel did not
// take for the next Submit, as fio's commit does), and Reap reads
// completions with io_getevents, or straight from the kernel's AIO
// completion ring with userspace_reap=1 when it need not wait, as fio
// does. cmdprio (Request.IOPrio) sets IOCB_FLAG_IOPRIO; nowait sets
// RWF_NOWAIT; libaio_vectored sends reads and writes as IOCB_CMD_PREADV and
// IOCB_CMD_PWRITEV of one iovec. fsync, fdatasync and sync_file_range run
// inside Queue, as fio's engine runs every sync in its queue hook
// (do_io_u_sync), never through io_submit: their results come back
// through engines.QueueCompleter, and their slots are free at once.
//
// Linux runs buffered (direct=0) AIO on regular files synchronously inside
// io_submit: Open says so in Stats().Warnings.
package libaio

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
)

// The iocb opcodes and flags of linux/aio_abi.h.
const (
	cmdPread   = 0
	cmdPwrite  = 1
	cmdPreadv  = 7
	cmdPwritev = 8

	flagIOPrio = 1 << 1 // IOCB_FLAG_IOPRIO

	ringMagic = 0xa10a10a1 // AIO_RING_MAGIC
)

// iocb is struct iocb of linux/aio_abi.h on a little-endian machine
// (aio_key before aio_rw_flags). The fields gofio never sets (aio_key,
// aio_reserved2, aio_resfd) are blank: they only hold the layout.
type iocb struct {
	data    uint64
	_       uint32 // aio_key
	rwFlags uint32
	opcode  uint16
	reqprio int16
	fildes  uint32
	buf     uint64
	nbytes  uint64
	offset  int64
	_       uint64 // aio_reserved2
	flags   uint32
	_       uint32 // aio_resfd
}

// event is struct io_event.
type event struct {
	data uint64
	obj  uint64
	res  int64
	res2 int64
}

// ring is the header of the kernel's AIO completion ring (struct aio_ring
// of fs/aio.c), mapped at the context's address; events follow it.
type ring struct {
	id, nr, head, tail       uint32
	magic                    uint32
	compatFeatures, incompat uint32
	headerLength             uint32
}

// Engine runs requests on one AIO context.
type Engine struct {
	ctx     uint64
	files   []int
	trims   engines.QueueTrims
	synced  syncedAtQueue // the sync the last Queue ran
	iocbs   []iocb        // one per slot
	iov     []unix.Iovec  // one per slot, with libaio_vectored
	queued  []*iocb       // queued since the last accepted io_submit, in order
	nq      int
	events  []event
	rwFlags uint32
	sfr     int  // sync_file_range= flags
	poll    bool // userspace_reap with iodepth_batch_complete_min=0: waits poll the ring
	raw     bool // Setup.OwnP: system calls keep the P (no entersyscall hand-off)
	ring    *ring
	ringEv  []event // the ring's events, when userspace_reap can read them

	submits, waits, ringReaps uint64
	warnings                  []string
}

// syncedAtQueue is a sync Queue ran: its slot and result, until
// CompletedAtQueue hands them out.
type syncedAtQueue struct {
	slot uint32
	res  int32
	ok   bool
}

var (
	_ engines.Engine         = (*Engine)(nil)
	_ engines.StatsReporter  = (*Engine)(nil)
	_ engines.QueueCompleter = (*Engine)(nil)
)

// ErrBusy is returned by Queue when every slot is already queued.
var ErrBusy = errors.New("libaio: queue full")

// Open sets up an AIO context with room for s.Depth requests.
func Open(s engines.Setup) (engines.Engine, error) {
	if s.Depth <= 0 {
		return nil, fmt.Errorf("libaio: depth %d, need at least 1", s.Depth)
	}
	e := &Engine{
		files:  s.Files,
		trims:  engines.NewQueueTrims(s.Depth),
		iocbs:  make([]iocb, s.Depth),
		queued: make([]*iocb, s.Depth),
		events: make([]event, s.Depth),
	}
	if _, _, errno := unix.Syscall(unix.SYS_IO_SETUP, uintptr(s.Depth), uintptr(unsafe.Pointer(&e.ctx)), 0); errno != 0 {
		hint := ""
		if errno == unix.EAGAIN {
			hint = " (iodepth over the room left in /proc/sys/fs/aio-max-nr)"
		}
		return nil, fmt.Errorf("libaio: io_setup(%d)%s: %w", s.Depth, hint, errno)
	}
	// A submit on FUSE or a network filesystem sleeps inline for as long
	// as the I/O takes: keep the runtime's hand-off (engines.SubmitsMayBlock).
	e.raw = s.OwnP && !engines.SubmitsMayBlock(s.Files)
	if j := s.Job; j != nil {
		if j.NoWait {
			e.rwFlags |= unix.RWF_NOWAIT
		}
		o, _ := j.EngineConfig().(*Options)
		e.poll = o != nil && o.UserspaceReap && j.IODepthBatchCompleteMin == 0
		if o != nil && o.Vectored {
			e.iov = make([]unix.Iovec, s.Depth)
		}
		e.sfr = int(j.SyncFileRange)
		if !j.Direct {
			e.warnings = append(e.warnings, "libaio with direct=0: Linux completes buffered AIO on regular files inside io_submit, "+
				"so requests do not queue up to iodepth; set direct=1 for asynchronous I/O")
		}
	}
	// The context is the address of the kernel's completion ring.
	e.ring = *(**ring)(unsafe.Pointer(&e.ctx))
	if e.ring.magic == ringMagic {
		first := unsafe.Add(unsafe.Pointer(e.ring), int(e.ring.headerLength))
		if e.ring.headerLength < uint32(unsafe.Sizeof(ring{})) {
			first = unsafe.Add(unsafe.Pointer(e.ring), unsafe.Sizeof(ring{}))
		}
		e.ringEv = unsafe.Slice((*event)(first), e.ring.nr)
	}
	return e, nil
}

// Queue prepares r as the iocb of slot.
func (e *Engine) Queue(slot uint32, r *engines.Request) error {
	if e.nq >= len(e.queued) {
		return ErrBusy
	}
	if int(slot) >= len(e.iocbs) {
		return fmt.Errorf("libaio: slot %d out of range (depth %d)", slot, len(e.iocbs))
	}
	if r.File < 0 || r.File >= len(e.files) {
		return fmt.Errorf("libaio: file index %d out of range (%d files)", r.File, len(e.files))
	}
	if r.Op == engines.OpTrim {
		// fio's libaio engine trims in its queue hook (BLKDISCARD),
		// never through io_submit.
		e.trims.Trim(slot, e.files[r.File], r)
		return nil
	}
	if r.Op.IsSync() {
		// fio's libaio engine runs every sync in its queue hook, "since
		// it can fail and we need to do it serialized with other io",
		// and answers FIO_Q_COMPLETED: the sync holds no slot while the
		// writes queued after it run.
		e.synced = syncedAtQueue{slot: slot, res: e.sync(e.files[r.File], r), ok: true}
		return nil
	}
	cb := &e.iocbs[slot]
	*cb = iocb{data: uint64(slot), fildes: uint32(e.files[r.File]), offset: int64(r.Offset)}
	switch r.Op {
	case engines.OpRead, engines.OpWrite:
		cb.opcode = cmdPread
		if r.Op == engines.OpWrite {
			cb.opcode = cmdPwrite
		}
		cb.rwFlags = e.rwFlags
		if len(r.Buf) > 0 {
			cb.buf = uint64(uintptr(unsafe.Pointer(&r.Buf[0])))
		}
		cb.nbytes = uint64(len(r.Buf))
		if e.iov != nil {
			// fio's io_prep_preadv/pwritev: one iovec over the buffer.
			v := &e.iov[slot]
			v.Base, v.Len = nil, cb.nbytes
			if len(r.Buf) > 0 {
				v.Base = &r.Buf[0]
			}
			cb.opcode = cmdPreadv
			if r.Op == engines.OpWrite {
				cb.opcode = cmdPwritev
			}
			cb.buf, cb.nbytes = uint64(uintptr(unsafe.Pointer(v))), 1
		}
	default:
		return fmt.Errorf("libaio: unknown op %d", r.Op)
	}
	if r.IOPrio != 0 {
		cb.reqprio = int16(r.IOPrio)
		cb.flags |= flagIOPrio
	}
	e.queued[e.nq] = cb
	e.nq++
	return nil
}

// sync runs the fsync, fdatasync or sync_file_range r on fd, fio's
// do_io_u_sync, and returns 0 or the negated errno.
func (e *Engine) sync(fd int, r *engines.Request) int32 {
	nr := uintptr(unix.SYS_FSYNC)
	switch r.Op {
	case engines.OpFdatasync:
		nr = unix.SYS_FDATASYNC
	case engines.OpSyncFileRange:
		return engines.SyncFileRange(fd, r, e.sfr)
	}
	for {
		_, errno := e.syscall(nr, uintptr(fd), 0, 0, 0)
		switch errno {
		case 0:
			return 0
		case unix.EINTR:
			continue
		}
		return -int32(errno)
	}
}

// CompletedAtQueue returns the result of the sync the last Queue ran in
// slot, once.
func (e *Engine) CompletedAtQueue(slot uint32) (int32, bool) {
	if !e.synced.ok || e.synced.slot != slot {
		return 0, false
	}
	e.synced.ok = false
	return e.synced.res, true
}

// Submit hands the queued iocbs to io_submit and returns how many the
// kernel took. Those it did not take (EAGAIN: no room until completions
// are reaped) stay queued, in order, for the next Submit.
func (e *Engine) Submit() (int, error) {
	n, err := e.submitAIO()
	return n + e.trims.Submitted(), err
}

func (e *Engine) submitAIO() (int, error) {
	if e.nq == 0 {
		return 0, nil
	}
	for {
		n, errno := e.syscall(unix.SYS_IO_SUBMIT, uintptr(e.ctx), uintptr(e.nq), uintptr(unsafe.Pointer(&e.queued[0])), 0)
		e.submits++
		switch errno {
		case 0:
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return 0, nil
		default:
			return 0, fmt.Errorf("libaio: io_submit: %w", errno)
		}
		k := int(n)
		copy(e.queued, e.queued[k:e.nq])
		e.nq -= k
		return k, nil
	}
}

// Reap copies up to len(out) completions into out, waiting until at least
// min are there.
//
// A call with min 0 (the run core's harvest between issues) reads the
// kernel's completion ring in user space when the ring has the known
// layout, as fio's user_io_getevents does: it sees what io_getevents would
// return, without a system call. A call that must wait uses io_getevents,
// except with userspace_reap=1 and iodepth_batch_complete_min=0, where fio
// polls the ring instead of sleeping, and so does gofio.
func (e *Engine) Reap(out []engines.Completion, min int) (int, error) {
	n := e.trims.Pop(out)
	if n > 0 {
		k, err := e.reapAIO(out[n:], max(min-n, 0))
		return n + k, err
	}
	return e.reapAIO(out, min)
}

func (e *Engine) reapAIO(out []engines.Completion, min int) (int, error) {
	max := len(out)
	if max > len(e.events) {
		max = len(e.events)
	}
	if max == 0 {
		return 0, nil
	}
	if min > max {
		min = max
	}
	if e.ringEv != nil && (min == 0 || e.poll) {
		n := e.reapRing(out[:max])
		for spins := 0; n < min; spins++ {
			if spins == pollSpins {
				// Nothing for a long while: sleep in the kernel rather
				// than spin on a stuck device.
				k, err := e.getevents(out[n:max], min-n)
				return n + k, err
			}
			n += e.reapRing(out[n:max])
		}
		return n, nil
	}
	return e.getevents(out[:max], min)
}

// pollSpins is how many empty looks at the ring a polling Reap makes
// before it falls back to a sleeping io_getevents.
const pollSpins = 1 << 24

// getevents is io_getevents(ctx, min, len(out)), retried on EINTR.
func (e *Engine) getevents(out []engines.Completion, min int) (int, error) {
	for {
		if min > 0 {
			e.waits++
		}
		n, errno := e.syscall(unix.SYS_IO_GETEVENTS, uintptr(e.ctx), uintptr(min), uintptr(len(out)),
			uintptr(unsafe.Pointer(&e.events[0])))
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return 0, fmt.Errorf("libaio: io_getevents: %w", errno)
		}
		for i := 0; i < int(n); i++ {
			out[i] = completion(&e.events[i])
		}
		return int(n), nil
	}
}

// syscall makes a system call of up to four arguments (the fifth, a
// timeout, is always nil). With Setup.OwnP it keeps the P, as the io_uring
// engine's raw waits do: the job's goroutine owns its thread and a P was
// set aside for it, so no runtime hand-off is needed around a wait.
func (e *Engine) syscall(nr, a1, a2, a3, a4 uintptr) (uintptr, unix.Errno) {
	if e.raw {
		n, _, errno := unix.RawSyscall6(nr, a1, a2, a3, a4, 0, 0)
		return n, errno
	}
	n, _, errno := unix.Syscall6(nr, a1, a2, a3, a4, 0, 0)
	return n, errno
}

// reapRing moves completions from the kernel's ring into out without a
// system call: read the tail, copy from head, publish the new head.
func (e *Engine) reapRing(out []engines.Completion) int {
	e.ringReaps++
	r := e.ring
	n := 0
	for n < len(out) {
		head := atomic.LoadUint32(&r.head)
		if head == atomic.LoadUint32(&r.tail) {
			break
		}
		out[n] = completion(&e.ringEv[head])
		n++
		atomic.StoreUint32(&r.head, (head+1)%r.nr)
	}
	return n
}

func completion(ev *event) engines.Completion {
	res := ev.res
	if res > 1<<31-1 {
		res = 1<<31 - 1
	}
	return engines.Completion{Slot: uint32(ev.data), Res: int32(res)}
}

// Close destroys the AIO context; the kernel cancels or waits for requests
// still in flight.
func (e *Engine) Close() error {
	if e.ctx == 0 {
		return nil
	}
	_, _, errno := unix.Syscall(unix.SYS_IO_DESTROY, uintptr(e.ctx), 0, 0)
	e.ctx, e.ring, e.ringEv = 0, nil, nil
	if errno != 0 {
		return fmt.Errorf("libaio: io_destroy: %w", errno)
	}
	return nil
}

// Stats returns the io_submit and waiting io_getevents call counts, and
// the warning for buffered AIO.
func (e *Engine) Stats() engines.Stats {
	return engines.Stats{SubmitCalls: e.submits, WaitCalls: e.waits,
		Warnings: append([]string(nil), e.warnings...)}
}
