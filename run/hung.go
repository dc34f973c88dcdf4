package run

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/clock"
	"github.com/gofio/gofio/internal/joberr"
)

// Hung I/O (io_timeout), gofio's answer to fio's waiting forever:
//
//   - With io_timeout set, the loop publishes the issue time of every I/O
//     in flight (hangWatch.issue, one atomic per slot) and marks each
//     engine call (Submit, a blocking Reap) with its start time
//     (hangWatch.call).
//   - On engines that can wait with a time limit (engines.TimedReaper,
//     io_uring), the loop never blocks longer than hangPoll in a reap: it
//     finds an I/O older than io_timeout itself, asks the kernel to cancel
//     every request in flight (engines.Canceler, IORING_OP_ASYNC_CANCEL),
//     waits up to cancelWait for them to come back, and ends the job with
//     ETIMEDOUT.
//   - With the SQPOLL goroutine (twthread.Engine) the job's thread waits on the
//     goroutine's hand-off with a time limit, and its cancel goes through
//     the goroutine; a goroutine asleep in the kernel when the job ends is
//     abandoned with the ring and the job's buffers (twthread.Engine.Stats, which stops it).
//   - Where the job's thread is itself asleep in the kernel (psync's
//     pread, libaio's io_submit, an io_uring submit that the kernel runs
//     inline, as it does for FUSE), nothing in the thread can act. The
//     group's watcher goroutine (watchHangs) sees a call older than
//     hangGrace and an I/O older than io_timeout, takes the job over
//     (hangWatch.call goes to -1, which the thread checks when its call
//     returns), ends it with ETIMEDOUT and reports what completed. The
//     thread is abandoned: its buffers stay mapped, since the kernel may
//     still write into them, and when its call ever returns it exits
//     without touching the job.
//
// In both cases the message names the file, offset, length and age of the
// oldest I/O, and the job counts as failed. Requests the kernel could not
// cancel stay with it: closing an io_uring leaves them to the ring's exit
// work, and a thread in a FUSE request its server never answers stays in
// D state until the server answers or the connection is aborted
// (/sys/fs/fuse/connections/N/abort).

const (
	hangPoll   = 100 * time.Millisecond // longest timed reap under io_timeout
	hangGrace  = 250 * time.Millisecond // an engine call the watcher may take over
	cancelWait = 500 * time.Millisecond // how long cancelled requests get to come back
	hangTick   = 50 * time.Millisecond  // the watcher's period
)

// hangWatch is one job's in-flight tracker under io_timeout.
type hangWatch struct {
	timeout int64          // io_timeout in ns
	issue   []atomic.Int64 // per slot: issue time of the I/O in flight, 0 none
	// call is the start of the engine call the thread is in, 0 when it is
	// in none, -1 once the watcher took the job over.
	call     atomic.Int64
	lastScan int64

	// Set by the job's thread before its loop runs; read by the watcher
	// only after it won call.
	jr *jobRun
	p  *prepared
	l  *loop
	wg *sync.WaitGroup
}

func newHangWatch(timeout time.Duration, depth int) *hangWatch {
	if timeout <= 0 {
		return nil
	}
	return &hangWatch{timeout: int64(timeout), issue: make([]atomic.Int64, depth)}
}

// setHang puts the loop under io_timeout's h. An engine that cannot wait
// with a time limit here (io_uring before Linux 5.11, without
// IORING_FEAT_EXT_ARG) waits as without io_timeout, and the watcher takes
// the job over when it sleeps past the timeout: a note says so.
func (l *loop) setHang(h *hangWatch) {
	l.hang = h
	h.l = l
	l.reapLimit = hangPoll
	tr, ok := l.eng.(engines.TimedReaper)
	switch {
	case ok && tr.CanReapTimeout():
		l.timed = tr
	case ok:
		l.res.EngineNotes = append(l.res.EngineNotes, "io_timeout: the kernel cannot wait for completions with a time limit (IORING_FEAT_EXT_ARG, Linux 5.11): the watcher ends a stuck job, without IORING_OP_ASYNC_CANCEL")
	}
}

// callBegin marks the start of an engine call that may sleep.
func (l *loop) callBegin() {
	if l.hang != nil {
		l.callBeginWatched()
	}
}

// callBeginWatched is callBegin under io_timeout, kept out of line so that
// a job without it pays one inlined test per call.
func (l *loop) callBeginWatched() {
	// A copy for --status-interval if one is wanted: the call may never
	// return.
	l.snapshot()
	l.hang.call.Store(max(l.clock(), 1))
}

// callEnd marks its end; if the watcher took the job over meanwhile the
// thread leaves at once, touching nothing of the job.
func (l *loop) callEnd() {
	if l.hang != nil {
		l.callEndWatched()
	}
}

// callEndWatched is callEnd under io_timeout.
func (l *loop) callEndWatched() {
	if v := l.hang.call.Load(); v < 0 || !l.hang.call.CompareAndSwap(v, 0) {
		runtime.Goexit()
	}
}

// oldestInflight returns the slot and issue time of the oldest I/O in
// flight, or -1.
func (h *hangWatch) oldestInflight() (slot int, issued int64) {
	slot = -1
	for i := range h.issue {
		if t := h.issue[i].Load(); t > 0 && (slot < 0 || t < issued) {
			slot, issued = i, t
		}
	}
	return slot, issued
}

