package ktrace

import (
	"fmt"
	"math/bits"
	"strconv"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/tracepoint"
)

// The programs join an I/O's events in the kernel, into its slot's record
// (record, in a map the job's process maps into its memory): the record of
// the SQE's user data (gofio's slot index) takes the request and its stamp
// at io_uring_submit_req, the submitting task's next bio on a traced device
// gives it its bio stamp and its key (the disk and the sector),
// block_rq_issue and block_rq_complete find it by its key, and
// io_uring_complete checks the stamps and marks it joined or unjoined with
// a reason. The job reads the record when it harvests the I/O (Tracer.Reap):
// no event crosses into user space and no goroutine joins.
//
// A key's record is found through a bucket, the key's hash in an array of
// buckets at least four times as many as the slots: each bucket holds the
// newest request queued to it, and each record the ones queued to its
// bucket before and after it (prev, next), so that a completed request
// leaves its chain at once. The block events walk a bucket's chain from the
// newest to the oldest request (up to chainWalk of them) and take the
// oldest of their key they apply to: the oldest not yet issued for an
// issue, the oldest issued and not completed for a completion or a
// requeue, which tells apart several requests in flight to one sector
// (random I/O on a small file) in the order they were queued. Buckets are
// array elements, which the verifier turns into plain loads, where a hash
// map's lookup, update and delete are calls that take locks.
//
// The programs leave other processes' events as early as they can: the
// io_uring ones on the ring (the first own submission tells the ring
// apart), the block ones on the device.

// chainWalk is how many requests of one bucket a block event looks at.
const chainWalk = 8

// recordSize is the size of a slot's record in the records map: one cache
// line (the mmapable array's elements start on a page), so that the
// programs and the job touch one line an event, and no two slots share
// one.
const recordSize = 64

// The offsets of a record's fields (see record).
const (
	recSubmit = 0
	recBio    = 8
	recIssue  = 16
	recDone   = 24
	recCQE    = 32
	recKey    = 40
	recReq    = 48 // the request's low 32 bits, which its completion must match
	recState  = 52 // state | bios << 8
	recPrev   = 56 // user data + 1 of the request queued before it to its bucket, 0 for none
	recNext   = 60 // user data + 1 of the request queued after it to its bucket, 0 for none
)

// The states of a record (the low byte of its state word).
const (
	stateFree     = 0 // nothing traced, or the job took it
	stateInFlight = 1 // submitted, not completed
	stateJoined   = 2 // completed with every stamp in order
	// stateUnjoined + a KLoss: completed, not joined for that reason.
	stateUnjoined = 3
)

// countersSize is the size of the counters map's one value (counters).
const countersSize = 32

// The offsets of the counters' fields (see counters).
const (
	cntCutoff   = 0
	cntLost     = 8
	cntUnreaped = 16
	cntRing     = 24
)

// buckets is the number of key buckets for slots I/O slots: the power of
// two at least four times slots, at least 64.
func buckets(slots int) int {
	n := 64
	for n < 4*slots {
		n <<= 1
	}
	return n
}

// hashMul is the multiplier of the keys' hash (Fibonacci hashing: the
// key times 2^64 divided by the golden ratio, the top bits kept).
const hashMul = 0x9E3779B97F4A7C15

// bucketOf is the bucket of key among n (a power of two), as the programs
// compute it (bucket).
func bucketOf(key uint64, n int) uint32 {
	return uint32(key * hashMul >> (64 - bits.TrailingZeros(uint(n))))
}

// maps are the BPF maps the programs share.
type maps struct {
	records  *ebpf.Map // array[slots] of record, mapped by the job
	counters *ebpf.Map // array[1] of counters, mapped by the job
	current  *ebpf.Map // array[tids]: user data + 1 of the last request each submitting thread submitted
	heads    *ebpf.Map // array[buckets(slots)]: user data + 1 of the newest request queued to each bucket
}

func newMaps(slots, tids int) (*maps, error) {
	m := &maps{}
	var err error
	specs := []struct {
		dst  **ebpf.Map
		spec ebpf.MapSpec
	}{
		{&m.records, ebpf.MapSpec{Name: "gofio_krec", Type: ebpf.Array, KeySize: 4, ValueSize: recordSize,
			MaxEntries: uint32(slots), Flags: unix.BPF_F_MMAPABLE}},
		{&m.counters, ebpf.MapSpec{Name: "gofio_kcnt", Type: ebpf.Array, KeySize: 4, ValueSize: countersSize,
			MaxEntries: 1, Flags: unix.BPF_F_MMAPABLE}},
		{&m.current, ebpf.MapSpec{Name: "gofio_kcur", Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: uint32(max(tids, 1))}},
		{&m.heads, ebpf.MapSpec{Name: "gofio_khead", Type: ebpf.Array, KeySize: 4, ValueSize: 4,
			MaxEntries: uint32(buckets(slots))}},
	}
	for _, s := range specs {
		if *s.dst, err = ebpf.NewMap(&s.spec); err != nil {
			m.close()
			return nil, fmt.Errorf("map %s: %w", s.spec.Name, err)
		}
	}
	return m, nil
}

func (m *maps) close() {
	for _, x := range []*ebpf.Map{m.records, m.counters, m.current, m.heads} {
		if x != nil {
			x.Close()
		}
	}
}

