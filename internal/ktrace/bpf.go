package ktrace

import (
	"fmt"
	"strconv"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/kstage"
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
// Several requests in flight to one sector (random I/O on a small file)
// share a key: the key map holds the newest, each record the one queued
// before it (prev), and the block events walk that chain from the newest
// to the oldest request they apply to (up to chainWalk of them): the oldest
// not yet issued for an issue, the oldest issued and not completed for a
// completion or a requeue.

// chainWalk is how many requests to one sector a block event looks at.
const chainWalk = 8

// recordSize is the size of a slot's record in the records map.
const recordSize = 64

// The offsets of a record's fields (see record).
const (
	recReq    = 0
	recSubmit = 8
	recBio    = 16
	recIssue  = 24
	recDone   = 32
	recCQE    = 40
	recKey    = 48
	recState  = 56 // state | bios << 8
	recPrev   = 60 // user data + 1 of the request queued before on the key, 0 for none
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
	cntKeyFull  = 24
)

// maps are the BPF maps the programs share.
type maps struct {
	records  *ebpf.Map // array[slots] of record, mapped by the job
	counters *ebpf.Map // array[1] of counters, mapped by the job
	current  *ebpf.Map // array[tids]: user data + 1 of the last request each submitting thread submitted
	keys     *ebpf.Map // hash u64 key -> u32 user data: the newest request queued to a sector
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
		{&m.keys, ebpf.MapSpec{Name: "gofio_kkey", Type: ebpf.Hash, KeySize: 8, ValueSize: 4,
			MaxEntries: uint32(2*slots + 256)}},
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
	for _, x := range []*ebpf.Map{m.records, m.counters, m.current, m.keys} {
		if x != nil {
			x.Close()
		}
	}
}

// Stack slots of the programs: u32 map keys and values at fp-8, fp-24 and
// fp-32, a u64 sector key at fp-16.
const (
	stKey   = -8
	stSKey  = -16
	stUD    = -24
	stValue = -32
)

// ref is where a program finds one value of its tracepoint: a field of
// the record at Off (a classic tracepoint, tracefs's layout), or, for a
// raw tracepoint, the argument at Off (8 × its index), itself the value
// or a pointer the value lies behind: Hops are the offsets read through in
// turn with bpf_probe_read_kernel, the last one the value's (kernel BTF's
// layout).
type ref struct {
	Off  int16
	Size int
	Hops []int32
}

// fieldRef is a classic tracepoint's record field.
func fieldRef(f Field) ref { return ref{Off: int16(f.Offset), Size: f.Size} }

type blockFields struct{ dev, sector ref }

type uringFields struct{ req, userData, opcode ref }

// labeled is ins with its first instruction labeled sym.
func labeled(sym string, ins asm.Instructions) asm.Instructions {
	ins[0] = ins[0].WithSymbol(sym)
	return ins
}

// stTmp is the stack slot a value read through pointers lands in.
const stTmp = -40

// field loads the value f refers to into dst (R6 the context). Reading
// through pointers calls a helper: R0 to R5 do not survive it.
func field(dst asm.Register, f ref) asm.Instructions {
	if len(f.Hops) == 0 {
		return asm.Instructions{tracepoint.LoadField(dst, asm.R6, Field{Offset: int(f.Off), Size: f.Size})}
	}
	ins := asm.Instructions{asm.LoadMem(asm.R3, asm.R6, f.Off, asm.DWord)}
	for i, h := range f.Hops {
		n := int32(8)
		if i == len(f.Hops)-1 {
			n = int32(f.Size)
		}
		ins = append(ins,
			asm.Add.Imm(asm.R3, h),
			asm.Mov.Reg(asm.R1, asm.RFP),
			asm.Add.Imm(asm.R1, stTmp),
			asm.Mov.Imm(asm.R2, n),
			asm.FnProbeReadKernel.Call())
		if i < len(f.Hops)-1 {
			ins = append(ins, asm.LoadMem(asm.R3, asm.RFP, stTmp, asm.DWord))
		}
	}
	return append(ins, asm.LoadMem(dst, asm.RFP, stTmp, tracepoint.Size(f.Size)))
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
	tids   []uint32
	devs   []device
	labels int
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

// count adds one to the counter at off, clobbering R0 to R5.
func (g *gen) count(off int16) asm.Instructions {
	add := asm.StoreXAdd(asm.R0, asm.R1, asm.DWord)
	add.Offset = off
	return append(append(asm.Instructions{asm.StoreImm(asm.RFP, stKey, 0, asm.Word)},
		lookup(g.m.counters, stKey, "exit")...), asm.Mov.Imm(asm.R1, 1), add)
}

// state loads a record's state byte (the record's pointer in src) into dst.
func state(dst, src asm.Register) asm.Instructions {
	return asm.Instructions{asm.LoadMem(dst, src, recState, asm.Word), asm.And.Imm(dst, 0xff)}
}

// onKey looks up the record of the user data on the stack at off, its
// pointer in R0, and jumps to miss unless it is in flight with the key in
// R7.
func (g *gen) onKey(off int16, miss string) asm.Instructions {
	ins := lookup(g.m.records, off, miss)
	ins = append(ins, asm.LoadMem(asm.R1, asm.R0, recKey, asm.DWord), asm.JNE.Reg(asm.R1, asm.R7, miss))
	ins = append(ins, state(asm.R1, asm.R0)...)
	return append(ins, asm.JNE.Imm(asm.R1, stateInFlight, miss))
}

// zero64 stores a u64 zero at dst+off (asm.StoreImm makes no
// doubleword store, which BPF has).
func zero64(dst asm.Register, off int16) asm.Instruction {
	return asm.Instruction{OpCode: asm.StoreImmOp(asm.DWord), Dst: dst, Offset: off}
}

// finish ends a program: every path that leaves early jumps to exit.
func finish(ins asm.Instructions) asm.Instructions {
	return append(ins, asm.Mov.Imm(asm.R0, 0).WithSymbol("exit"), asm.Return())
}

// submitProg is io_uring_submit_req: a read or write one of the job's
// threads submits starts its slot's record. A record still in flight
// there lost its completion, one completed and not taken was not reaped.
func (g *gen) submitProg(f uringFields) asm.Instructions {
	ins := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
	ins = append(ins, g.thread()...)
	ins = append(ins, asm.LoadMem(asm.R7, asm.RFP, stKey, asm.Word))
	ins = append(ins, field(asm.R1, f.opcode)...)
	for _, op := range []int32{opReadv, opWritev, opReadFixed, opWriteFixed, opRead, opWrite} {
		ins = append(ins, asm.JEq.Imm(asm.R1, op, "traced_op"))
	}
	ins = append(ins, asm.Ja.Label("exit"))
	ins = append(ins, labeled("traced_op", field(asm.R1, f.userData))...)
	ins = append(ins,
		asm.JGE.Imm(asm.R1, g.slots, "exit"),
		asm.StoreMem(asm.RFP, stKey, asm.R1, asm.Word),
		asm.StoreMem(asm.RFP, stUD, asm.R1, asm.Word))
	ins = append(ins, lookup(g.m.records, stKey, "exit")...)
	ins = append(ins, asm.Mov.Reg(asm.R8, asm.R0))
	ins = append(ins, g.stamp()...)
	ins = append(ins, asm.Mov.Reg(asm.R9, asm.R0), asm.StoreImm(asm.RFP, stKey, 0, asm.Word))
	ins = append(ins, lookup(g.m.counters, stKey, "exit")...)
	ins = append(ins,
		// Before the cutoff (ramp_time): not traced.
		asm.LoadMem(asm.R1, asm.R0, cntCutoff, asm.DWord),
		asm.JLT.Reg(asm.R9, asm.R1, "exit"))
	ins = append(ins, state(asm.R2, asm.R8)...)
	unreaped := asm.StoreXAdd(asm.R0, asm.R3, asm.DWord)
	unreaped.Offset = cntUnreaped
	lost := asm.StoreXAdd(asm.R0, asm.R3, asm.DWord)
	lost.Offset = cntLost
	ins = append(ins,
		asm.JEq.Imm(asm.R2, stateFree, "fresh"),
		asm.LoadMem(asm.R3, asm.R8, recSubmit, asm.DWord),
		asm.JLT.Reg(asm.R3, asm.R1, "fresh"),
		asm.Mov.Imm(asm.R3, 1),
		asm.JEq.Imm(asm.R2, stateInFlight, "lost"),
		unreaped,
		asm.Ja.Label("fresh"),
		lost.WithSymbol("lost"))
	ins = append(ins, labeled("fresh", field(asm.R1, f.req))...)
	ins = append(ins,
		asm.StoreMem(asm.R8, recReq, asm.R1, asm.DWord),
		asm.StoreMem(asm.R8, recSubmit, asm.R9, asm.DWord))
	for _, off := range []int16{recBio, recIssue, recDone, recCQE, recKey} {
		ins = append(ins, zero64(asm.R8, off))
	}
	ins = append(ins, asm.StoreImm(asm.R8, recPrev, 0, asm.Word),
		asm.StoreImm(asm.R8, recState, stateInFlight, asm.Word),
		// The thread's next bio is this request's.
		asm.StoreMem(asm.RFP, stKey, asm.R7, asm.Word))
	ins = append(ins, lookup(g.m.current, stKey, "exit")...)
	return finish(append(ins,
		asm.LoadMem(asm.R1, asm.RFP, stUD, asm.Word),
		asm.Add.Imm(asm.R1, 1),
		asm.StoreMem(asm.R0, 0, asm.R1, asm.Word)))
}

// bioProg is block_bio_queue: the first bio one of the job's threads
// queues on a traced device after submitting a request is the request's;
// a second one marks it split.
func (g *gen) bioProg(f blockFields) asm.Instructions {
	ins := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
	ins = append(ins, g.disk(f.dev)...)
	ins = append(ins, g.thread()...)
	ins = append(ins, lookup(g.m.current, stKey, "exit")...)
	ins = append(ins,
		asm.LoadMem(asm.R1, asm.R0, 0, asm.Word),
		asm.JEq.Imm(asm.R1, 0, "exit"),
		asm.Sub.Imm(asm.R1, 1),
		asm.StoreMem(asm.RFP, stKey, asm.R1, asm.Word),
		asm.StoreMem(asm.RFP, stUD, asm.R1, asm.Word))
	ins = append(ins, lookup(g.m.records, stKey, "exit")...)
	ins = append(ins, asm.Mov.Reg(asm.R8, asm.R0))
	ins = append(ins, state(asm.R2, asm.R8)...)
	ins = append(ins,
		asm.JNE.Imm(asm.R2, stateInFlight, "exit"),
		asm.LoadMem(asm.R1, asm.R8, recState, asm.Word),
		asm.RSh.Imm(asm.R1, 8),
		asm.JEq.Imm(asm.R1, 0, "first"),
		asm.StoreImm(asm.R8, recState, stateInFlight|2<<8, asm.Word),
		asm.Ja.Label("exit"),
		asm.StoreImm(asm.R8, recState, stateInFlight|1<<8, asm.Word).WithSymbol("first"))
	ins = append(ins, g.stamp()...)
	ins = append(ins, asm.StoreMem(asm.R8, recBio, asm.R0, asm.DWord))
	ins = append(ins, g.key(f.sector)...)
	ins = append(ins, asm.StoreMem(asm.R8, recKey, asm.R7, asm.DWord))
	// The request queued before to the sector, if still in flight, is
	// this one's prev.
	ins = append(ins, lookup(g.m.keys, stSKey, "keyed")...)
	ins = append(ins,
		asm.LoadMem(asm.R1, asm.R0, 0, asm.Word),
		asm.LoadMem(asm.R2, asm.RFP, stUD, asm.Word),
		asm.JEq.Reg(asm.R1, asm.R2, "keyed"),
		asm.StoreMem(asm.RFP, stKey, asm.R1, asm.Word))
	ins = append(ins, g.onKey(stKey, "keyed")...)
	ins = append(ins,
		asm.LoadMem(asm.R1, asm.RFP, stKey, asm.Word),
		asm.Add.Imm(asm.R1, 1),
		asm.StoreMem(asm.R8, recPrev, asm.R1, asm.Word),
		asm.LoadMapPtr(asm.R1, g.m.keys.FD()).WithSymbol("keyed"),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, stSKey),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, stUD),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnMapUpdateElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "exit"))
	return finish(append(ins, g.count(cntKeyFull)...))
}