// hangCheck runs on the job's thread before it waits: it ends the job
// with ETIMEDOUT when an I/O has been outstanding longer than io_timeout,
// after asking the engine to cancel what is in flight. It reports whether
// the job ended.
func (l *loop) hangCheck() bool {
	h := l.hang
	now := l.clock()
	if now-h.lastScan < int64(hangTick) {
		return false
	}
	h.lastScan = now
	si, issued := h.oldestInflight()
	if si < 0 {
		return false
	}
	age := now - issued
	if age <= h.timeout {
		return false
	}
	s := &l.slots[si]
	note := l.cancelInflight()
	l.timedOut(s, time.Duration(age), note)
	return true
}

// cancelInflight asks a Canceler engine to cancel every request in flight
// and harvests, for up to cancelWait, what comes back; it returns a note
// saying what the kernel did.
func (l *loop) cancelInflight() string {
	c, ok := l.eng.(engines.Canceler)
	tr := l.timed
	if !ok || tr == nil {
		return ""
	}
	asked := 0
	for i := range l.hang.issue {
		if l.hang.issue[i].Load() > 0 {
			// A cancel may sleep in the kernel: under SQPOLL it waits
			// for a free SQE, which an SQ thread stuck issuing a request
			// inline (FUSE) never frees. The watcher then takes the job
			// over, as for any other call asleep there.
			l.callBegin()
			err := c.Cancel(uint32(i))
			l.callEnd()
			if err == nil {
				asked++
			}
		}
	}
	end := l.clock() + int64(cancelWait)
	for l.inflight > 0 && l.clock() < end {
		n, err := tr.ReapTimeout(l.cqes[:min(l.inflight, len(l.cqes))], 1, hangPoll)
		if err != nil {
			break
		}
		for _, cq := range l.cqes[:n] {
			l.hang.issue[cq.Slot].Store(0)
		}
		l.inflight -= n
	}
	ok1, running, gone := c.CancelResults()
	return fmt.Sprintf("io_timeout: IORING_OP_ASYNC_CANCEL tried on %d requests: %d cancelled, %d running (interrupted), %d not found; %d still in the kernel",
		asked, ok1, running, gone, l.inflight)
}

// timedOut ends the job with ETIMEDOUT for the I/O in slot s, age old.
func (l *loop) timedOut(s *slot, age time.Duration, note string) {
	name := l.slotPath(s)
	what := "read"
	switch s.op {
	case engines.OpWrite:
		what = "write"
	case engines.OpFsync, engines.OpFdatasync:
		what = "fsync"
	case engines.OpSyncFileRange:
		what = "sync_file_range"
	}
	msg := fmt.Sprintf("%s of %d bytes at offset %d of %s outstanding for %v (io_timeout=%v)",
		what, s.length-s.done, s.off, name, age.Round(time.Millisecond), time.Duration(l.hang.timeout))
	if l.warn != nil {
		fmt.Fprintf(l.warn, "gofio: %s: %s: %v\n", l.job.Name, msg, unix.ETIMEDOUT)
		if note != "" {
			fmt.Fprintf(l.warn, "gofio: %s: %s\n", l.job.Name, note)
		}
	}
	if note != "" {
		l.res.EngineNotes = append(l.res.EngineNotes, note)
	}
	l.setError(int(unix.ETIMEDOUT), "io_timeout", errors.New(joberr.Strerror(unix.ETIMEDOUT)+": "+msg))
	l.fatal, l.stopIssue = true, true
	if l.inflight > 0 && l.hang.p != nil {
		l.hang.p.keepBufs = true
	}
}

// watchHangs is the group's watcher: every hangTick it publishes each
// watched job's oldest in-flight age and takes over a job whose thread has
// been asleep in one engine call past hangGrace while an I/O is older than
// io_timeout. It returns when done is closed.
func watchHangs(e *env, jobs []*jobRun, done <-chan struct{}) {
	every(hangTick, done, func() {
		for _, jr := range jobs {
			h := jr.hang
			if h == nil {
				continue
			}
			now := clock.Nanotime()
			si, issued := h.oldestInflight()
			var age int64
			if si >= 0 {
				age = now - issued
			}
			jr.prog.OldestIO.Store(age)
			call := h.call.Load()
			if si < 0 || age <= h.timeout || call <= 0 || now-call < int64(hangGrace) {
				continue
			}
			if h.call.CompareAndSwap(call, -1) {
				h.takeOver(e, si, time.Duration(age))
			}
		}
	})
}

// takeOver ends a job whose thread is stuck in the kernel, on the
// watcher's goroutine: the thread will never touch the job again.
func (h *hangWatch) takeOver(e *env, si int, age time.Duration) {
	jr, p, l := h.jr, h.p, h.l
	l.ended = l.clock()
	l.timedOut(&l.slots[si], age, "io_timeout: the job's thread is asleep in the kernel in that I/O; it is abandoned with its buffers")
	p.abandoned = true
	jr.finish(e, p, l, false)
	e.exitAll(jr, e.group)
	// The abandoned thread never returns to the job's goroutine, which
	// would count the job's end: count it here, so exit_on_io_done
	// burners of the group still stop.
	e.ioJobDone(jr, e.group)
	closeTargets(e, jr)
	jr.end(h.wg)
}
