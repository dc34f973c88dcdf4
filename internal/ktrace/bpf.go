package ktrace

import (
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/gofio/gofio/internal/tracepoint"
)

// ringBytes is the size of the BPF ring buffer: at 40 bytes an event and
// five events an I/O, 40k I/Os' worth, which the drain empties every 1 to
// 16 ms (the longer only while fewer than 256 events come per interval).
const ringBytes = 8 << 20

// ringbufNoWakeup is BPF_RB_NO_WAKEUP: the drain polls on a timer, so no
// event pays for waking it.
const ringbufNoWakeup = 1

// maps are the BPF maps the programs share.
type maps struct {
	events *ebpf.Map // ring buffer of Events
	tids   *ebpf.Map // u32 tid -> u8: the job's submitting threads
	devs   *ebpf.Map // u32 kernel dev_t -> u8: the target's partition and disk
	rings  *ebpf.Map // u64 io_ring_ctx pointer -> u8: the rings the job's threads submit to
	lost   *ebpf.Map // array[1] u64: events the ring had no room for
}

func newMaps() (*maps, error) {
	m := &maps{}
	var err error
	specs := []struct {
		dst  **ebpf.Map
		spec ebpf.MapSpec
	}{
		{&m.events, ebpf.MapSpec{Name: "gofio_kev", Type: ebpf.RingBuf, MaxEntries: ringBytes}},
		{&m.tids, ebpf.MapSpec{Name: "gofio_ktid", Type: ebpf.Hash, KeySize: 4, ValueSize: 1, MaxEntries: 64}},
		{&m.devs, ebpf.MapSpec{Name: "gofio_kdev", Type: ebpf.Hash, KeySize: 4, ValueSize: 1, MaxEntries: 4}},
		{&m.rings, ebpf.MapSpec{Name: "gofio_kring", Type: ebpf.Hash, KeySize: 8, ValueSize: 1, MaxEntries: 64}},
		{&m.lost, ebpf.MapSpec{Name: "gofio_klost", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1}},
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
	for _, x := range []*ebpf.Map{m.events, m.tids, m.devs, m.rings, m.lost} {
		if x != nil {
			x.Close()
		}
	}
}

// Registers: R6 holds the tracepoint record, R7 the stamp, R8 the reserved
// event; the stack holds map keys at fp-8 (u32) and fp-16 (u64), and a map
// value of 1 at fp-24.
const (
	keyU32 = -8
	keyU64 = -16
	valOne = -24
)

// lookupOrExit looks key (on the stack at off) up in m and exits when it is
// not there.
func lookupOrExit(m *ebpf.Map, off int16) asm.Instructions {
	return asm.Instructions{
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, int32(off)),
		asm.LoadMapPtr(asm.R1, m.FD()),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "exit"),
	}
}

// field loads a record field into dst.
func field(dst asm.Register, f Field) asm.Instruction {
	return tracepoint.LoadField(dst, asm.R6, f)
}

// progSpec is one program's parts: its filter (which may leave values on
// the stack), the event's aux and tid words, and A and B.
type progSpec struct {
	name   string
	kind   Kind
	filter asm.Instructions
	fill   asm.Instructions // with R8 the event, R6 the record
}

// build assembles a program: filter, stamp, reserve, fill, submit; a full
// ring counts a lost event.
func (p *progSpec) build(m *maps) asm.Instructions {
	ins := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
	ins = append(ins, p.filter...)
	ins = append(ins,
		asm.FnKtimeGetNs.Call(),
		asm.Mov.Reg(asm.R7, asm.R0),
		asm.LoadMapPtr(asm.R1, m.events.FD()),
		asm.Mov.Imm(asm.R2, EventSize),
		asm.Mov.Imm(asm.R3, 0),
		asm.FnRingbufReserve.Call(),
		asm.JEq.Imm(asm.R0, 0, "lost"),
		asm.Mov.Reg(asm.R8, asm.R0),
		asm.StoreImm(asm.R8, 0, int64(p.kind), asm.Half),
		asm.StoreMem(asm.R8, 8, asm.R7, asm.DWord),
	)
	ins = append(ins, p.fill...)
	ins = append(ins,
		asm.Mov.Reg(asm.R1, asm.R8),
		asm.Mov.Imm(asm.R2, ringbufNoWakeup),
		asm.FnRingbufSubmit.Call(),
		asm.Ja.Label("exit"),
		asm.StoreImm(asm.RFP, keyU32, 0, asm.Word).WithSymbol("lost"),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, keyU32),
		asm.LoadMapPtr(asm.R1, m.lost.FD()),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "exit"),
		asm.Mov.Imm(asm.R1, 1),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("exit"),
		asm.Return(),
	)
	return ins
}

// tidFilter keeps the job's threads, leaving the tid at fp-8.
func tidFilter(m *maps) asm.Instructions {
	return append(asm.Instructions{
		asm.FnGetCurrentPidTgid.Call(),
		asm.StoreMem(asm.RFP, keyU32, asm.R0, asm.Word),
	}, lookupOrExit(m.tids, keyU32)...)
}

