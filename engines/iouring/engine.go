package iouring

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/uring"
	"github.com/gofio/gofio/jobfile"
)

// Engine runs one job's requests on one io_uring.
type Engine struct {
	ring     *uring.Ring
	files    []int // fds, or registered indexes when fixedFile
	fds      []int // the files' descriptors, for trims
	trims    engines.QueueTrims
	iov      []unix.Iovec // one per slot, for READV/WRITEV
	depth    int
	fixedBuf bool
	fixedFd  bool
	vectored bool
	rwFlags  uint32
	sfr      uint32 // sync_file_range= flags
	sqpoll   bool   // kernel SQPOLL thread
	iopoll   bool
	// getEvents makes every submitting enter also pass
	// IORING_ENTER_GETEVENTS (min_complete 0), as fio's commit does: the
	// kernel then runs DEFER_TASKRUN work and flushes overflow on each
	// submit, so completions reach the CQ ring without a separate wait.
	getEvents bool
	// spin makes Reap busy-poll the CQ ring instead of waiting in the
	// kernel, as fio's getevents does under sqthread_poll=1 (spinReaps).
	spin bool

	forceAsync int
	asyncCount int

	poller *poller // SQPOLL stand-in when the kernel refused SQPOLL

	setupFlags []string
	warnings   []string
	sqpollTID  int
	dropped    uint64
	closed     bool

	// Cancellations (Cancel): their CQEs carry cancelTag|slot and are
	// counted here, never handed to the caller.
	cancelOK, cancelRunning, cancelNotFound int
}

// cancelTag marks the user data of an IORING_OP_ASYNC_CANCEL's own CQE;
// slots never reach it.
const cancelTag = 1 << 63

var (
	_ engines.Engine        = (*Engine)(nil)
	_ engines.StatsReporter = (*Engine)(nil)
	_ engines.TimedReaper   = (*Engine)(nil)
	_ engines.Canceler      = (*Engine)(nil)
)

// Open sets up the ring for s and registers what the job asks for. The
// calling goroutine must be locked to its OS thread (see the package doc).
func Open(s engines.Setup) (engines.Engine, error) { return OpenOn(uring.Kernel{})(s) }

// OpenOn returns an Open whose rings are set up through k: tests hand it a
// kernel that refuses io_uring or SQPOLL.
func OpenOn(k uring.Kernel) engines.Opener {
	return func(s engines.Setup) (engines.Engine, error) {
		e, err := open(s, k)
		if err != nil {
			return nil, err
		}
		return e, nil
	}
}

