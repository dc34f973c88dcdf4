package ktrace

import (
	"errors"
	"fmt"
	"math/bits"
	"os"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/gofio/gofio/internal/kstage"
	"github.com/gofio/gofio/internal/tracepoint"
)

// Config is what a Tracer traces and where it finds the kernel.
type Config struct {
	// Targets are the job's files or block devices: every device under
	// them is traced.
	Targets []string
	// Tids are the threads that submit the job's SQEs: its own thread,
	// and the kernel's SQPOLL thread under sqthread_poll.
	Tids []int
	// Slots is the number of the job's I/O slots (its iodepth): the user
	// data of its SQEs are slot indexes below it.
	Slots int
	// Euid is the process's effective user id (os.Geteuid()).
	Euid int
	// Mountinfo is the mount table read to find tracefs
	// ("/proc/self/mountinfo" when empty); MountAt is where tracefs is
	// mounted when none is (DefaultTracefs when empty).
	Mountinfo, MountAt string
	// Sysfs is sysfs's mount point ("/sys" when empty).
	Sysfs string
	// TracefsOnly reads the events' layouts from tracefs and attaches
	// classic tracepoints even where the kernel has BTF (tests of that
	// path).
	TracefsOnly bool
	// Stats measures the programs' run time, the tracing's cost, with the
	// kernel's BPF statistics (tracepoint.Programs.Stats): only when asked
	// for, since they slow every BPF program on the machine.
	Stats bool
	// Sample traces 1 in Sample of the job's reads and writes, drawn at
	// random (bpf_get_prandom_u32) when each is submitted; the rest leave
	// every program at its first instructions. 0 or 1 traces every one.
	Sample int
	// OnJoin, when set, sees every joined I/O on the goroutine that calls
	// Reap (tests).
	OnJoin func(r Reap, d *[kstage.NumStages]uint64)
}

// maxDevices is how many devices one tracer traces at most: the programs
// compare a device with each.
const maxDevices = 64

// Tracer measures one job's kernel stages. Open starts it; the job loop
// calls Reap for every completed read or write (and Reset when ramp_time
// ends), and Close stops it and returns the stages, all on the loop's
// goroutine.
type Tracer struct {
	m     *maps
	progs tracepoint.Programs
	sh    *shared
	st    kstage.KernelStages
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
}

// tracepoints are the events traced, with the fields each program reads.
type tracepoints struct {
	submitName string // io_uring_submit_req, or io_uring_submit_sqe before Linux 6.4
	sub, cqe   uringFields
	bio, issue blockFields
	done       blockFields
	requeue    blockFields
	// kind says how the programs attach: as BTF-typed raw tracepoints,
	// reading the events' arguments (kernel BTF's layout,
	// rawTracepoints), or as classic ones, reading the records tracefs
	// describes.
	kind tracepoint.Kind
}

// want is Format.Want as a ref.
func want(f Format, event, name string, sizes ...int) (ref, error) {
	fl, err := f.Want(event, name, sizes...)
	return fieldRef(fl), err
}

// findTracepoints reads the layouts of the six events under tracefs.
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
		if u.ctx, err = want(f, event, "ctx", 8); err != nil {
			return
		}
		if u.req, err = want(f, event, "req", 8); err != nil {
			return
		}
		u.userData, err = want(f, event, "user_data", 8)
		return
	}
	tp.sub = uring(sub, tp.submitName)
	if err == nil {
		tp.sub.opcode, err = want(sub, tp.submitName, "opcode", 1)
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
		if b.dev, err = want(f, name, "dev", 4); err != nil {
			return
		}
		b.sector, err = want(f, name, "sector", 8)
		return
	}
	for _, b := range []struct {
		dst  *blockFields
		name string
	}{{&tp.bio, "block_bio_queue"}, {&tp.issue, "block_rq_issue"}, {&tp.done, "block_rq_complete"},
		{&tp.requeue, "block_rq_requeue"}} {
		if *b.dst, err = block(b.name); err != nil {
			return nil, err
		}
	}
	return tp, nil
}