// devFilter keeps the target's devices.
func devFilter(m *maps, dev Field) asm.Instructions {
	return append(asm.Instructions{
		field(asm.R1, dev),
		asm.StoreMem(asm.RFP, keyU32, asm.R1, asm.Word),
	}, lookupOrExit(m.devs, keyU32)...)
}

// blockFill writes a block event's sector and device << 32 | sectors.
func blockFill(f blockFields) asm.Instructions {
	return asm.Instructions{
		field(asm.R1, f.sector),
		asm.StoreMem(asm.R8, 16, asm.R1, asm.DWord),
		field(asm.R1, f.dev),
		asm.LSh.Imm(asm.R1, 32),
		field(asm.R2, f.nrSector),
		asm.Or.Reg(asm.R1, asm.R2),
		asm.StoreMem(asm.R8, 24, asm.R1, asm.DWord),
	}
}

type blockFields struct{ dev, sector, nrSector Field }

type uringFields struct{ ctx, req, userData, opcode Field }

// programs builds the five programs over the record layouts.
func programs(m *maps, sub, cqe uringFields, bio, issue, done blockFields) []progSpec {
	var opFilter asm.Instructions
	opFilter = append(opFilter, field(asm.R1, sub.opcode))
	for _, op := range []int32{opReadv, opWritev, opReadFixed, opWriteFixed, opRead, opWrite} {
		opFilter = append(opFilter, asm.JEq.Imm(asm.R1, op, "traced_op"))
	}
	opFilter = append(opFilter, asm.Ja.Label("exit"))
	learnRing := asm.Instructions{
		// Remember the ring, so that its completions pass the
		// completion program's filter.
		field(asm.R1, sub.ctx).WithSymbol("traced_op"),
		asm.StoreMem(asm.RFP, keyU64, asm.R1, asm.DWord),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, keyU64),
		asm.LoadMapPtr(asm.R1, m.rings.FD()),
		asm.FnMapLookupElem.Call(),
		asm.JNE.Imm(asm.R0, 0, "known_ring"),
		asm.StoreImm(asm.RFP, valOne, 1, asm.Byte),
		asm.LoadMapPtr(asm.R1, m.rings.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, keyU64),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, valOne),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnMapUpdateElem.Call(),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("known_ring"),
	}
	subFilter := append(append(tidFilter(m), opFilter...), learnRing...)
	return []progSpec{
		{name: "gofio_ksub", kind: KindSubmit, filter: subFilter, fill: asm.Instructions{
			field(asm.R1, sub.opcode),
			asm.StoreMem(asm.R8, 2, asm.R1, asm.Half),
			asm.LoadMem(asm.R1, asm.RFP, keyU32, asm.Word),
			asm.StoreMem(asm.R8, 4, asm.R1, asm.Word),
			field(asm.R1, sub.req),
			asm.StoreMem(asm.R8, 16, asm.R1, asm.DWord),
			field(asm.R1, sub.userData),
			asm.StoreMem(asm.R8, 24, asm.R1, asm.DWord),
		}},
		{name: "gofio_kbio", kind: KindBioQueue, filter: append(devFilter(m, bio.dev), tidFilter(m)...),
			fill: append(asm.Instructions{
				asm.StoreImm(asm.R8, 2, 0, asm.Half),
				asm.LoadMem(asm.R1, asm.RFP, keyU32, asm.Word),
				asm.StoreMem(asm.R8, 4, asm.R1, asm.Word),
			}, blockFill(bio)...)},
		{name: "gofio_kissue", kind: KindRqIssue, filter: devFilter(m, issue.dev),
			fill: append(asm.Instructions{asm.StoreImm(asm.R8, 2, 0, asm.Half), asm.StoreImm(asm.R8, 4, 0, asm.Word)}, blockFill(issue)...)},
		{name: "gofio_kdone", kind: KindRqComplete, filter: devFilter(m, done.dev),
			fill: append(asm.Instructions{asm.StoreImm(asm.R8, 2, 0, asm.Half), asm.StoreImm(asm.R8, 4, 0, asm.Word)}, blockFill(done)...)},
		{name: "gofio_kcqe", kind: KindComplete, filter: append(asm.Instructions{
			field(asm.R1, cqe.ctx),
			asm.StoreMem(asm.RFP, keyU64, asm.R1, asm.DWord),
		}, lookupOrExit(m.rings, keyU64)...),
			fill: asm.Instructions{
				asm.StoreImm(asm.R8, 2, 0, asm.Half),
				asm.StoreImm(asm.R8, 4, 0, asm.Word),
				field(asm.R1, cqe.req),
				asm.StoreMem(asm.R8, 16, asm.R1, asm.DWord),
				field(asm.R1, cqe.userData),
				asm.StoreMem(asm.R8, 24, asm.R1, asm.DWord),
			}},
	}
}

// load loads a program, turning the verifier's refusal into an
// Unavailable.
func load(p progSpec, m *maps) (*ebpf.Program, error) {
	return tracepoint.Load(p.kind.String(), p.name, p.build(m))
}
