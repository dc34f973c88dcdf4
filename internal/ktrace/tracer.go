package ktrace

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/ringbuf"
	"github.com/gofio/gofio/internal/kstage"
	"github.com/gofio/gofio/internal/tracepoint"
	"golang.org/x/sys/unix"
)

// Config is what a Tracer traces and where it finds the kernel.
type Config struct {
	// Target is the job's file or block device.
	Target string
	// Tids are the threads that submit the job's SQEs: its own thread,
	// and the kernel's SQPOLL thread under sqthread_poll.
	Tids []int
	// Euid is the process's effective user id (os.Geteuid()).
	Euid int
	// Mountinfo is the mount table read to find tracefs
	// ("/proc/self/mountinfo" when empty); MountAt is where tracefs is
	// mounted when none is (DefaultTracefs when empty).
	Mountinfo, MountAt string
	// Sysfs is sysfs's mount point ("/sys" when empty).
	Sysfs string
	// OnJoin, when set, sees every joined I/O on the drain's goroutine
	// (tests).
	OnJoin func(r Reap, d *[kstage.NumStages]uint64)
	// Poll is how often the drain empties the event ring at the most
	// (1 ms when 0); it waits up to 16 times longer while few events come.
	Poll time.Duration
}

// reapRing carries gofio's reaps from the job loop to the drain: one
// producer, one consumer, fixed size, no allocation.
type reapRing struct {
	buf        []Reap
	head, tail atomic.Uint64
	dropped    atomic.Uint64
}

const reapRingSize = 1 << 16

// Tracer measures one job's kernel stages. Open starts it, the job loop
// calls Reap for every completed read or write (and Reset when ramp_time
// ends), Close stops it and returns the stages.
type Tracer struct {
	m       *maps
	progs   []*ebpf.Program
	links   []link.Link
	rd      *ringbuf.Reader
	stats   interface{ Close() error }
	reaps   reapRing
	resetAt atomic.Uint64
	stop    atomic.Bool
	done    sync.WaitGroup
	poll    time.Duration
	st      kstage.KernelStages
	j       *Joiner
}

func (c *Config) defaults() {
	if c.Mountinfo == "" {
		c.Mountinfo = "/proc/self/mountinfo"
	}
	if c.MountAt == "" {
		c.MountAt = DefaultTracefs
	}
	if c.Sysfs == "" {
		c.Sysfs = "/sys"
	}
	if c.Poll == 0 {
		c.Poll = time.Millisecond
	}
}

// tracepoints are the events traced, with the fields each program reads.
type tracepoints struct {
	submitName string // io_uring_submit_req, or io_uring_submit_sqe before Linux 6.4
	sub, cqe   uringFields
	bio, issue blockFields
	done       blockFields
}

// findTracepoints reads the layouts of the five events under tracefs.
func findTracepoints(tracefs string) (*tracepoints, error) {
	tp := &tracepoints{}
	var sub Format
	for _, name := range []string{"io_uring_submit_req", "io_uring_submit_sqe"} {
		f, err := tracepoint.ReadFormat(tracefs, "io_uring", name)
		if err == nil {
			tp.submitName, sub = name, f
			break
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, unavailable("tracepoint io_uring:%s: %v", name, err)
		}
	}
	if sub == nil {
		return nil, unavailable("tracepoint io_uring:io_uring_submit_req (or io_uring_submit_sqe) missing from %s", tracefs)
	}
	var err error
	uring := func(f Format, event string) (u uringFields) {
		if err != nil {
			return
		}
		if u.ctx, err = f.Want(event, "ctx", 8); err != nil {
			return
		}
		if u.req, err = f.Want(event, "req", 8); err != nil {
			return
		}
		u.userData, err = f.Want(event, "user_data", 8)
		return
	}
	tp.sub = uring(sub, tp.submitName)
	if err == nil {
		tp.sub.opcode, err = sub.Want(tp.submitName, "opcode", 1)
	}
	if err != nil {
		return nil, err
	}
	cqe, e := tracepoint.ReadFormat(tracefs, "io_uring", "io_uring_complete")
	if e != nil {
		return nil, unavailable("tracepoint io_uring:io_uring_complete missing: %v", e)
	}
	if tp.cqe = uring(cqe, "io_uring_complete"); err != nil {
		return nil, err
	}
	block := func(name string) (b blockFields, err error) {
		f, e := tracepoint.ReadFormat(tracefs, "block", name)
		if e != nil {
			return b, unavailable("tracepoint block:%s missing: %v", name, e)
		}
		if b.dev, err = f.Want(name, "dev", 4); err != nil {
			return
		}
		if b.sector, err = f.Want(name, "sector", 8); err != nil {
			return
		}
		b.nrSector, err = f.Want(name, "nr_sector", 4)
		return
	}
	if tp.bio, err = block("block_bio_queue"); err != nil {
		return nil, err
	}
	if tp.issue, err = block("block_rq_issue"); err != nil {
		return nil, err
	}
	if tp.done, err = block("block_rq_complete"); err != nil {
		return nil, err
	}
	return tp, nil
}

