package twthread

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/clock"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/sched"
)

// Engine is the SQPOLL goroutine of tw_thread=goroutine: it plays the
// kernel's SQ thread as the priority tw patch had it, where the
// submission itself (__io_queue_sqe) was task work and the SQ thread ran
// submissions and completions from one task-work queue.
//
// The job's loop sees an ordinary engine. Queue stores the prepared
// request in its slot; Submit publishes the queued slots through a
// sched.Handoff and wakes the goroutine; Reap takes the completions the
// goroutine posted through a second Handoff. The goroutine, on its own
// locked OS thread, owns the real engine (a ring without SQPOLL, opened on
// that thread) and a sched.Queue under the job's policy:
//
//   - heavy items are submissions: a published slot is queued to the ring
//     and the kernel is entered to issue it;
//   - every harvest of the CQ (between heavy items, as an irq) adds one
//     completion item per CQE; running it records the tw wait and posts
//     the completion to the job.
//
// Under FIFO a CQE harvested while submissions are queued waits behind
// them; under priority it runs first. tw wait per I/O is the goroutine's
// wait plus the job loop's own.
//
// Under io_timeout (hung.go) the job's loop waits with ReapTimeout, which
// gives up after its time on the job's side of the hand-off, and Cancel
// asks the goroutine to cancel a slot: one still queued as a heavy item
// completes with -ECANCELED without reaching the ring, one in the ring
// gets the real engine's IORING_OP_ASYNC_CANCEL. The goroutine marks each
// call into the real engine with its start time; one asleep in the kernel
// (a submit the kernel runs inline, as for FUSE) past its Watch.Grace when the
// job ends is abandoned with its buffers, as the plain path abandons a
// stuck job thread: stop gives up on it and Close leaves the engine to it.
type Engine struct {
	eng   engines.Engine
	now   func() int64
	q     *sched.Queue
	sub   sched.Handoff // job -> goroutine: published slots
	done  sched.Handoff // goroutine -> job: completed slots
	reqs  []engines.Request
	res   []int32 // result per slot, written before the slot is posted
	wait  []int64 // the goroutine's tw wait per slot, likewise
	cqes  []engines.Completion
	batch sched.Batch

	// Job side.
	pending []uint32 // queued by the job, not yet published
	nPend   int
	taken   sched.List // completions taken from done, not yet returned

	// Goroutine side.
	subl     sched.List
	inflight int

	twPark, jobPark parker
	quit            atomic.Bool
	stopped         chan struct{} // closed when the goroutine left its loop
	closeCh         chan struct{} // closing it lets the goroutine close the engine
	closed          chan struct{} // closed after the engine closed
	err             atomic.Pointer[error]
	stats           engines.Stats
	closeErr        error
	lockFree        bool
	tid             int // the goroutine's OS thread, set before the engine opens
	cpu             int // the CPU the goroutine's thread is pinned to, -1 for none

	// io_timeout: watch.On says the job runs under it.
	watch Watch
	call  atomic.Int64 // start of the goroutine's engine call, 0 when in none
	stuck atomic.Bool  // stop gave up on the goroutine, asleep in the kernel
	// Job side asks: cancelReq per slot, cancelAsk when any is set.
	cancelReq []atomic.Bool
	cancelAsk atomic.Bool
	// What the cancellations found, published by the goroutine.
	cancelOK, cancelRunning, cancelGone atomic.Int64
	// Goroutine side: where each slot is (slotIdle, slotQueued, slotInRing),
	// the slots to complete with -ECANCELED instead of submitting them, and
	// the counts that did not reach the real engine.
	where              []uint8
	cancelEarly        []bool
	earlyOK, earlyGone int
	cancelling         bool
}

var (
	_ engines.TimedReaper = (*Engine)(nil)
	_ engines.Canceler    = (*Engine)(nil)
)

// Where a slot is, on the goroutine's side.
const (
	slotIdle   = iota // not published, or completed
	slotQueued        // taken from the job, a heavy item not yet submitted
	slotInRing        // submitted to the real engine
)

// parker puts a thread to sleep until another wakes it, on a futex,
// without a lost wake-up: the sleeper stores asleep, reads seq and
// re-checks for work before it waits on seq; the waker publishes work,
// then, when the sleeper is asleep, bumps seq and wakes it. Both sides run
// on locked OS threads: a futex is one wake-up of the sleeping thread
// itself, where a channel takes Go's scheduler two thread hand-offs (a
// spinning M steals the goroutine and hands its P to the locked M).
type parker struct {
	asleep atomic.Uint32
	seq    atomic.Uint32
}

