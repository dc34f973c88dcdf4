package uring

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Ring is one io_uring instance: the fd, the mapped SQ and CQ rings and the
// SQE array. One goroutine owns a Ring, locked to its OS thread when
// SINGLE_ISSUER, DEFER_TASKRUN or RegisterRingFd are used; no method may be
// called concurrently unless its doc says so.
type Ring struct {
	sq         submissionQueue
	cq         completionQueue
	flags      uint32
	features   uint32
	fd         int
	kernel     Kernel // io_uring_setup and /proc, for QueueInitParams
	enterFd    int    // fd or registered index that enters use
	enterFlags uint32 // EnterRegisteredRing after RegisterRingFd, else 0
	intFlags   uint32
	setupTID   int

	ringMem []byte // SQ ring (and CQ ring with FeatSingleMmap)
	cqMem   []byte // separate CQ ring mapping, nil with FeatSingleMmap
	sqeMem  []byte

	params   Params // what the kernel returned
	stats    Stats
	waitPred waitPredictor // whether SubmitAndWait splits its enter
	waitArg  geteventsArg  // EXT_ARG block, kept here so it never lives on a stack
	waitTS   unix.Timespec // its timeout
	bufsReg  bool
	filesReg bool
	rawWaits bool // SetRawWaits
	// submitsBlock: SetSubmitsBlock.
	submitsBlock bool
}

// submissionQueue holds pointers into the SQ ring mapping and the
// user-space copy of head and tail (liburing's sqe_head/sqe_tail).
type submissionQueue struct {
	khead    *uint32
	ktail    *uint32
	kflags   *uint32
	kdropped *uint32
	array    []uint32
	sqes     unsafe.Pointer // first SQE in the mapping (never Go memory)
	sqeHead  uint32
	sqeTail  uint32
	mask     uint32
	entries  uint32
	shift    uint32
}

// sqeAt returns SQE slot i of the mapping. Callers pass (index&mask)<<shift,
// which is always inside it, so no bounds check is needed on the hot path.
func (sq *submissionQueue) sqeAt(i uint32) *SubmissionQueueEntry {
	return (*SubmissionQueueEntry)(unsafe.Add(sq.sqes, uintptr(i)*unsafe.Sizeof(SubmissionQueueEntry{})))
}

// completionQueue holds pointers into the CQ ring mapping.
type completionQueue struct {
	khead     *uint32
	ktail     *uint32
	kflags    *uint32
	koverflow *uint32
	cqes      unsafe.Pointer // first CQE in the mapping (never Go memory)
	mask      uint32
	entries   uint32
	shift     uint32
}

// cqeAt returns the CQE at ring position pos (head or a later index), taking
// the mask and the CQE32 shift into account, without a bounds check.
func (cq *completionQueue) cqeAt(pos uint32) *CompletionQueueEvent {
	return (*CompletionQueueEvent)(unsafe.Add(cq.cqes, uintptr((pos&cq.mask)<<cq.shift)*unsafe.Sizeof(CompletionQueueEvent{})))
}

// Internal flags (liburing int_flags.h).
const (
	intFlagRegRing = 1 << 0
)

// Stats counts what a Ring did: io_uring_enter calls by purpose, overflow
// flushes and dropped-CQE reports. Read them with (*Ring).Stats.
type Stats struct {
	Enters          uint64 // every io_uring_enter call
	SubmitEnters    uint64 // enters that had SQEs to submit
	WaitEnters      uint64 // enters with GETEVENTS
	WakeupEnters    uint64 // enters with SQ_WAKEUP (SQPOLL asleep)
	OverflowFlushes uint64 // enters made because CQ_OVERFLOW was set
	DroppedReports  uint64 // EBADR results: the kernel dropped CQEs
	Retries         uint64 // EINTR/EAGAIN retries
	NoWaitEnters    uint64 // enters that could not sleep, made without the runtime's syscall hand-off
	RawWaitEnters   uint64 // waits made without the hand-off (SetRawWaits)
}

// NewRing returns an unset Ring; call QueueInit or QueueInitParams next.
func NewRing() *Ring { return NewRingOn(Kernel{}) }

// NewRingOn returns a Ring like NewRing whose setup goes through k.
func NewRingOn(k Kernel) *Ring { return &Ring{fd: -1, enterFd: -1, kernel: k} }