// Open starts tracing. An *Unavailable error says why kernel stages cannot
// be measured here; the job can run on without them.
func Open(cfg Config) (*Tracer, error) {
	cfg.defaults()
	if cfg.Euid != 0 {
		return nil, unavailable("not root: tracing needs root (BPF programs on tracepoints)")
	}
	tracefs, err := tracepoint.Mount(cfg.Mountinfo, cfg.MountAt)
	if err != nil {
		return nil, err
	}
	tp, err := findTracepoints(tracefs)
	if err != nil {
		return nil, err
	}
	tgt, err := targetOf(cfg.Target, cfg.Sysfs)
	if err != nil {
		return nil, err
	}
	t := &Tracer{poll: cfg.Poll}
	t.reaps.buf = make([]Reap, reapRingSize)
	t.st.Available = true
	t.j = NewJoiner(&t.st)
	t.j.OnJoin = cfg.OnJoin
	if err := t.start(cfg, tp, tgt); err != nil {
		t.release()
		return nil, err
	}
	return t, nil
}

func (t *Tracer) start(cfg Config, tp *tracepoints, tgt Target) error {
	var err error
	if t.m, err = newMaps(); err != nil {
		return unavailable("BPF map refused: %v", err)
	}
	one := uint8(1)
	for _, tid := range cfg.Tids {
		if err := t.m.tids.Put(uint32(tid), one); err != nil {
			return unavailable("BPF map update: %v", err)
		}
	}
	for _, d := range []uint32{tgt.BioDev, tgt.Disk} {
		if err := t.m.devs.Put(d, one); err != nil {
			return unavailable("BPF map update: %v", err)
		}
	}
	specs := programs(t.m, tp.sub, tp.cqe, tp.bio, tp.issue, tp.done)
	events := [][2]string{{"io_uring", tp.submitName}, {"block", "block_bio_queue"}, {"block", "block_rq_issue"},
		{"block", "block_rq_complete"}, {"io_uring", "io_uring_complete"}}
	for _, s := range specs {
		p, err := load(s, t.m)
		if err != nil {
			return err
		}
		t.progs = append(t.progs, p)
	}
	if t.rd, err = ringbuf.NewReader(t.m.events); err != nil {
		return unavailable("BPF ring buffer: %v", err)
	}
	// The programs' run time is the tracing's cost; without the kernel's
	// BPF statistics it reads 0.
	if s, err := ebpf.EnableStats(0 /* BPF_STATS_RUN_TIME */); err == nil {
		t.stats = s
	}
	for i, p := range t.progs {
		l, err := link.Tracepoint(events[i][0], events[i][1], p, nil)
		if err != nil {
			return unavailable("attaching to tracepoint %s:%s: %v", events[i][0], events[i][1], err)
		}
		t.links = append(t.links, l)
	}
	t.done.Add(1)
	go t.drain()
	return nil
}