func (p *parker) wake() {
	if p.asleep.Load() == 1 {
		p.kick()
	}
}

// kick wakes the sleeper whether or not it is asleep.
func (p *parker) kick() {
	p.seq.Add(1)
	futex(&p.seq, futexWakePrivate, 1, nil)
}

// park sleeps unless ready reports work. It may return without work (a
// signal); callers check again.
func (p *parker) park(ready func() bool) { p.parkFor(ready, 0) }

// parkFor is park bounded by d (unbounded for 0).
func (p *parker) parkFor(ready func() bool, d time.Duration) {
	p.asleep.Store(1)
	seq := p.seq.Load()
	if !ready() {
		var ts *unix.Timespec
		if d > 0 {
			t := unix.NsecToTimespec(int64(d))
			ts = &t
		}
		futex(&p.seq, futexWaitPrivate, seq, ts)
	}
	p.asleep.Store(0)
}

// The futex operations (linux/futex.h: FUTEX_WAIT or FUTEX_WAKE with
// FUTEX_PRIVATE_FLAG), which x/sys/unix does not name.
const (
	futexWaitPrivate = 0 | 128
	futexWakePrivate = 1 | 128
)

// futex is futex(2) on word: FUTEX_WAIT returns when the word no longer
// holds val, when woken, on a signal or at the timeout; FUTEX_WAKE wakes
// up to val sleepers. Its errors (EAGAIN, EINTR, ETIMEDOUT) all mean
// "look again", which every caller does.
func futex(word *atomic.Uint32, op int, val uint32, ts *unix.Timespec) {
	_, _, _ = unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(word)), uintptr(op), uintptr(val),
		uintptr(unsafe.Pointer(ts)), 0, 0)
}

// osYield gives the thread's CPU to another runnable thread
// (sched_yield), as the kernel's SQ thread does between polls.
func osYield() { _, _, _ = unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }

// twSpin is how long either side polls before it sleeps.
const twSpin = 50 * time.Microsecond

// Use reports whether a job runs with the SQPOLL goroutine: an
// io_uring sqthread_poll=1 job with tw_thread=goroutine, or tw_thread=auto
// under --compare.
func Use(j *jobfile.Job, compare bool) bool {
	if !j.KernelSQPoll() {
		return false
	}
	return j.TWThread == "goroutine" || (j.TWThread == "auto" || j.TWThread == "") && compare
}

// Opener wraps open so that the engine is opened, driven and closed by
// the SQPOLL goroutine. now is the clock of the goroutine's tw waits;
// watch says whether and how the job runs under io_timeout.
func Opener(open engines.Opener, now func() int64, watch Watch) engines.Opener {
	return func(s engines.Setup) (engines.Engine, error) {
		return startTW(open, s, now, watch)
	}
}

// Watch is how a job under io_timeout watches the goroutine: On says the
// job runs under it; when the job ends, a goroutine asleep in one call
// into the real engine for longer than Grace, checked every Tick, is
// abandoned. The job's own hang watcher uses the same two durations.
type Watch struct {
	On          bool
	Grace, Tick time.Duration
}

func startTW(open engines.Opener, s engines.Setup, now func() int64, watch Watch) (*Engine, error) {
	j := *s.Job
	// The goroutine is the SQ thread, and the ring is the one the kernel
	// would give SQPOLL: no task-run flags, so that completion task work
	// runs on the goroutine's thread without waiting for a GETEVENTS.
	j.SQThreadPoll = false
	j.TaskrunAuto, j.CoopTaskrun, j.DeferTaskrun, j.SingleIssuer = false, false, false, false
	s.Job = &j
	s.OwnP = false
	n := s.Depth
	t := &Engine{
		now:      now,
		q:        sched.NewQueue(n, sched.PolicyFor(j.TWPriority)),
		sub:      sched.NewHandoff(n, j.TWList == "lockfree"),
		done:     sched.NewHandoff(n, j.TWList == "lockfree"),
		reqs:     make([]engines.Request, n),
		res:      make([]int32, n),
		wait:     make([]int64, n),
		cqes:     make([]engines.Completion, n),
		batch:    sched.NewBatch(),
		pending:  make([]uint32, n),
		taken:    sched.NewList(),
		subl:     sched.NewList(),
		stopped:  make(chan struct{}),
		closeCh:  make(chan struct{}),
		closed:   make(chan struct{}),
		lockFree: j.TWList == "lockfree",
		watch:    watch,
		where:    make([]uint8, n),
	}
	if watch.On {
		t.cancelReq = make([]atomic.Bool, n)
		t.cancelEarly = make([]bool, n)
	}
	opened := make(chan error, 1)
	go t.run(open, s, opened)
	if err := <-opened; err != nil {
		<-t.closed
		return nil, err
	}
	return t, nil
}