// key makes the record's sector key, disk index << 48 | sector, in R7
// and on the stack at stSKey (the disk index in R7 before).
func (g *gen) key(sector ref) asm.Instructions {
	return append(field(asm.R1, sector),
		asm.LSh.Imm(asm.R1, 16),
		asm.RSh.Imm(asm.R1, 16),
		asm.LSh.Imm(asm.R7, 48),
		asm.Or.Reg(asm.R7, asm.R1),
		asm.StoreMem(asm.RFP, stSKey, asm.R7, asm.DWord),
	)
}

// The block events that find their request by its sector.
const (
	blockIssue = iota
	blockComplete
	blockRequeue
)

// blockProg is block_rq_issue, block_rq_complete or block_rq_requeue on a
// traced device: it finds the request the event applies to on its key's
// chain (R9, 0 for none) and stamps it (a requeue takes the issue back).
func (g *gen) blockProg(f blockFields, kind int) asm.Instructions {
	ins := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
	ins = append(ins, g.disk(f.dev)...)
	ins = append(ins, g.key(f.sector)...)
	ins = append(ins, lookup(g.m.keys, stSKey, "exit")...)
	ins = append(ins, asm.LoadMem(asm.R1, asm.R0, 0, asm.Word), asm.Mov.Imm(asm.R9, 0))
	for i := 0; i < chainWalk; i++ {
		skip := g.label("skip")
		ins = append(ins, asm.StoreMem(asm.RFP, stKey, asm.R1, asm.Word))
		ins = append(ins, g.onKey(stKey, "walked")...)
		ins = append(ins, asm.Mov.Reg(asm.R8, asm.R0),
			asm.LoadMem(asm.R1, asm.R8, recIssue, asm.DWord))
		if kind == blockIssue {
			ins = append(ins, asm.JNE.Imm(asm.R1, 0, skip))
		} else {
			ins = append(ins, asm.JEq.Imm(asm.R1, 0, skip),
				asm.LoadMem(asm.R1, asm.R8, recDone, asm.DWord),
				asm.JNE.Imm(asm.R1, 0, skip))
		}
		ins = append(ins, asm.Mov.Reg(asm.R9, asm.R8),
			asm.LoadMem(asm.R1, asm.R8, recPrev, asm.Word).WithSymbol(skip),
			asm.JEq.Imm(asm.R1, 0, "walked"),
			asm.Sub.Imm(asm.R1, 1))
	}
	ins = append(ins, asm.JEq.Imm(asm.R9, 0, "exit").WithSymbol("walked"))
	switch kind {
	case blockRequeue:
		ins = append(ins, zero64(asm.R9, recIssue))
	default:
		off := int16(recIssue)
		if kind == blockComplete {
			off = recDone
		}
		ins = append(ins, g.stamp()...)
		ins = append(ins, asm.StoreMem(asm.R9, off, asm.R0, asm.DWord))
	}
	return finish(ins)
}