// CreateRing is NewRing followed by QueueInit(entries, 0).
func CreateRing(entries uint32) (*Ring, error) {
	r := NewRing()
	if err := r.QueueInit(entries, 0); err != nil {
		return nil, err
	}
	return r, nil
}

// QueueInit sets the ring up with entries SQ slots and setup flags flags.
func (r *Ring) QueueInit(entries uint32, flags uint32) error {
	p := Params{Flags: flags}
	return r.QueueInitParams(entries, &p)
}

// QueueInitParams sets the ring up from p (io_uring_queue_init_params): it
// calls io_uring_setup through the ring's Kernel, maps the rings at the offsets
// the kernel returned, and copies the kernel's answer back into p. Errors
// are *SetupError values that say why.
func (r *Ring) QueueInitParams(entries uint32, p *Params) error {
	if r.fd >= 0 {
		return errors.New("io_uring: ring already set up")
	}
	if p.Flags&(SetupNoMmap|SetupRegisteredFdOnly) != 0 {
		return &SetupError{Entries: entries, Flags: p.Flags, Err: unix.EINVAL,
			Reason: "NO_MMAP and REGISTERED_FD_ONLY are not supported by gofio's ring layer"}
	}
	in := *p
	// Stay on one thread from setup to Gettid: the kernel names the SQPOLL
	// thread after the thread that called io_uring_setup.
	runtime.LockOSThread()
	fd, err := r.kernel.setup(entries, p)
	tid := unix.Gettid()
	runtime.UnlockOSThread()
	if err != nil {
		return r.kernel.diagnoseSetup(entries, &in, err)
	}
	if err := r.mapRings(fd, p); err != nil {
		unix.Close(fd)
		return fmt.Errorf("io_uring: map rings: %w", err)
	}
	r.setupTID = tid
	return nil
}

// mapRings maps the SQ ring, CQ ring and SQE array of the ring fd and
// points the queues into them. Every offset comes from p.
func (r *Ring) mapRings(fd int, p *Params) error {
	sqeSize := uintptr(unsafe.Sizeof(SubmissionQueueEntry{}))
	cqeSize := uintptr(unsafe.Sizeof(CompletionQueueEvent{}))
	var sqShift, cqShift uint32
	if p.Flags&SetupSQE128 != 0 {
		sqeSize *= 2
		sqShift = 1
	}
	if p.Flags&SetupCQE32 != 0 {
		cqeSize *= 2
		cqShift = 1
	}
	sqLen := uintptr(p.SQOff.Array) + uintptr(p.SQEntries)*4
	if p.Flags&SetupNoSQArray != 0 {
		// The array is gone (sq_off.array is 0): cover the header fields.
		o := p.SQOff
		sqLen = uintptr(max(o.Head, o.Tail, o.RingMask, o.RingEntries, o.Flags, o.Dropped)) + 4
	}
	cqLen := uintptr(p.CQOff.CQEs) + uintptr(p.CQEntries)*cqeSize
	single := p.Features&FeatSingleMmap != 0
	if single {
		sqLen = max(sqLen, cqLen)
		cqLen = sqLen
	}
	const prot = unix.PROT_READ | unix.PROT_WRITE
	const mflags = unix.MAP_SHARED | unix.MAP_POPULATE
	ringMem, err := unix.Mmap(fd, offSQRing, int(sqLen), prot, mflags)
	if err != nil {
		return fmt.Errorf("sq ring (%d bytes): %w", sqLen, err)
	}
	cqMem := ringMem
	if !single {
		cqMem, err = unix.Mmap(fd, offCQRing, int(cqLen), prot, mflags)
		if err != nil {
			unix.Munmap(ringMem)
			return fmt.Errorf("cq ring (%d bytes): %w", cqLen, err)
		}
	}
	sqeLen := int(uintptr(p.SQEntries) * sqeSize)
	sqeMem, err := unix.Mmap(fd, offSQEs, sqeLen, prot, mflags)
	if err != nil {
		if !single {
			unix.Munmap(cqMem)
		}
		unix.Munmap(ringMem)
		return fmt.Errorf("sqe array (%d bytes): %w", sqeLen, err)
	}

	u32 := func(mem []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&mem[off])) }
	sq := &r.sq
	sq.khead = u32(ringMem, p.SQOff.Head)
	sq.ktail = u32(ringMem, p.SQOff.Tail)
	sq.kflags = u32(ringMem, p.SQOff.Flags)
	sq.kdropped = u32(ringMem, p.SQOff.Dropped)
	sq.mask = *u32(ringMem, p.SQOff.RingMask)
	sq.entries = *u32(ringMem, p.SQOff.RingEntries)
	sq.shift = sqShift
	sq.sqes = unsafe.Pointer(&sqeMem[0])
	sq.sqeHead, sq.sqeTail = 0, 0
	sq.array = nil
	if p.Flags&SetupNoSQArray == 0 {
		sq.array = unsafe.Slice(u32(ringMem, p.SQOff.Array), sq.entries)
		for i := range sq.array {
			sq.array[i] = uint32(i)
		}
	}
	cq := &r.cq
	cq.khead = u32(cqMem, p.CQOff.Head)
	cq.ktail = u32(cqMem, p.CQOff.Tail)
	cq.koverflow = u32(cqMem, p.CQOff.Overflow)
	cq.kflags = nil
	if p.CQOff.Flags != 0 {
		cq.kflags = u32(cqMem, p.CQOff.Flags)
	}
	cq.mask = *u32(cqMem, p.CQOff.RingMask)
	cq.entries = *u32(cqMem, p.CQOff.RingEntries)
	cq.shift = cqShift
	cq.cqes = unsafe.Pointer(&cqMem[p.CQOff.CQEs])

	r.fd, r.enterFd = fd, fd
	r.flags, r.features = p.Flags, p.Features
	r.ringMem, r.sqeMem = ringMem, sqeMem
	r.cqMem = nil
	if !single {
		r.cqMem = cqMem
	}
	r.params = *p
	r.stats = Stats{}
	r.waitPred = waitPredictor{}
	return nil
}

