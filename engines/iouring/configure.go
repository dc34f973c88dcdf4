package iouring

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/uring"
)

// configure registers buffers and files, probes opcodes, applies io-wq
// limits, checks IOPOLL and starts the SQPOLL stand-in.
func (e *Engine) configure(s engines.Setup, p uring.Params) error {
	job := s.Job
	r := e.ring
	e.files = append([]int(nil), s.Files...)

	switch job.NonVectored {
	case 1:
	case 0:
		e.vectored = true
	default:
		probe, err := r.GetProbeRing()
		e.vectored = err != nil || !probe.IsSupported(uring.OpRead) || !probe.IsSupported(uring.OpWrite)
	}
	if e.vectored {
		e.iov = make([]unix.Iovec, e.depth)
	}
	if job.NoWait {
		e.rwFlags |= unix.RWF_NOWAIT
	}
	if job.Uncached && !job.Direct {
		// fio 3.33's RWF_UNCACHED, buffered I/O only; fio sends 0x40,
		// RWF_ATOMIC since Linux 6.11.
		e.rwFlags |= unix.RWF_DONTCACHE
	}
	e.sfr = job.SyncFileRange
	if job.FixedBufs {
		if len(s.Bufs) < e.depth {
			return fmt.Errorf("io_uring engine: fixedbufs: %d buffers for %d slots", len(s.Bufs), e.depth)
		}
		if e.depth > uring.MaxRegBuffers {
			return fmt.Errorf("io_uring engine: fixedbufs: iodepth %d is over the kernel's %d registered buffers", e.depth, uring.MaxRegBuffers)
		}
		if err := r.RegisterBufferSlices(s.Bufs[:e.depth]); err != nil {
			return fmt.Errorf("io_uring engine: fixedbufs: %w", err)
		}
		e.fixedBuf = true
	}
	if job.RegisterFiles || job.SQThreadPoll {
		fds := make([]int32, len(s.Files))
		for i, fd := range s.Files {
			fds[i] = int32(fd)
		}
		if err := r.RegisterFiles(fds); err != nil {
			return fmt.Errorf("io_uring engine: registerfiles: %w", err)
		}
		for i := range e.files {
			e.files[i] = i
		}
		e.fixedFd = true
	}
	if job.IOWQMaxWorkers != [2]uint32{} {
		if _, err := r.RegisterIOWQMaxWorkers(job.IOWQMaxWorkers); err != nil {
			return fmt.Errorf("io_uring engine: iowq_max_workers: %w", err)
		}
	}
	if e.iopoll {
		if err := e.checkPollable(s.Files); err != nil {
			return err
		}
	}
	if e.poller != nil {
		e.poller.start()
		e.sqpollTID = e.poller.waitTID()
	} else {
		// Enters pass an index into this thread's table from now on.
		if err := r.RegisterRingFd(); err != nil {
			e.warnings = append(e.warnings, "io_uring: could not register the ring fd: "+err.Error())
		}
	}
	return nil
}

// ErrNoPollQueues is wrapped by Open's error when hipri (IOPOLL) was asked
// for and a file cannot be polled: a block device without poll queues
// (NVMe needs nvme.poll_queues) or a file system without iopoll.
var ErrNoPollQueues = errors.New("hipri: the kernel cannot poll this file for completions (no poll queues; for NVMe set nvme.poll_queues, and use direct=1)")

// checkPollable issues a zero-length read (or write, for a write-only fd)
// to every file: an IOPOLL ring answers -EOPNOTSUPP where the device has
// no poll queues, before any data moves.
func (e *Engine) checkPollable(fds []int) error {
	for i, fd := range fds {
		mode, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		if err != nil {
			return fmt.Errorf("io_uring engine: file %d: %w", i, err)
		}
		sqe := e.ring.GetSQE()
		if mode&unix.O_ACCMODE == unix.O_WRONLY {
			sqe.PrepareWrite(e.files[i], nil, 0)
		} else {
			sqe.PrepareRead(e.files[i], nil, 0)
		}
		if e.fixedFd {
			sqe.SetFlags(uring.SqeFixedFile)
		}
		if _, err := e.ring.Submit(); err != nil {
			return fmt.Errorf("io_uring engine: hipri check: %w", err)
		}
		cqe, err := e.ring.WaitCQE()
		if err != nil {
			return fmt.Errorf("io_uring engine: hipri check: %w", err)
		}
		res := cqe.Res
		e.ring.CQESeen(cqe)
		if res == -int32(unix.EOPNOTSUPP) {
			return fmt.Errorf("io_uring engine: file %d: %w", i, ErrNoPollQueues)
		}
		if res < 0 {
			return fmt.Errorf("io_uring engine: hipri check of file %d: %w", i, unix.Errno(-res))
		}
	}
	return nil
}