// completeProg is io_uring_complete: the request's record takes its CQE
// stamp, gives its key back to the request queued before it, and is
// joined when every stamp came in order, or unjoined with the reason.
func (g *gen) completeProg(f uringFields) asm.Instructions {
	ins := append(asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}, field(asm.R1, f.userData)...)
	ins = append(ins,
		asm.JGE.Imm(asm.R1, g.slots, "exit"),
		asm.StoreMem(asm.RFP, stKey, asm.R1, asm.Word),
		asm.StoreMem(asm.RFP, stUD, asm.R1, asm.Word))
	ins = append(ins, lookup(g.m.records, stKey, "exit")...)
	ins = append(ins, asm.Mov.Reg(asm.R8, asm.R0))
	ins = append(ins, state(asm.R1, asm.R8)...)
	ins = append(ins, asm.JNE.Imm(asm.R1, stateInFlight, "exit"))
	ins = append(ins, field(asm.R1, f.req)...)
	ins = append(ins,
		asm.LoadMem(asm.R2, asm.R8, recReq, asm.DWord),
		asm.JNE.Reg(asm.R1, asm.R2, "exit"))
	ins = append(ins, g.stamp()...)
	ins = append(ins, asm.Mov.Reg(asm.R9, asm.R0),
		asm.StoreMem(asm.R8, recCQE, asm.R9, asm.DWord),
		asm.LoadMem(asm.R7, asm.R8, recKey, asm.DWord),
		asm.JEq.Imm(asm.R7, 0, "classify"),
		asm.StoreMem(asm.RFP, stSKey, asm.R7, asm.DWord))
	// Still the key's newest: hand the key to the request before, or
	// take it out.
	ins = append(ins, lookup(g.m.keys, stSKey, "classify")...)
	ins = append(ins,
		asm.LoadMem(asm.R1, asm.R0, 0, asm.Word),
		asm.LoadMem(asm.R2, asm.RFP, stUD, asm.Word),
		asm.JNE.Reg(asm.R1, asm.R2, "classify"),
		asm.LoadMem(asm.R1, asm.R8, recPrev, asm.Word),
		asm.JEq.Imm(asm.R1, 0, "unkey"),
		asm.Sub.Imm(asm.R1, 1),
		asm.StoreMem(asm.RFP, stValue, asm.R1, asm.Word))
	ins = append(ins, g.onKey(stValue, "unkey")...)
	ins = append(ins,
		asm.LoadMapPtr(asm.R1, g.m.keys.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, stSKey),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, stValue),
		asm.Mov.Imm(asm.R4, unix.BPF_EXIST),
		asm.FnMapUpdateElem.Call(),
		asm.Ja.Label("classify"),
		asm.LoadMapPtr(asm.R1, g.m.keys.FD()).WithSymbol("unkey"),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, stSKey),
		asm.FnMapDeleteElem.Call())
	unjoined := func(k int) asm.Instruction {
		return asm.StoreImm(asm.R8, recState, int64(stateUnjoined+k), asm.Word)
	}
	return finish(append(ins,
		asm.LoadMem(asm.R1, asm.R8, recState, asm.Word).WithSymbol("classify"),
		asm.RSh.Imm(asm.R1, 8),
		asm.JEq.Imm(asm.R1, 0, "iowq"),
		asm.JGT.Imm(asm.R1, 1, "split"),
		asm.LoadMem(asm.R2, asm.R8, recIssue, asm.DWord),
		asm.JEq.Imm(asm.R2, 0, "merged"),
		asm.LoadMem(asm.R3, asm.R8, recDone, asm.DWord),
		asm.JEq.Imm(asm.R3, 0, "lostev"),
		asm.JGT.Reg(asm.R3, asm.R9, "lostev"),
		asm.JGT.Reg(asm.R2, asm.R3, "lostev"),
		asm.LoadMem(asm.R4, asm.R8, recBio, asm.DWord),
		asm.JGT.Reg(asm.R4, asm.R2, "lostev"),
		asm.LoadMem(asm.R5, asm.R8, recSubmit, asm.DWord),
		asm.JGT.Reg(asm.R5, asm.R4, "lostev"),
		asm.StoreImm(asm.R8, recState, stateJoined, asm.Word),
		asm.Ja.Label("exit"),
		unjoined(int(kstage.LossIOWQ)).WithSymbol("iowq"),
		asm.Ja.Label("exit"),
		unjoined(int(kstage.LossSplit)).WithSymbol("split"),
		asm.Ja.Label("exit"),
		unjoined(int(kstage.LossMerged)).WithSymbol("merged"),
		asm.Ja.Label("exit"),
		unjoined(int(kstage.LossLost)).WithSymbol("lostev"),
	))
}