// QueueExit tears the ring down: it unregisters the ring fd, buffers and
// files it registered, unmaps all three mappings and closes the fd. Call it
// from the owner thread (a registered ring fd lives in that thread's table).
// It is safe to call twice.
func (r *Ring) QueueExit() error {
	if r.fd < 0 {
		return nil
	}
	var errs []error
	if r.intFlags&intFlagRegRing != 0 {
		if err := r.UnregisterRingFd(); err != nil {
			errs = append(errs, err)
		}
	}
	if r.bufsReg {
		if err := r.UnregisterBuffers(); err != nil {
			errs = append(errs, err)
		}
	}
	if r.filesReg {
		if err := r.UnregisterFiles(); err != nil {
			errs = append(errs, err)
		}
	}
	for _, m := range [][]byte{r.sqeMem, r.cqMem, r.ringMem} {
		if m != nil {
			if err := unix.Munmap(m); err != nil {
				errs = append(errs, fmt.Errorf("io_uring: munmap: %w", err))
			}
		}
	}
	if err := unix.Close(r.fd); err != nil {
		errs = append(errs, fmt.Errorf("io_uring: close ring fd: %w", err))
	}
	r.sqeMem, r.cqMem, r.ringMem = nil, nil, nil
	r.sq, r.cq = submissionQueue{}, completionQueue{}
	r.fd, r.enterFd = -1, -1
	r.enterFlags, r.intFlags = 0, 0
	return errors.Join(errs...)
}

// Fd returns the ring's file descriptor, -1 when not set up.
func (r *Ring) Fd() int { return r.fd }

// Flags returns the setup flags the ring was created with.
func (r *Ring) Flags() uint32 { return r.flags }

// Features returns the IORING_FEAT_* bits the kernel reported.
func (r *Ring) Features() uint32 { return r.features }

// Params returns the parameters the kernel filled in at setup.
func (r *Ring) Params() Params { return r.params }

// SQEntries returns the SQ size the kernel chose (a power of two).
func (r *Ring) SQEntries() uint32 { return r.sq.entries }

// CQEntries returns the CQ size the kernel chose.
func (r *Ring) CQEntries() uint32 { return r.cq.entries }

// SetupTID returns the id of the thread that created the ring; the kernel
// names its SQPOLL thread iou-sqp-<SetupTID>.
func (r *Ring) SetupTID() int { return r.setupTID }

// Stats returns the ring's call counters.
func (r *Ring) Stats() Stats { return r.stats }
