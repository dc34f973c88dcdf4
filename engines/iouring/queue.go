package iouring

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/uring"
)

// Queue prepares r in slot; it reaches the kernel on the next Submit. The
// SQE's user data is the slot number.
func (e *Engine) Queue(slot uint32, r *engines.Request) error {
	if r.File < 0 || r.File >= len(e.files) {
		return fmt.Errorf("io_uring engine: file index %d out of range", r.File)
	}
	if r.Op == engines.OpTrim {
		// fio's io_uring engine trims in its queue hook (BLKDISCARD),
		// never through the ring.
		e.trims.Trim(slot, e.fds[r.File], r)
		return nil
	}
	sqe, err := e.getSQE()
	if err != nil {
		return err
	}
	fd := e.files[r.File]
	var flags uint8
	if e.fixedFd {
		flags |= uring.SqeFixedFile
	}
	switch r.Op {
	case engines.OpRead, engines.OpWrite:
		write := r.Op == engines.OpWrite
		switch {
		case e.fixedBuf:
			if write {
				sqe.PrepareWriteFixed(fd, r.Buf, r.Offset, int(slot))
			} else {
				sqe.PrepareReadFixed(fd, r.Buf, r.Offset, int(slot))
			}
		case e.vectored:
			iov := e.iov[slot : slot+1]
			iov[0].Base = nil
			iov[0].SetLen(len(r.Buf))
			if len(r.Buf) > 0 {
				iov[0].Base = &r.Buf[0]
			}
			if write {
				sqe.PrepareWritev(fd, iov, r.Offset)
			} else {
				sqe.PrepareReadv(fd, iov, r.Offset)
			}
		default:
			if write {
				sqe.PrepareWrite(fd, r.Buf, r.Offset)
			} else {
				sqe.PrepareRead(fd, r.Buf, r.Offset)
			}
		}
		sqe.SetRWFlags(e.rwFlags)
	case engines.OpFsync:
		sqe.PrepareFsync(fd, 0)
	case engines.OpFdatasync:
		sqe.PrepareFsync(fd, uring.FsyncDatasync)
	case engines.OpSyncFileRange:
		// fio 3.33 leaves the slot's last buffer address in the SQE,
		// so the kernel fails each of its SYNC_FILE_RANGEs with EINVAL
		// (ignored); gofio's SQE is zeroed and the range is synced.
		if r.SyncLen == 0 {
			// No write completed since the last sync: fio sends an
			// offset of -1, which the kernel fails with EINVAL and
			// fio ignores; a no-op makes the same round trip and
			// syncs nothing, without failing the job.
			sqe.PrepareNop()
		} else {
			sqe.PrepareSyncFileRange(fd, r.Offset, uint32(r.SyncLen), e.sfr)
		}
	default:
		return fmt.Errorf("io_uring engine: unknown op %d", r.Op)
	}
	if r.Async {
		flags |= uring.SqeAsync
	} else if e.forceAsync > 0 {
		e.asyncCount++
		if e.asyncCount == e.forceAsync {
			e.asyncCount = 0
			flags |= uring.SqeAsync
		}
	}
	sqe.SetFlags(flags)
	sqe.SetIOPrio(r.IOPrio)
	sqe.SetData64(uint64(slot))
	return nil
}

// getSQE returns a free SQE, making room when the SQ is full: submit (or
// wake the SQPOLL stand-in) and, with SQPOLL, wait for the thread to
// consume entries.
func (e *Engine) getSQE() (*uring.SubmissionQueueEntry, error) {
	for tries := 0; ; tries++ {
		if sqe := e.ring.GetSQE(); sqe != nil {
			return sqe, nil
		}
		switch {
		case e.poller != nil:
			e.ring.FlushSQ()
			e.poller.wake()
			if err := e.poller.failed(); err != nil {
				return nil, err
			}
			runtime.Gosched()
		case e.sqpoll:
			if _, err := e.ring.Submit(); err != nil {
				return nil, fmt.Errorf("io_uring engine: submit: %w", err)
			}
			if err := e.ring.SQRingWait(); err != nil {
				return nil, fmt.Errorf("io_uring engine: %w", err)
			}
		default:
			if tries > 0 {
				return nil, errors.New("io_uring engine: the SQ stays full after a submit")
			}
			if _, err := e.ring.Submit(); err != nil {
				return nil, fmt.Errorf("io_uring engine: submit: %w", err)
			}
		}
	}
}

// Submit hands the queued requests to the kernel and returns how many.
// Without SQPOLL each submitting enter also passes GETEVENTS with
// min_complete 0, as fio's commit does, so deferred completions are posted
// while submitting. With SQPOLL (the kernel's or the stand-in) it only
// publishes them, and enters the kernel just to wake a sleeping thread.
func (e *Engine) Submit() (int, error) {
	n, err := e.submitRing()
	return n + e.trims.Submitted(), err
}

func (e *Engine) submitRing() (int, error) {
	ready := int(e.ring.SQReady())
	if e.poller != nil {
		e.ring.FlushSQ()
		e.poller.wake()
		if err := e.poller.failed(); err != nil {
			return 0, err
		}
		return ready, nil
	}
	var n uint
	var err error
	if e.getEvents {
		n, err = e.ring.SubmitAndGetEvents()
	} else {
		n, err = e.ring.Submit()
	}
	if err != nil {
		return int(n), fmt.Errorf("io_uring engine: %w", err)
	}
	if e.sqpoll {
		return ready, nil // n counts SQEs the thread has not consumed yet
	}
	return int(n), nil
}

