package iouring

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/uring"
)

// defaultIdle is the kernel's SQPOLL idle time when sqthread_idle is 0.
const defaultIdle = time.Second

// poller stands in for the kernel's SQPOLL thread when the kernel refuses
// SQPOLL. It runs on its own OS thread: the job goroutine publishes SQEs by
// storing the SQ tail, and the poller enters the kernel to submit them. It
// spins while there was work in the last idle period, then sleeps until
// woken, mirroring the kernel's NEED_WAKEUP protocol.
type poller struct {
	ring   *uring.Ring
	idle   time.Duration
	cpu    int
	asleep atomic.Uint32 // 1 while parked; the owner must wake it
	quit   atomic.Bool
	wakeCh chan struct{}
	done   chan struct{}
	tid    chan int
	enters atomic.Uint64
	err    atomic.Pointer[error]
}

func newPoller(r *uring.Ring, idle time.Duration, cpu int) *poller {
	if idle <= 0 {
		idle = defaultIdle
	}
	return &poller{ring: r, idle: idle, cpu: cpu,
		wakeCh: make(chan struct{}, 1), done: make(chan struct{}), tid: make(chan int, 1)}
}

func (p *poller) start() { go p.run() }

// waitTID returns the poller thread's id once it runs.
func (p *poller) waitTID() int { return <-p.tid }

// wake is called by the owner after it stored the SQ tail. The tail store
// and this load are sequentially consistent atomics, and so are the
// poller's store of asleep and its re-check of the tail, so one of the two
// sides always sees the other.
func (p *poller) wake() {
	if p.asleep.Load() == 1 {
		select {
		case p.wakeCh <- struct{}{}:
		default:
		}
	}
}

// failed returns the error that stopped the poller, if any.
func (p *poller) failed() error {
	if e := p.err.Load(); e != nil {
		return *e
	}
	return nil
}

// stop ends the poller and waits for its thread to exit.
func (p *poller) stop() error {
	p.quit.Store(true)
	select {
	case p.wakeCh <- struct{}{}:
	default:
	}
	<-p.done
	return p.failed()
}

func (p *poller) run() {
	// Never unlocked: the thread exits with the goroutine, taking its io-wq
	// workers with it.
	runtime.LockOSThread()
	defer close(p.done)
	if p.cpu >= 0 {
		var set unix.CPUSet
		set.Set(p.cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			p.fail(fmt.Errorf("io_uring engine: sqthread_poll_cpu %d: %w", p.cpu, err))
		}
	}
	p.tid <- unix.Gettid()
	if p.failed() != nil {
		return
	}
	last := time.Now()
	for !p.quit.Load() {
		if n := p.ring.SQPending(); n > 0 {
			_, err := p.ring.Enter(n, 0, 0)
			p.enters.Add(1)
			if err != nil && !errors.Is(err, unix.EINTR) && !errors.Is(err, unix.EAGAIN) {
				p.fail(fmt.Errorf("io_uring engine: SQPOLL stand-in submit: %w", err))
				return
			}
			last = time.Now()
			continue
		}
		if time.Since(last) < p.idle {
			runtime.Gosched()
			continue
		}
		p.asleep.Store(1)
		if p.ring.SQPending() == 0 && !p.quit.Load() {
			<-p.wakeCh
		}
		p.asleep.Store(0)
		last = time.Now()
	}
}

func (p *poller) fail(err error) { p.err.Store(&err) }