// Reap records one completed read or write of the job: its user data and
// its lat's start and end stamps (clock.Nanotime). It never blocks or
// allocates; when the drain falls a ring behind, the reap is dropped.
func (t *Tracer) Reap(userData uint64, start, end int64) {
	r := &t.reaps
	tail := r.tail.Load()
	if tail-r.head.Load() >= uint64(len(r.buf)) {
		r.dropped.Add(1)
		return
	}
	r.buf[tail&(uint64(len(r.buf))-1)] = Reap{UserData: userData, Start: uint64(start), End: uint64(end)}
	r.tail.Store(tail + 1)
}

// Reset starts the counts again at stamp at (clock.Nanotime): the end of
// ramp_time.
func (t *Tracer) Reset(at int64) { t.resetAt.Store(uint64(at)) }

// drainReaps hands the reaps waiting in the ring to the joiner.
func (t *Tracer) drainReaps() {
	r := &t.reaps
	head, tail := r.head.Load(), r.tail.Load()
	for ; head != tail; head++ {
		t.j.AddReap(r.buf[head&(uint64(len(r.buf))-1)])
	}
	r.head.Store(head)
}

// drain is the goroutine that empties the event ring into the joiner
// every poll interval, until Close.
func (t *Tracer) drain() {
	defer t.done.Done()
	// On its own thread, so that the thread's CPU time is the drain's.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var ru0 unix.Rusage
	unix.Getrusage(unix.RUSAGE_THREAD, &ru0)
	defer func() {
		var ru unix.Rusage
		unix.Getrusage(unix.RUSAGE_THREAD, &ru)
		cpu := ru.Utime.Nano() + ru.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
		t.st.DrainCPUNs = uint64(max(cpu, 0))
	}()
	var rec ringbuf.Record
	var ev Event
	poll := t.poll
	for {
		// Sleep, then take everything there: the programs never wake
		// the reader (BPF_RB_NO_WAKEUP), so the drain costs one wakeup
		// per interval however fast the job runs. The interval grows to
		// 16 polls while under 256 events come in one, so that a slow
		// job does not pay a wakeup for every few I/Os, and drops back
		// to one poll when 4096 or more do.
		last := t.stop.Load()
		if !last {
			time.Sleep(poll)
		}
		t.rd.SetDeadline(time.Now())
		n := 0
		for t.rd.ReadInto(&rec) == nil {
			if Decode(rec.RawSample, &ev) {
				t.j.Add(ev)
			}
			n++
		}
		switch {
		case n < 256 && poll < 16*t.poll:
			poll *= 2
		case n >= 4096:
			poll = t.poll
		}
		if at := t.resetAt.Swap(0); at != 0 {
			t.j.Reset(at)
		}
		t.drainReaps()
		if last {
			return
		}
	}
}

// Close stops tracing and returns the job's kernel stages.
func (t *Tracer) Close() *kstage.KernelStages {
	for _, l := range t.links {
		l.Close()
	}
	t.links = nil
	t.stop.Store(true)
	t.done.Wait()
	t.j.Flush()
	var lost uint64
	if err := t.m.lost.Lookup(uint32(0), &lost); err == nil {
		t.st.LostEvents = lost
	}
	if t.stats != nil {
		for _, p := range t.progs {
			if s, err := p.Stats(); err == nil {
				t.st.BPFRunNs += uint64(s.Runtime)
				t.st.BPFRuns += s.RunCount
			}
		}
	}
	t.release()
	st := t.st
	return &st
}

func (t *Tracer) release() {
	for _, l := range t.links {
		l.Close()
	}
	if t.rd != nil {
		t.rd.Close()
	}
	for _, p := range t.progs {
		p.Close()
	}
	if t.stats != nil {
		t.stats.Close()
	}
	if t.m != nil {
		t.m.close()
	}
}

// Unavailability turns an Open error into the stages a job reports.
func Unavailability(err error) *kstage.KernelStages {
	var u *Unavailable
	if errors.As(err, &u) {
		return &kstage.KernelStages{Reason: u.Reason}
	}
	return &kstage.KernelStages{Reason: fmt.Sprintf("tracing failed: %v", err)}
}