// run is the goroutine: open the engine on this thread, run the task-work
// loop until quit, then close the engine when told to.
func (t *Engine) run(open engines.Opener, s engines.Setup, opened chan<- error) {
	runtime.LockOSThread()
	// A thread pinned to sqthread_poll_cpu must not go back to Go's pool,
	// where any goroutine could run on it stuck to one CPU: it stays
	// locked, and the runtime ends it when this goroutine returns.
	pinned := false
	defer func() {
		if !pinned {
			runtime.UnlockOSThread()
		}
	}()
	defer close(t.closed)
	t.tid = unix.Gettid()
	// sqthread_poll_cpu, or else a CPU no other job's goroutine holds
	// (holdCPU), where that pin is only a preference.
	t.cpu = s.Job.SQThreadPollCPU
	asked := t.cpu >= 0
	if !asked {
		if cpu, ok := holdCPU(); ok {
			defer releaseCPU(cpu)
			t.cpu = cpu
		}
	}
	if t.cpu >= 0 {
		var set unix.CPUSet
		set.Set(t.cpu)
		switch err := unix.SchedSetaffinity(0, &set); {
		case err == nil:
			pinned = true
		case asked:
			close(t.stopped)
			opened <- fmt.Errorf("tw_thread goroutine: sqthread_poll_cpu %d: %w", t.cpu, err)
			return
		default:
			t.cpu = -1
		}
	}
	eng, err := open(s)
	if err != nil {
		close(t.stopped)
		opened <- err
		return
	}
	t.eng = eng
	opened <- nil
	t.loop()
	if sr, ok := eng.(engines.StatsReporter); ok {
		t.stats = sr.Stats()
	}
	close(t.stopped)
	<-t.closeCh
	t.closeErr = eng.Close()
}

func (t *Engine) fail(err error) {
	t.err.CompareAndSwap(nil, &err)
	t.jobPark.wake()
}

func (t *Engine) failed() error {
	if e := t.err.Load(); e != nil {
		return *e
	}
	return nil
}

// loop runs the task-work lists. After every heavy item (and whenever the
// queue ran dry) it takes what the job published, then harvests: the irq
// arrives while the submissions just taken are queued, as in the patch,
// and between completion items nothing is harvested, as the job loop does.
// It sleeps only when nothing is in flight, queued or published for
// twSpin.
func (t *Engine) loop() {
	idleSince := int64(-1)
	now, fresh := t.now(), false
	for !t.quit.Load() && t.failed() == nil {
		if !fresh {
			now = t.now()
		}
		if t.watch.On && t.cancelAsk.Load() {
			t.runCancels(now)
		}
		it, ok := t.q.Next(now)
		fresh = false
		if !ok {
			if t.takePublished(now) || t.inflight > 0 && t.harvest(now) {
				idleSince = -1
				fresh = true
				continue
			}
			// Poll, as the kernel's SQ thread does, while I/O is in flight
			// and for twSpin after the last work, yielding the CPU between
			// polls (osYield: a Gosched would cost a thread hand-off, the
			// goroutine being locked to its thread).
			if t.inflight > 0 {
				idleSince = -1
				osYield()
				continue
			}
			if idleSince < 0 {
				idleSince = now
			}
			if now-idleSince < int64(twSpin) {
				osYield()
				continue
			}
			t.twPark.park(func() bool { return !t.sub.Empty() || t.quit.Load() || t.cancelAsk.Load() })
			idleSince = -1
			continue
		}
		idleSince = -1
		if it.Kind == sched.Completion {
			t.wait[it.Slot] = it.Wait
			t.done.Push(it.Slot)
			t.jobPark.wake()
			continue
		}
		if t.watch.On && t.cancelEarly[it.Slot] {
			t.cancelEarly[it.Slot] = false
			t.where[it.Slot] = slotIdle
			t.earlyOK++
			t.publishCancels()
			t.res[it.Slot] = -int32(unix.ECANCELED)
			t.wait[it.Slot] = 0
			t.done.Push(it.Slot)
			t.jobPark.wake()
			continue
		}
		if err := t.eng.Queue(it.Slot, &t.reqs[it.Slot]); err != nil {
			t.fail(err)
			return
		}
		t.callBegin()
		n, err := t.eng.Submit()
		t.callEnd()
		if err != nil {
			t.fail(err)
			return
		}
		if n == 0 {
			t.fail(errors.New("tw_thread goroutine: the ring accepted no request"))
			return
		}
		t.where[it.Slot] = slotInRing
		t.inflight += n
		now = t.now()
		t.takePublished(now)
		fresh = t.harvest(now)
	}
}

