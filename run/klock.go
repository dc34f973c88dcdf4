package run

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/internal/klock/lockbpf"
	"github.com/gofio/gofio/jobfile"
)

// startKernelLocks starts the job's lock-contention tracer before its
// first I/O when the job asks for it (kernel_locks, --kernel-locks). The
// traced threads are the job's own, gofio's or the kernel's SQ thread,
// and (by name) the io-wq workers and SQPOLL thread working for them.
// Tracing that cannot run leaves a result saying why and a note, or, with
// kernel_locks=required, fails the job.
func (jr *jobRun) startKernelLocks(e *env, p *prepared, l *loop) *joberr.Error {
	j := jr.job
	mode := j.KernelLocks.Or(e.opts.KernelLocks)
	if mode == jobfile.TracerOff {
		return nil
	}
	// The SQ thread's own io-wq workers are named after it.
	tids, _ := tracedThreads(j, p, l)
	kl, err := lockbpf.Open(lockbpf.Config{Pid: os.Getpid(), Tids: tids, Euid: os.Geteuid(), Stats: e.opts.KernelTraceCost})
	if err != nil {
		res := lockbpf.Unavailability(err)
		return tracerUnavailable(e, j, mode, "kernel_locks", "kernel locks", res.Reason, err, &jr.res.KernelLocks, res)
	}
	l.klock = kl
	return nil
}

// tracedThreads returns the threads a job's kernel tracer follows: the
// job's own, and the SQ thread that submits for it, gofio's stand-in
// (tw_thread) or the kernel's (sqthread_poll); noSQ says the kernel's
// was not found.
func tracedThreads(j *jobfile.Job, p *prepared, l *loop) (tids []int, noSQ bool) {
	tids = []int{p.tid}
	switch {
	case l.tw != nil:
		tids = append(tids, l.tw.TID())
	case j.KernelSQPoll():
		// The ring's own answer (its fdinfo), not a thread's name.
		s, ok := l.eng.(engines.SQThreader)
		if !ok {
			return tids, true
		}
		sq := s.SQThread()
		if sq == 0 || sq == p.tid {
			return tids, true
		}
		tids = append(tids, sq)
	}
	return tids, false
}

// tracerUnavailable settles a job's kernel tracer (option, e.g.
// kernel_locks; what, e.g. "kernel locks") that cannot run for reason
// (err as its Open returned it): with option=required it fails the job,
// with EPERM when privilege is what lacks, else ENOTSUP; otherwise the
// result's record of the tracer (rec) takes unavailable, the tracer's
// record of why, a note says why, and the job runs untraced (nil).
func tracerUnavailable[R any](e *env, j *jobfile.Job, mode jobfile.TracerMode, option, what, reason string, err error, rec *R, unavailable R) *joberr.Error {
	if mode == jobfile.TracerRequired {
		errno := unix.ENOTSUP
		if errors.Is(err, unix.EPERM) || os.Geteuid() != 0 {
			errno = unix.EPERM
		}
		return &joberr.Error{Job: j.Name, Where: option + "=required", Op: what, Fn: option, Errno: errno, Err: errors.New(reason)}
	}
	*rec = unavailable
	e.warnf("note: %s: %s unavailable: %s\n", j.Name, what, reason)
	return nil
}

// stopKernelLocks stops the job's lock-contention tracer and puts its
// figures, per I/O of the job so far, in the result, with a note of what
// the tracing cost when it was measured (--kernel-trace-cost).
func (l *loop) stopKernelLocks() {
	if l.klock == nil {
		return
	}
	var ios uint64
	for d := range l.res.Dirs {
		ios += l.res.Dirs[d].TotalIOs
	}
	kl := l.klock.Close(ios)
	l.klock = nil
	l.res.KernelLocks = kl
	if kl.Note != "" {
		l.res.EngineNotes = append(l.res.EngineNotes, "kernel locks: "+kl.Note)
	}
	if kl.LostEvents > 0 {
		l.res.EngineNotes = append(l.res.EngineNotes, fmt.Sprintf(
			"kernel locks: %d contentions uncounted (the tracer's tables were full)", kl.LostEvents))
	}
	if ios > 0 && kl.BPFRuns > 0 {
		l.res.EngineNotes = append(l.res.EngineNotes, fmt.Sprintf(
			"kernel locks: tracing cost %.2f us of CPU per I/O (BPF programs, %d runs); bench/results.md has its IOPS cost",
			kl.BPFNsPerIO()/1000, kl.BPFRuns))
	}
}