// Reap copies up to len(out) completions into out, waiting until at least
// min are there. It does not allocate. Under SQPOLL (the kernel's or the
// stand-in) it waits as fio does there, busy-polling the CQ ring without
// entering the kernel (spinReaps); otherwise it waits in io_uring_enter.
func (e *Engine) Reap(out []engines.Completion, min int) (int, error) {
	n := e.trims.Pop(out)
	if n > 0 {
		k, err := e.reapRing(out[n:], min-n)
		return n + k, err
	}
	return e.reapRing(out, min)
}

func (e *Engine) reapRing(out []engines.Completion, min int) (int, error) {
	n := e.copyOut(out)
	if n == 0 && min <= 0 && len(out) > 0 {
		// Run pending task work or flush overflow when the kernel asks.
		if _, err := e.ring.PeekCQE(); err != nil && !isEAGAIN(err) {
			return 0, e.reapErr(err)
		}
		n = e.copyOut(out)
	}
	for n < min && n < len(out) {
		if e.poller != nil {
			if err := e.poller.failed(); err != nil {
				return n, err
			}
		}
		if e.spin {
			if _, err := e.spinCQ(uint32(min-n), -1); err != nil {
				return n, err
			}
		} else if _, err := e.ring.WaitCQENr(uint32(min - n)); err != nil {
			return n, e.reapErr(err)
		}
		n += e.copyOut(out[n:])
	}
	return n, nil
}

// copyOut moves ready CQEs into out, read in place in the CQ ring; the
// completions of cancel requests are counted, not returned.
func (e *Engine) copyOut(out []engines.Completion) int {
	total := 0
	for total < len(out) {
		k := min(int(e.ring.CQReady()), len(out)-total)
		if k == 0 {
			break
		}
		j := total
		for i := 0; i < k; i++ {
			c := e.ring.CQEAt(uint32(i))
			if c.UserData&cancelTag != 0 {
				e.countCancel(c.Res)
				continue
			}
			out[j] = engines.Completion{Slot: uint32(c.UserData), Res: c.Res}
			j++
		}
		e.ring.CQAdvance(uint32(k))
		total = j
	}
	return total
}

func (e *Engine) reapErr(err error) error {
	if errors.Is(err, uring.ErrCQEDropped) {
		e.dropped = uint64(e.ring.CQOverflowCount())
	}
	return fmt.Errorf("io_uring engine: %w", err)
}

// Close stops the SQPOLL stand-in and tears the ring down. Files belong to
// the caller.
func (e *Engine) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	var err error
	if e.poller != nil {
		err = e.poller.stop()
	}
	if e.ring != nil {
		e.dropped = max(e.dropped, uint64(e.ring.CQOverflowCount()))
		err = errors.Join(err, e.ring.QueueExit())
	}
	return err
}

// Stats reports the engine's counters for the report's gofio extras.
func (e *Engine) Stats() engines.Stats {
	rs := e.ring.Stats()
	st := engines.Stats{
		SubmitCalls:   rs.SubmitEnters,
		WaitCalls:     rs.WaitEnters,
		DroppedCQEs:   e.dropped,
		OverflowFlush: rs.OverflowFlushes,
		SQPollTID:     e.sqpollTID,
		SetupFlags:    append([]string(nil), e.setupFlags...),
		Warnings:      append([]string(nil), e.warnings...),
	}
	if e.sqpoll && e.sqpollTID == 0 && !e.closed {
		e.sqpollTID = e.ring.SQPollTID()
		st.SQPollTID = e.sqpollTID
	}
	if !e.closed {
		st.DroppedCQEs = max(st.DroppedCQEs, uint64(e.ring.CQOverflowCount()))
	}
	if e.poller != nil {
		st.SubmitCalls += e.poller.enters.Load()
	}
	return st
}

func isEAGAIN(err error) bool { return errors.Is(err, unix.EAGAIN) }

// CanReapTimeout reports whether the engine waits with a time limit: a
// spinning reap (spinReaps) always can, a wait in the kernel needs
// IORING_FEAT_EXT_ARG, Linux 5.11.
func (e *Engine) CanReapTimeout() bool { return e.spin || e.ring.Features()&uring.FeatExtArg != 0 }

// ReapTimeout is Reap bounded by d: it waits at most d for the first
// completion and returns what is there then, possibly none. It needs
// CanReapTimeout. Where Reap spins, it spins too, reading the clock every
// spinCheck polls.
func (e *Engine) ReapTimeout(out []engines.Completion, min int, d time.Duration) (int, error) {
	n, err := e.Reap(out, 0)
	if err != nil || n >= min || n == len(out) {
		return n, err
	}
	if e.poller != nil {
		if err := e.poller.failed(); err != nil {
			return n, err
		}
	}
	if e.spin {
		if _, err := e.spinCQ(1, max(d, 0)); err != nil {
			return n, err
		}
		return n + e.copyOut(out[n:]), nil
	}
	if _, err := e.ring.WaitCQETimeout(d); err != nil && !errors.Is(err, unix.ETIME) {
		return n, e.reapErr(err)
	}
	return n + e.copyOut(out[n:]), nil
}

// Cancel asks the kernel to cancel the request in slot with
// IORING_OP_ASYNC_CANCEL and submits it at once.
func (e *Engine) Cancel(slot uint32) error {
	sqe, err := e.getSQE()
	if err != nil {
		return err
	}
	sqe.PrepareCancel64(uint64(slot))
	sqe.SetData64(cancelTag | uint64(slot))
	_, err = e.submitRing()
	return err
}

// CancelResults counts what the cancellations so far found.
func (e *Engine) CancelResults() (cancelled, running, notFound int) {
	return e.cancelOK, e.cancelRunning, e.cancelNotFound
}

func (e *Engine) countCancel(res int32) {
	switch {
	case res == 0:
		e.cancelOK++
	case res == -int32(unix.EALREADY):
		e.cancelRunning++
	default:
		e.cancelNotFound++
	}
}