// takePublished queues a heavy item, stamped now, for every slot the job
// published. It reports whether there were any.
func (t *Engine) takePublished(now int64) bool {
	if t.sub.Empty() {
		return false
	}
	t.sub.TakeAll(&t.subl)
	for {
		si, ok := t.sub.PopFront(&t.subl)
		if !ok {
			return true
		}
		t.where[si] = slotQueued
		t.q.AddHeavy(si, now)
	}
}

// harvest takes every CQE the ring holds and queues one completion item
// per CQE, stamped now. It reports whether it found any.
func (t *Engine) harvest(now int64) bool {
	if t.inflight == 0 {
		return false
	}
	t.callBegin()
	n, err := t.eng.Reap(t.cqes[:t.inflight], 0)
	t.callEnd()
	if err != nil {
		t.fail(err)
		return false
	}
	if t.cancelling {
		t.publishCancels()
	}
	for _, c := range t.cqes[:n] {
		t.where[c.Slot] = slotIdle
		t.res[c.Slot] = c.Res
		t.q.Add(&t.batch, c.Slot, now)
	}
	t.q.AddBatch(&t.batch)
	t.inflight -= n
	return n > 0
}

// callBegin marks the start of a call into the real engine, which may
// sleep in the kernel; callEnd its end. Only under io_timeout.
func (t *Engine) callBegin() {
	if t.watch.On {
		t.call.Store(max(clock.Nanotime(), 1))
	}
}

func (t *Engine) callEnd() {
	if t.watch.On {
		t.call.Store(0)
	}
}

// runCancels, on the goroutine, acts on the job's Cancel requests: a slot
// in the ring gets the real engine's cancel, a slot still queued
// completes with -ECANCELED when its heavy item comes up, and one already
// Completed is not found.
func (t *Engine) runCancels(now int64) {
	t.cancelAsk.Store(false)
	t.takePublished(now)
	c, canCancel := t.eng.(engines.Canceler)
	for si := range t.cancelReq {
		if !t.cancelReq[si].Swap(false) {
			continue
		}
		t.cancelling = true
		switch t.where[si] {
		case slotQueued:
			t.cancelEarly[si] = true
		case slotInRing:
			if canCancel {
				t.callBegin()
				err := c.Cancel(uint32(si))
				t.callEnd()
				if err == nil {
					continue
				}
			}
			t.earlyGone++
		default:
			t.earlyGone++
		}
	}
	t.publishCancels()
}

// publishCancels publishes what the cancellations found so far: the real
// engine's counts plus the goroutine's own.
func (t *Engine) publishCancels() {
	var ok, running, gone int
	if c, is := t.eng.(engines.Canceler); is {
		ok, running, gone = c.CancelResults()
	}
	t.cancelOK.Store(int64(ok + t.earlyOK))
	t.cancelRunning.Store(int64(running))
	t.cancelGone.Store(int64(gone + t.earlyGone))
}

// Cancel asks the goroutine to cancel the request in slot (see
// runCancels); the request then completes through Reap.
func (t *Engine) Cancel(slot uint32) error {
	if !t.watch.On || int(slot) >= len(t.cancelReq) {
		return fmt.Errorf("tw_thread goroutine: cancel of slot %d outside io_timeout: %w", slot, errors.ErrUnsupported)
	}
	t.cancelReq[slot].Store(true)
	t.cancelAsk.Store(true)
	t.twPark.wake()
	return nil
}

// CancelResults counts what the cancellations so far found.
func (t *Engine) CancelResults() (cancelled, running, notFound int) {
	return int(t.cancelOK.Load()), int(t.cancelRunning.Load()), int(t.cancelGone.Load())
}

// Queue stores r for slot; Submit publishes it.
func (t *Engine) Queue(slot uint32, r *engines.Request) error {
	if int(slot) >= len(t.reqs) || t.nPend == len(t.pending) {
		return fmt.Errorf("tw_thread goroutine: slot %d out of range or queue full", slot)
	}
	t.reqs[slot] = *r
	t.pending[t.nPend] = slot
	t.nPend++
	return nil
}

// Submit publishes every queued slot to the goroutine.
func (t *Engine) Submit() (int, error) {
	if err := t.failed(); err != nil {
		return 0, err
	}
	n := t.nPend
	for _, si := range t.pending[:n] {
		t.sub.Push(si)
	}
	t.nPend = 0
	if n > 0 {
		t.twPark.wake()
	}
	return n, nil
}

