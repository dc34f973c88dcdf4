package uring

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// GetSQE returns the next free SQE with all of its bytes zeroed (stale
// fields from an earlier use make the kernel fail with -EINVAL), or nil when
// the SQ is full. The SQE reaches the kernel on the next Submit.
func (r *Ring) GetSQE() *SubmissionQueueEntry {
	sq := &r.sq
	tail := sq.sqeTail
	// Acquire: with SQPOLL (or a submitting helper thread) the kernel may
	// still be reading older SQEs; on amd64 this is a plain load anyway.
	if tail-atomicLoad(sq.khead) >= sq.entries {
		return nil
	}
	sqe := sq.sqeAt((tail & sq.mask) << sq.shift)
	if sq.shift != 0 {
		*(*[2]SubmissionQueueEntry)(unsafe.Pointer(sqe)) = [2]SubmissionQueueEntry{}
	} else {
		*sqe = SubmissionQueueEntry{}
	}
	sq.sqeTail = tail + 1
	return sqe
}

// SQReady returns how many SQEs were prepared but not yet published.
func (r *Ring) SQReady() uint32 { return r.sq.sqeTail - r.sq.sqeHead }

// SQSpaceLeft returns how many SQEs GetSQE can still hand out.
func (r *Ring) SQSpaceLeft() uint32 {
	return r.sq.entries - (r.sq.sqeTail - atomicLoad(r.sq.khead))
}

// bufAddr returns the address of b's first byte as the kernel wants it.
func bufAddr(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}

// prepareRW fills the fields shared by the read/write opcodes. The SQE was
// zeroed by GetSQE, so only non-zero fields are written.
func (s *SubmissionQueueEntry) prepareRW(op uint8, fd int, addr uint64, n uint32, offset uint64) {
	s.OpCode = op
	s.Fd = int32(fd)
	s.Addr = addr
	s.Len = n
	s.Off = offset
}

// PrepareNop prepares a no-op.
func (s *SubmissionQueueEntry) PrepareNop() { s.OpCode = OpNop }

// PrepareRead prepares a read of len(buf) bytes at offset. buf must stay
// alive and unmoved until the CQE arrives (use mmap'd or pinned memory).
func (s *SubmissionQueueEntry) PrepareRead(fd int, buf []byte, offset uint64) {
	s.prepareRW(OpRead, fd, bufAddr(buf), uint32(len(buf)), offset)
}

// PrepareWrite prepares a write of buf at offset; buf must stay alive and
// unmoved until the CQE arrives.
func (s *SubmissionQueueEntry) PrepareWrite(fd int, buf []byte, offset uint64) {
	s.prepareRW(OpWrite, fd, bufAddr(buf), uint32(len(buf)), offset)
}

// PrepareReadv prepares a vectored read into iovecs. The iovec array and
// the buffers it points at must stay alive until the CQE arrives.
func (s *SubmissionQueueEntry) PrepareReadv(fd int, iovecs []unix.Iovec, offset uint64) {
	s.prepareRW(OpReadv, fd, iovecAddr(iovecs), uint32(len(iovecs)), offset)
}

// PrepareWritev prepares a vectored write from iovecs; the same lifetime
// rule as PrepareReadv applies.
func (s *SubmissionQueueEntry) PrepareWritev(fd int, iovecs []unix.Iovec, offset uint64) {
	s.prepareRW(OpWritev, fd, iovecAddr(iovecs), uint32(len(iovecs)), offset)
}

// PrepareReadFixed prepares a read into buf, which lies inside registered
// buffer bufIndex.
func (s *SubmissionQueueEntry) PrepareReadFixed(fd int, buf []byte, offset uint64, bufIndex int) {
	s.prepareRW(OpReadFixed, fd, bufAddr(buf), uint32(len(buf)), offset)
	s.BufIG = uint16(bufIndex)
}

// PrepareWriteFixed prepares a write from buf, which lies inside registered
// buffer bufIndex.
func (s *SubmissionQueueEntry) PrepareWriteFixed(fd int, buf []byte, offset uint64, bufIndex int) {
	s.prepareRW(OpWriteFixed, fd, bufAddr(buf), uint32(len(buf)), offset)
	s.BufIG = uint16(bufIndex)
}

// PrepareFsync prepares an fsync, or an fdatasync with FsyncDatasync.
func (s *SubmissionQueueEntry) PrepareFsync(fd int, flags uint32) {
	s.OpCode = OpFsync
	s.Fd = int32(fd)
	s.OpcodeFlags = flags
}

// PrepareSyncFileRange prepares a sync_file_range(2) of n bytes at offset
// with flags (SYNC_FILE_RANGE_*); the kernel takes a 32-bit length.
func (s *SubmissionQueueEntry) PrepareSyncFileRange(fd int, offset uint64, n uint32, flags uint32) {
	s.prepareRW(OpSyncRange, fd, 0, n, offset)
	s.OpcodeFlags = flags
}

// PrepareTimeout prepares a timeout that completes with -ETIME after ts, or
// earlier with 0 once count other CQEs arrived (count 0 means time only).
// ts is passed by address (not the address of the pointer, giouring's bug):
// it must stay alive until the SQE is consumed.
func (s *SubmissionQueueEntry) PrepareTimeout(ts *unix.Timespec, count uint32, flags uint32) {
	s.OpCode = OpTimeout
	s.Fd = -1
	s.Addr = uint64(uintptr(unsafe.Pointer(ts)))
	s.Len = 1
	s.Off = uint64(count)
	s.OpcodeFlags = flags
}

// PrepareCancel64 prepares an IORING_OP_ASYNC_CANCEL of the request whose
// user data is userData. Its own CQE's res is 0 when the request was
// cancelled, -EALREADY when it was running and the kernel tried to
// interrupt it, -ENOENT when no such request was in flight.
func (s *SubmissionQueueEntry) PrepareCancel64(userData uint64) {
	s.OpCode = OpAsyncCancel
	s.Fd = -1
	s.Addr = userData
}

// SetData64 sets the user data echoed in the CQE: an integer such as a slot
// index, never a pointer.
func (s *SubmissionQueueEntry) SetData64(v uint64) { s.UserData = v }

// SetFlags sets the IOSQE_* flags (SqeFixedFile, SqeAsync, SqeIOLink, ...).
func (s *SubmissionQueueEntry) SetFlags(flags uint8) { s.Flags = flags }

// SetIOPrio sets the I/O priority (ioprio class << 13 | level).
func (s *SubmissionQueueEntry) SetIOPrio(prio uint16) { s.IoPrio = prio }

// SetRWFlags sets the RWF_* flags of a read or write (unix.RWF_NOWAIT, ...).
func (s *SubmissionQueueEntry) SetRWFlags(flags uint32) { s.OpcodeFlags = flags }

func iovecAddr(v []unix.Iovec) uint64 {
	if len(v) == 0 {
		return 0
	}
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(v))))
}
