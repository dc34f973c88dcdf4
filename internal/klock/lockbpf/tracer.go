// Package lockbpf measures a job's kernel lock contention (klock.Locks)
// with two BPF programs, built with cilium/ebpf's asm package at run time,
// on the kernel's lock:contention_begin and lock:contention_end
// tracepoints: BTF-typed raw tracepoints where the kernel's BTF has them,
// else classic ones (layout says which).
//
// The programs keep only the job's threads: its own thread and the SQ
// thread it names (by thread id), and the kernel's io-wq workers and
// SQPOLL thread that work for them (by name: iou-wrk-TID, iou-sqp-TID,
// whose TID is the thread they work for), all in gofio's own process,
// compared with constants in the programs before anything else. At
// a begin they keep the time and the kernel stack, per task and lock; at
// the end they add the wait, and its part before the task went to sleep,
// to the stack's counters in a BPF hash map. Nothing is sent to user
// space per contention: Close reads the counters once, resolves each
// stack to its site through /proc/kallsyms and sums the sites.
//
// The rules: tracing is paid only by jobs that ask for it (the job loop
// holds a nil *Tracer otherwise and calls it only at ramp_time's end and
// at the job's end); every reason it cannot run is a
// tracepoint.Unavailable whose text is the one-line reason the run
// prints; contentions the programs could not count are LostEvents.
package lockbpf

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/cilium/ebpf/btf"

	"github.com/gofio/gofio/internal/klock"
	"github.com/gofio/gofio/internal/tracepoint"
)

// Config is what a Tracer traces and where it finds the kernel.
type Config struct {
	// Pid is gofio's process (os.Getpid()); Tids are the threads whose
	// contention is the job's: its own thread and whatever thread submits
	// for it (gofio's tw_thread, the kernel's SQPOLL thread). The io-wq
	// workers and SQPOLL thread named after any of them are traced too.
	Pid  int
	Tids []int
	// Euid is the process's effective user id (os.Geteuid()).
	Euid int
	// Mountinfo is the mount table read to find tracefs
	// ("/proc/self/mountinfo" when empty); MountAt is where tracefs is
	// mounted when none is (tracepoint.Default when empty).
	Mountinfo, MountAt string
	// TaskDir lists the process's threads ("/proc/self/task" when
	// empty): their names say which are traced, their schedstat their
	// CPU time.
	TaskDir string
	// Symbols returns the kernel's symbols (/proc/kallsyms, read once a
	// process, when nil).
	Symbols func() (*klock.Symbols, error)
	// Stats measures the programs' run time, the tracing's cost, with the
	// kernel's BPF statistics (tracepoint.Programs.Stats): only when asked
	// for, since they slow every BPF program on the machine.
	Stats bool
	// TracefsOnly reads the events' layouts from tracefs and attaches
	// classic tracepoints even where the kernel's BTF has the events
	// (tests of that path).
	TracefsOnly bool
}

func (c *Config) defaults() {
	if c.Mountinfo == "" {
		c.Mountinfo = "/proc/self/mountinfo"
	}
	if c.TaskDir == "" {
		c.TaskDir = "/proc/self/task"
	}
	if c.Symbols == nil {
		c.Symbols = kallsyms
	}
}

// kallsyms reads /proc/kallsyms once a process: it does not change while
// gofio runs but for modules loaded meanwhile, and takes tens of ms.
var kallsyms = sync.OnceValues(func() (*klock.Symbols, error) {
	f, err := os.Open("/proc/kallsyms")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return klock.ParseKallsyms(f)
})

// Tracer measures one job's kernel lock contention. Open starts it, the
// job loop calls Reset when ramp_time ends, Close stops it and returns
// the figures.
type Tracer struct {
	cfg   Config
	m     *maps
	progs tracepoint.Programs
	comms map[string]bool
	// base are the counters at the start of the measured span (ramp_time's
	// end): per stack, lost, and per thread's CPU time.
	base struct {
		sites  map[stack]siteVal
		lost   [numLost]uint64
		misses uint64
		cpu    map[int]uint64
	}
}

// layout is where the programs find the lock tracepoints' values and how
// they attach.
type layout struct {
	kind            tracepoint.Kind
	lockAddr, flags tracepoint.Field // contention_begin's lock and flags
	endAddr         tracepoint.Field // contention_end's lock
	// skip is how many frames of a contention's stack are the tracer's own
	// (the program, the kernel's function that runs it), left out.
	skip int
}