// Reap returns the completions the goroutine posted, waiting for at least
// min of them.
func (t *Engine) Reap(out []engines.Completion, min int) (int, error) {
	n := t.takeInto(out)
	spinStart := int64(-1)
	for n < min && n < len(out) {
		if err := t.failed(); err != nil {
			return n, err
		}
		if t.done.Empty() {
			now := t.now()
			if spinStart < 0 {
				spinStart = now
			}
			if now-spinStart < int64(twSpin) {
				osYield()
				continue
			}
			t.jobPark.park(func() bool { return !t.done.Empty() || t.failed() != nil })
			continue
		}
		n += t.takeInto(out[n:])
	}
	return n, nil
}

// CanReapTimeout is true: the wait is on the hand-off, not the kernel.
func (t *Engine) CanReapTimeout() bool { return true }

// ReapTimeout is Reap bounded by d: it waits at most d for min
// completions and returns what it has then, possibly none.
func (t *Engine) ReapTimeout(out []engines.Completion, min int, d time.Duration) (int, error) {
	n := t.takeInto(out)
	deadline := clock.Nanotime() + int64(d)
	spinStart := int64(-1)
	for n < min && n < len(out) {
		if err := t.failed(); err != nil {
			return n, err
		}
		if t.done.Empty() {
			now := clock.Nanotime()
			if now >= deadline {
				return n, nil
			}
			if spinStart < 0 {
				spinStart = now
			}
			if now-spinStart < int64(twSpin) {
				osYield()
				continue
			}
			t.jobPark.parkFor(func() bool { return !t.done.Empty() || t.failed() != nil }, time.Duration(deadline-now))
			continue
		}
		n += t.takeInto(out[n:])
	}
	return n, nil
}

func (t *Engine) takeInto(out []engines.Completion) int {
	if t.taken.Empty() && !t.done.Empty() {
		t.done.TakeAll(&t.taken)
	}
	n := 0
	for n < len(out) {
		si, ok := t.done.PopFront(&t.taken)
		if !ok {
			break
		}
		out[n] = engines.Completion{Slot: si, Res: t.res[si]}
		n++
	}
	return n
}

// Wait returns the goroutine's tw wait of slot's last completion.
func (t *Engine) Wait(slot uint32) int64 { return t.wait[slot] }

// TID is the OS thread id of the goroutine, the thread that submits the
// job's SQEs and harvests its CQEs.
func (t *Engine) TID() int { return t.tid }

// stop ends the goroutine's loop and waits until it has left it. Under
// io_timeout it gives up on a goroutine asleep in one call into the real
// engine for longer than Watch.Grace, and reports false: that goroutine is
// abandoned, and closes the engine if its call ever returns.
func (t *Engine) stop() bool {
	if t.stuck.Load() {
		return false
	}
	t.quit.Store(true)
	t.twPark.kick()
	if !t.watch.On {
		<-t.stopped
		return true
	}
	tick := time.NewTicker(t.watch.Tick)
	defer tick.Stop()
	for {
		select {
		case <-t.stopped:
			return true
		case <-tick.C:
		}
		if c := t.call.Load(); c > 0 && clock.Nanotime()-c > int64(t.watch.Grace) {
			t.stuck.Store(true)
			return false
		}
	}
}

// Stats are the real engine's counters; for an abandoned goroutine, a
// warning that says so.
func (t *Engine) Stats() engines.Stats {
	if !t.stop() {
		return engines.Stats{Warnings: []string{"io_timeout: the tw_thread goroutine is asleep in the kernel in a call to the ring; it is abandoned with the ring and its buffers"}}
	}
	return t.stats
}

// Note is the engine note a job run this way carries in its report.
func (t *Engine) Note() string {
	list := "locked"
	if t.lockFree {
		list = "lockfree"
	}
	pin := ""
	if t.cpu >= 0 {
		pin = ", pinned to CPU " + strconv.Itoa(t.cpu)
	}
	return "tw_thread=goroutine: a gofio goroutine played the SQ thread" + pin + ", submissions and completions ran as task work (tw_list=" + list + ")"
}

// Close stops the goroutine and closes the engine on its thread; an
// abandoned goroutine (see stop) closes it when its call returns.
func (t *Engine) Close() error {
	stopped := t.stop()
	select {
	case <-t.closeCh:
	default:
		close(t.closeCh)
	}
	if !stopped {
		return nil
	}
	<-t.closed
	return t.closeErr
}