// Stack slots of the programs: u32 map keys and values at fp-8, fp-24,
// fp-32 and fp-40 (a key's bucket), a u64 sector key at fp-16.
const (
	stKey    = -8
	stSKey   = -16
	stUD     = -24
	stValue  = -32
	stBucket = -40
)

// ref is where a program finds one value of its tracepoint: a field of
// the record at Off (a classic tracepoint, tracefs's layout), or, for a
// BTF-typed raw tracepoint, the argument at Off (8 × its index), itself
// the value or a pointer the value lies behind: Hops are the offsets read
// through in turn, the last one the value's (kernel BTF's layout).
type ref struct {
	Off  int16
	Size int
	Hops []int32
}

// fieldRef is a classic tracepoint's record field.
func fieldRef(f Field) ref { return ref{Off: int16(f.Offset), Size: f.Size} }

type blockFields struct{ dev, sector ref }

type uringFields struct{ ctx, req, userData, opcode ref }

// labeled is ins with its first instruction labeled sym.
func labeled(sym string, ins asm.Instructions) asm.Instructions {
	ins[0] = ins[0].WithSymbol(sym)
	return ins
}

// field loads the value f refers to into dst (R6 the context), with
// plain loads only: the verifier turns a load through a BTF-typed pointer
// into one that reads 0 where the pointer is bad, so no helper is called
// and no other register changes.
func field(dst asm.Register, f ref) asm.Instructions {
	if len(f.Hops) == 0 {
		return asm.Instructions{tracepoint.LoadField(dst, asm.R6, Field{Offset: int(f.Off), Size: f.Size})}
	}
	ins := asm.Instructions{asm.LoadMem(dst, asm.R6, f.Off, asm.DWord)}
	for i, h := range f.Hops {
		size := asm.DWord
		if i == len(f.Hops)-1 {
			size = tracepoint.Size(f.Size)
		}
		ins = append(ins, asm.LoadMem(dst, dst, int16(h), size))
	}
	return ins
}

// device is a traced device and the disk index its bios and requests are
// keyed with (1, 2, ...).
type device struct {
	dev  uint32 // kernel dev_t
	disk int32
}

// gen builds the programs of one tracer. Registers: R6 holds the
// tracepoint record throughout.
type gen struct {
	m      *maps
	slots  int32
	bits   int // log2 of the number of buckets
	tids   []uint32
	devs   []device
	labels int
	sample int32 // Config.Sample, at least 1
	// test builds the programs for BPF_PROG_TEST_RUN (tests): the stamp
	// is read from the context at offset 0 and the task's id at offset 8
	// instead of from the kernel.
	test bool
}

func (g *gen) label(s string) string {
	g.labels++
	return s + "_" + strconv.Itoa(g.labels)
}

// stamp puts the time (bpf_ktime_get_ns) in R0.
func (g *gen) stamp() asm.Instructions {
	if g.test {
		return asm.Instructions{asm.LoadMem(asm.R0, asm.R6, 0, asm.DWord)}
	}
	return asm.Instructions{asm.FnKtimeGetNs.Call()}
}

// thread stores the current task's index among the job's submitting
// threads at stKey, its slot in the current map, and exits for any other
// task. A thread's own slot, not the CPU's: a submitting thread preempted
// between its request and its bio may go on on another CPU.
func (g *gen) thread() asm.Instructions {
	ins := asm.Instructions{asm.FnGetCurrentPidTgid.Call(), asm.Mov.Reg32(asm.R0, asm.R0)}
	if g.test {
		ins = asm.Instructions{asm.LoadMem(asm.R0, asm.R6, 8, asm.Word)}
	}
	ok := g.label("tid_ok")
	var set asm.Instructions
	for i, t := range g.tids {
		l := g.label("tid")
		ins = append(ins, asm.JEq.Imm32(asm.R0, int32(t), l))
		set = append(set, asm.StoreImm(asm.RFP, stKey, int64(i), asm.Word).WithSymbol(l), asm.Ja.Label(ok))
	}
	ins = append(append(ins, asm.Ja.Label("exit")), set...)
	return append(ins, asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(ok))
}

// disk loads the record's device and puts its disk index in R7; it exits
// for a device not traced.
func (g *gen) disk(dev ref) asm.Instructions {
	ins := field(asm.R1, dev)
	ok := g.label("dev_ok")
	var set asm.Instructions
	for _, d := range g.devs {
		l := g.label("dev")
		ins = append(ins, asm.JEq.Imm32(asm.R1, int32(d.dev), l))
		set = append(set, asm.Mov.Imm(asm.R7, d.disk).WithSymbol(l), asm.Ja.Label(ok))
	}
	ins = append(ins, asm.Ja.Label("exit"))
	ins = append(ins, set...)
	return append(ins, asm.Mov.Reg(asm.R7, asm.R7).WithSymbol(ok))
}

// lookup looks the key on the stack at off up in m, putting the value's
// pointer in R0; it jumps to miss when there is none.
func lookup(m *ebpf.Map, off int16, miss string) asm.Instructions {
	return asm.Instructions{
		asm.LoadMapPtr(asm.R1, m.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, int32(off)),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, miss),
	}
}

// state loads a record's state byte (the record's pointer in src) into dst.
func state(dst, src asm.Register) asm.Instructions {
	return asm.Instructions{asm.LoadMem(dst, src, recState, asm.Word), asm.And.Imm(dst, 0xff)}
}