// progSpec is one program and the tracepoint it attaches to.
type progSpec struct {
	group, event string
	kind         string // what the load error names
	name         string // the program's name (at most 15 bytes)
	ins          asm.Instructions
}

// programs builds the six programs over the record layouts.
func (g *gen) programs(tp *tracepoints) []progSpec {
	return []progSpec{
		{"io_uring", tp.submitName, "submit_req", "gofio_ksub", g.submitProg(tp.sub)},
		{"block", "block_bio_queue", "bio_queue", "gofio_kbio", g.bioProg(tp.bio)},
		{"block", "block_rq_issue", "rq_issue", "gofio_kissue", g.blockProg(tp.issue, blockIssue)},
		{"block", "block_rq_complete", "rq_complete", "gofio_kdone", g.blockProg(tp.done, blockComplete)},
		{"block", "block_rq_requeue", "rq_requeue", "gofio_krequeue", g.blockProg(tp.requeue, blockRequeue)},
		{"io_uring", "io_uring_complete", "complete", "gofio_kcqe", g.completeProg(tp.cqe)},
	}
}

// load loads a program of type typ (ebpf.TracePoint; ebpf.RawTracepoint
// in tests).
func load(p progSpec, typ ebpf.ProgramType) (*ebpf.Program, error) {
	return tracepoint.LoadType(typ, p.kind, p.name, p.ins)
}