func open(s engines.Setup, k uring.Kernel) (*Engine, error) {
	job := s.Job
	if job == nil {
		return nil, errors.New("io_uring engine: no job")
	}
	if s.Depth < 1 {
		return nil, fmt.Errorf("io_uring engine: depth %d, want at least 1", s.Depth)
	}
	if len(s.Files) == 0 {
		return nil, errors.New("io_uring engine: no files")
	}
	e := &Engine{depth: s.Depth, forceAsync: job.ForceAsync, fds: s.Files, trims: engines.NewQueueTrims(s.Depth)}
	p, err := e.setupRing(k, job, s.Depth)
	if err != nil {
		return nil, err
	}
	// The SQPOLL stand-in is a goroutine of its own that needs a P to
	// submit while the owner waits, so with it the waits keep the hand-off.
	// A submit on FUSE or a network filesystem sleeps inline for as long
	// as the I/O takes: it must not hold the P (engines.SubmitsMayBlock).
	blocks := engines.SubmitsMayBlock(s.Files)
	e.ring.SetSubmitsBlock(blocks)
	e.ring.SetRawWaits(s.OwnP && e.poller == nil && !blocks)
	e.spin = spinReaps(e.sqpoll, e.poller != nil, e.iopoll, s.OwnP)
	if err := e.configure(s, p); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// ringParams builds the setup parameters the job asks for.
func ringParams(job *jobfile.Job, depth int) (uint32, uring.Params) {
	entries := uint32(min(depth, uring.MaxEntries))
	p := uring.Params{Flags: uring.SetupCQSize | uring.SetupNoSQArray, CQEntries: uint32(depth)}
	if depth > uring.MaxCQEntries {
		p.Flags |= uring.SetupClamp
	}
	if job.Hipri {
		p.Flags |= uring.SetupIOPoll
	}
	if job.SQThreadPoll {
		p.Flags |= uring.SetupSQPoll
		if job.SQThreadPollCPU >= 0 {
			p.Flags |= uring.SetupSQAff
			p.SQThreadCPU = uint32(job.SQThreadPollCPU)
		}
		p.SQThreadIdle = uint32(job.SQThreadIdle / time.Millisecond)
		return entries, p // the kernel refuses task-run modes with SQPOLL
	}
	if job.TaskrunAuto {
		// fio's flags; QueueInitFallback drops them group by group.
		p.Flags |= uring.SetupCoopTaskrun | uring.SetupSingleIssuer | uring.SetupDeferTaskrun
	}
	if job.CoopTaskrun {
		p.Flags |= uring.SetupCoopTaskrun | uring.SetupTaskrunFlag
	}
	if job.DeferTaskrun {
		p.Flags |= uring.SetupSingleIssuer | uring.SetupDeferTaskrun | uring.SetupTaskrunFlag
	}
	if job.SingleIssuer {
		p.Flags |= uring.SetupSingleIssuer
	}
	return entries, p
}

// setupRing creates the ring, falling back group by group like fio, and to
// the SQPOLL goroutine when the kernel refuses SQPOLL.
func (e *Engine) setupRing(k uring.Kernel, job *jobfile.Job, depth int) (uring.Params, error) {
	entries, p := ringParams(job, depth)
	if job.SQThreadPoll && (job.CoopTaskrun || job.DeferTaskrun) {
		e.warnings = append(e.warnings, "coop_taskrun/defer_taskrun ignored: the kernel does not combine them with sqthread_poll")
	}
	want := p
	r := uring.NewRingOn(k)
	dropped, err := r.QueueInitFallback(entries, &p)
	if err != nil && want.Flags&uring.SetupSQPoll != 0 && sqpollRefused(err) {
		why := err
		p = want
		p.Flags &^= uring.SetupSQPoll | uring.SetupSQAff
		p.SQThreadIdle, p.SQThreadCPU = 0, 0
		r = uring.NewRingOn(k)
		dropped, err = r.QueueInitFallback(entries, &p)
		if err == nil {
			e.poller = newPoller(r, job.SQThreadIdle, job.SQThreadPollCPU)
			e.warnings = append(e.warnings, fmt.Sprintf(
				"sqthread_poll: the kernel refused SQPOLL (%v); a gofio thread does the submitting instead", why))
		}
	}
	if err != nil {
		return p, fmt.Errorf("io_uring engine: %w", err)
	}
	for _, g := range dropped {
		if g == "NO_SQARRAY" {
			continue // an optimisation nobody asked for
		}
		e.warnings = append(e.warnings, "io_uring: the kernel refused "+g+"; running without it")
	}
	e.ring = r
	e.sqpoll = r.Flags()&uring.SetupSQPoll != 0
	e.iopoll = r.Flags()&uring.SetupIOPoll != 0
	e.getEvents = !e.sqpoll
	e.setupFlags = uring.FlagNames(r.Flags())
	return p, nil
}

// sqpollRefused reports whether a setup error is the kernel refusing
// SQPOLL itself (a security module's EPERM, or EINVAL naming SQPOLL or
// SQ_AFF on an old kernel) rather than io_uring as a whole.
func sqpollRefused(err error) bool {
	var se *uring.SetupError
	if !errors.As(err, &se) {
		return false
	}
	if errors.Is(err, unix.EINVAL) {
		return se.Flag == "SQPOLL" || se.Flag == "SQ_AFF"
	}
	return errors.Is(err, unix.EPERM)
}