// devices finds the block devices under the targets: each disk once, with
// its index, and each partition a bio may be queued on with its disk's.
func devices(targets []string, sysfs string) ([]device, error) {
	var devs []device
	disks := map[uint32]int32{}
	add := func(dev uint32, disk int32) {
		for _, d := range devs {
			if d.dev == dev {
				return
			}
		}
		devs = append(devs, device{dev, disk})
	}
	for _, path := range targets {
		tgt, err := targetOf(path, sysfs)
		if err != nil {
			return nil, err
		}
		idx, ok := disks[tgt.Disk]
		if !ok {
			idx = int32(len(disks) + 1)
			disks[tgt.Disk] = idx
		}
		add(tgt.Disk, idx)
		add(tgt.BioDev, idx)
	}
	if len(devs) > maxDevices {
		return nil, unavailable("the job's files lie on %d block devices and partitions; gofio traces %d at most", len(devs), maxDevices)
	}
	return devs, nil
}

// Open starts tracing. An *Unavailable error says why kernel stages cannot
// be measured here; the job can run on without them.
func Open(cfg Config) (*Tracer, error) {
	cfg.defaults()
	if cfg.Euid != 0 {
		return nil, unavailable("not root: tracing needs root (BPF programs on tracepoints)")
	}
	tp, err := layouts(cfg)
	if err != nil {
		return nil, err
	}
	devs, err := devices(cfg.Targets, cfg.Sysfs)
	if err != nil {
		return nil, err
	}
	t := &Tracer{}
	t.st.Available = true
	t.st.Sample = uint64(max(1, cfg.Sample))
	if err := t.start(cfg, tp, devs); err != nil {
		t.release()
		return nil, err
	}
	return t, nil
}

// layouts finds the events and what the programs read of them: the raw
// tracepoints' arguments where the kernel has BTF (rawTracepoints), else
// the classic tracepoints' records tracefs describes.
func layouts(cfg Config) (*tracepoints, error) {
	if !cfg.TracefsOnly {
		if spec, err := btf.LoadKernelSpec(); err == nil {
			if tp, err := rawTracepoints(spec); err == nil {
				return tp, nil
			}
		}
	}
	tracefs, err := tracepoint.Mount(cfg.Mountinfo, cfg.MountAt)
	if err != nil {
		return nil, err
	}
	return findTracepoints(tracefs)
}

// newGen makes the maps of a tracer of slots I/O slots and the builder of
// its programs.
func newGen(slots int, tids []int, devs []device) (*gen, error) {
	if slots < 1 {
		slots = 1
	}
	m, err := newMaps(slots, len(tids))
	if err != nil {
		return nil, unavailable("BPF map refused: %v", err)
	}
	g := &gen{m: m, slots: int32(slots), bits: bits.TrailingZeros(uint(buckets(slots))), devs: devs}
	for _, t := range tids {
		g.tids = append(g.tids, uint32(t))
	}
	return g, nil
}

func (t *Tracer) start(cfg Config, tp *tracepoints, devs []device) error {
	g, err := newGen(cfg.Slots, cfg.Tids, devs)
	if err != nil {
		return err
	}
	g.sample = int32(max(1, cfg.Sample))
	t.m = g.m
	if t.sh, err = mapShared(t.m, int(g.slots), &t.st); err != nil {
		return err
	}
	t.sh.onJoin = cfg.OnJoin
	t.progs.Stats = cfg.Stats
	specs := g.programs(tp)
	progs := make([]*ebpf.Program, len(specs))
	for i, s := range specs {
		if progs[i], err = t.progs.Load(s.event, s.what, s.name, s.ins); err != nil {
			return err
		}
	}
	for i, s := range specs {
		if err := t.progs.Attach(s.event, progs[i]); err != nil {
			return err
		}
	}
	return nil
}

// Reap records one completed read or write of the job, on the goroutine
// that harvests them: its user data and its lat's start and end stamps
// (clock.Nanotime). It reads the slot's record from memory the programs
// share: no system call, no allocation.
func (t *Tracer) Reap(userData uint64, start, end int64) { t.sh.reap(userData, start, end) }

// Reset starts the counts again at stamp at (clock.Nanotime): the end of
// ramp_time.
func (t *Tracer) Reset(at int64) { t.sh.reset(at) }

// Close stops tracing and returns the job's kernel stages.
func (t *Tracer) Close() *kstage.KernelStages {
	t.progs.Detach()
	t.sh.settle()
	// A program the kernel skipped (it ran already on the CPU) is an
	// event lost; run time and count need the BPF statistics.
	t.st.LostEvents += t.progs.Misses()
	t.st.BPFRunNs, t.st.BPFRuns = t.progs.RunStats()
	t.release()
	st := t.st
	return &st
}

func (t *Tracer) release() {
	t.progs.Close()
	if t.sh != nil {
		t.sh.unmap()
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