// btfLayout is the layout of the lock tracepoints as BTF-typed raw
// tracepoints, where the kernel's BTF has them: the programs read the
// events' arguments (lock, flags; lock, ret) as they are, where a classic
// tracepoint first formats its record, for every contention of the
// machine, and skips the program whenever any BPF program runs on the
// CPU. A stack starts with the program and bpf_trace_run2.
func btfLayout() (layout, bool) {
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		return layout{}, false
	}
	for _, name := range []string{"btf_trace_contention_begin", "btf_trace_contention_end"} {
		var td *btf.Typedef
		if spec.TypeByName(name, &td) != nil {
			return layout{}, false
		}
	}
	arg := func(i int, size int) tracepoint.Field { return tracepoint.Field{Offset: 8 * i, Size: size} }
	return layout{kind: tracepoint.BTF, lockAddr: arg(0, 8), flags: arg(1, 4), endAddr: arg(0, 8), skip: 2}, true
}

// events finds the two tracepoints and the fields the programs read: as
// BTF-typed raw tracepoints where the kernel has them (btfLayout), else as
// classic ones under tracefs, found or mounted.
func events(cfg Config) (layout, error) {
	if !cfg.TracefsOnly {
		if l, ok := btfLayout(); ok {
			return l, nil
		}
	}
	tracefs, err := tracepoint.Mount(cfg.Mountinfo, cfg.MountAt)
	if err != nil {
		return layout{}, err
	}
	l := layout{kind: tracepoint.Classic}
	begin, err := tracepoint.ReadFormat(tracefs, "lock", "contention_begin")
	if err != nil {
		return l, tracepoint.Unavailablef(
			"no lock tracepoints: lock:contention_begin is missing from %s (Linux 5.19 or later has it): %v", tracefs, err)
	}
	end, err := tracepoint.ReadFormat(tracefs, "lock", "contention_end")
	if err != nil {
		return l, tracepoint.Unavailablef(
			"no lock tracepoints: lock:contention_end is missing from %s: %v", tracefs, err)
	}
	if l.lockAddr, err = begin.Want("contention_begin", "lock_addr", 8); err != nil {
		return l, err
	}
	if l.flags, err = begin.Want("contention_begin", "flags", 4); err != nil {
		return l, err
	}
	l.endAddr, err = end.Want("contention_end", "lock_addr", 8)
	return l, err
}

// Open starts tracing. An *tracepoint.Unavailable error says why lock
// contention cannot be measured here; the job can run on without it.
func Open(cfg Config) (*Tracer, error) {
	cfg.defaults()
	if cfg.Euid != 0 {
		return nil, tracepoint.Unavailablef("not root: tracing needs root (BPF programs on tracepoints)")
	}
	l, err := events(cfg)
	if err != nil {
		return nil, err
	}
	t := &Tracer{cfg: cfg, comms: commsOf(cfg.Tids)}
	t.progs.Stats = cfg.Stats
	if err := t.start(l); err != nil {
		t.release()
		return nil, err
	}
	t.base.cpu = t.threadsCPU()
	return t, nil
}

// commsOf returns the names of the kernel threads that work for tids:
// their io-wq workers (iou-wrk-TID) and SQPOLL threads (iou-sqp-TID).
func commsOf(tids []int) map[string]bool {
	comms := make(map[string]bool, 2*len(tids))
	for _, tid := range tids {
		for _, prefix := range commPrefixes {
			comms[prefix+strconv.Itoa(tid)] = true
		}
	}
	return comms
}

func (t *Tracer) start(l layout) error {
	var err error
	if t.m, err = newMaps(); err != nil {
		return tracepoint.Unavailablef("BPF map refused: %v", err)
	}
	beginEv := tracepoint.Event{Group: "lock", Name: "contention_begin", Kind: l.kind}
	endEv := tracepoint.Event{Group: "lock", Name: "contention_end", Kind: l.kind}
	begin, err := t.progs.Load(beginEv, "contention_begin", "gofio_lbegin", beginProgram(t.m, t.cfg.Pid, threadsOf(t.cfg.Tids), l))
	if err != nil {
		return err
	}
	end, err := t.progs.Load(endEv, "contention_end", "gofio_lend", endProgram(t.m, t.cfg.Pid, l))
	if err != nil {
		return err
	}
	// The end first, so that no wait begins that its end would miss.
	if err := t.progs.Attach(endEv, end); err != nil {
		return err
	}
	return t.progs.Attach(beginEv, begin)
}

// Reset starts the counts again: the end of ramp_time. It reads the
// counters and the threads' CPU time (a few hundred µs), once.
func (t *Tracer) Reset() {
	t.base.sites = t.readSites()
	t.base.lost = t.readLost()
	t.base.misses = t.progs.Misses()
	t.base.cpu = t.threadsCPU()
}

// readSites reads the per-stack counters.
func (t *Tracer) readSites() map[stack]siteVal {
	out := make(map[stack]siteVal)
	var k stack
	var v siteVal
	it := t.m.sites.Iterate()
	for it.Next(&k, &v) {
		out[k] = v
	}
	return out
}

func (t *Tracer) readLost() (lost [numLost]uint64) {
	for i := range lost {
		_ = t.m.lost.Lookup(uint32(i), &lost[i])
	}
	return lost
}

// threadsCPU returns the on-CPU time (schedstat's first field, ns) of
// every traced thread of the process.
func (t *Tracer) threadsCPU() map[int]uint64 {
	out := make(map[int]uint64)
	ents, err := os.ReadDir(t.cfg.TaskDir)
	if err != nil {
		return out
	}
	traced := make(map[int]bool, len(t.cfg.Tids))
	for _, tid := range t.cfg.Tids {
		traced[tid] = true
	}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if !traced[tid] {
			comm, err := os.ReadFile(t.cfg.TaskDir + "/" + e.Name() + "/comm")
			if err != nil || !t.comms[strings.TrimSpace(string(comm))] {
				continue
			}
		}
		b, err := os.ReadFile(t.cfg.TaskDir + "/" + e.Name() + "/schedstat")
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			if ns, err := strconv.ParseUint(f[0], 10, 64); err == nil {
				out[tid] = ns
			}
		}
	}
	return out
}

// Close stops tracing and returns the job's lock contention over the
// measured span, in which it completed ios I/Os.
func (t *Tracer) Close(ios uint64) *klock.Locks {
	t.progs.Detach()
	res := &klock.Locks{Available: true, IOs: ios}
	cpu := t.threadsCPU()
	for tid, ns := range cpu {
		if b := t.base.cpu[tid]; ns > b {
			res.CPUNs += ns - b
			res.Threads++
		}
	}
	lost := t.readLost()
	for i := range lost {
		res.LostEvents += lost[i] - t.base.lost[i]
	}
	// A program the kernel skipped (it ran already on the CPU: a
	// contention inside the tracer's own maps) lost its event.
	res.LostEvents += t.progs.Misses() - t.base.misses
	syms, symErr := t.cfg.Symbols()
	for k, v := range t.readSites() {
		b := t.base.sites[k]
		s := klock.Site{Name: klock.UnknownSite, Subsystem: klock.SubOther, Count: v.Count - b.Count,
			WaitNs: v.WaitNs - b.WaitNs, SpinNs: v.SpinNs - b.SpinNs}
		if s.Count == 0 {
			continue
		}
		if symErr == nil {
			var mod string
			s.Name, mod = syms.SiteOf(k[:])
			s.Subsystem = klock.Classify(s.Name, mod)
		}
		res.AddSite(s)
	}
	res.SortSites()
	if symErr != nil && res.Contentions > 0 {
		res.Note = fmt.Sprintf("sites unresolved: %v", symErr)
	}
	res.BPFRunNs, res.BPFRuns = t.progs.RunStats()
	t.release()
	return res
}

func (t *Tracer) release() {
	t.progs.Close()
	if t.m != nil {
		t.m.close()
	}
}

// Unavailability turns an Open error into the figures a job reports.
func Unavailability(err error) *klock.Locks {
	var u *tracepoint.Unavailable
	if errors.As(err, &u) {
		return &klock.Locks{Reason: u.Reason}
	}
	return &klock.Locks{Reason: fmt.Sprintf("tracing failed: %v", err)}
}
