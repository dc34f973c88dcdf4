package lockbpf

import (
	"fmt"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/gofio/gofio/internal/tracepoint"
)

// stackDepth is how many kernel frames a contention's stack keeps: the
// lock primitives and lock-taking helpers take at most five (slow path,
// _raw_spin_lock, raw_spin_rq_lock_nested, __task_rq_lock), so six reach
// the site; a short stack is cheaper to take (the kernel walks no further)
// and makes fewer distinct stacks, which collide less.
const stackDepth = 6

// stackEntries is the stack table's size: its buckets are hashed by
// stack, and a stack whose bucket another holds is counted under
// klock.UnknownSite, so the table is kept much larger than the hundred or
// so stacks a job's threads contend on. It is allocated in full when the
// job starts (8192 * 48 bytes and the buckets' headers, about 0.5 MiB),
// as is the table of waiting tasks (4096 entries, which come and go with
// every contention); the sites' table grows as it fills.
const stackEntries = 8192

// bpfFFastStackCmp is BPF_F_FAST_STACK_CMP: a stack whose hash matches a
// bucket's is taken to be that bucket's without comparing the frames.
const bpfFFastStackCmp = 1 << 9

// bpfFNoPrealloc is BPF_F_NO_PREALLOC: a hash table that allocates its
// entries as they are added.
const bpfFNoPrealloc = 1

// unknownStack is the stack id under which contentions whose stack could
// not be taken are counted.
const unknownStack = 0xffffffff

// lcbFSpin is LCB_F_SPIN of lock:contention_begin's flags: the task spins
// on its CPU; without it (a mutex or rwsem about to sleep) it sleeps.
const lcbFSpin = 1 << 0

// bpfNoExist is BPF_NOEXIST.
const bpfNoExist = 1

// Lost counters, array indices of maps.lost.
const (
	lostBegin = iota // a contention's start found the waiting table full
	lostSite         // a site's counter could not be made
	numLost
)

// maps are the BPF maps the two programs share.
type maps struct {
	tids   *ebpf.Map // u32 tid -> u8: the job thread, its SQ thread
	comms  *ebpf.Map // [16]byte comm -> u8: "iou-wrk-TID", "iou-sqp-TID" of those tids
	wait   *ebpf.Map // waitKey -> waitVal: contentions begun, not yet ended
	stacks *ebpf.Map // stack id -> stackDepth frames
	sites  *ebpf.Map // u32 stack id -> siteVal
	lost   *ebpf.Map // array[numLost] u64
}

// waitKey is a waiting task's key: the lock and the task (16 bytes).
type waitKey struct {
	Lock uint64
	Tid  uint32
	_    uint32
}

// waitVal is when a task began to wait, on which stack, and when it went
// to sleep (0 while it spins).
type waitVal struct {
	Start   uint64
	Stack   int64
	SleptAt uint64
}

// siteVal is one stack's contentions, their wait and its spinning part.
type siteVal struct {
	Count, WaitNs, SpinNs uint64
}

func newMaps() (*maps, error) {
	m := &maps{}
	specs := []struct {
		dst  **ebpf.Map
		spec ebpf.MapSpec
	}{
		{&m.tids, ebpf.MapSpec{Name: "gofio_ltid", Type: ebpf.Hash, KeySize: 4, ValueSize: 1, MaxEntries: 64}},
		{&m.comms, ebpf.MapSpec{Name: "gofio_lcomm", Type: ebpf.Hash, KeySize: 16, ValueSize: 1, MaxEntries: 256}},
		{&m.wait, ebpf.MapSpec{Name: "gofio_lwait", Type: ebpf.Hash, KeySize: uint32(unsafe.Sizeof(waitKey{})),
			ValueSize: uint32(unsafe.Sizeof(waitVal{})), MaxEntries: 4096}},
		{&m.stacks, ebpf.MapSpec{Name: "gofio_lstack", Type: ebpf.StackTrace, KeySize: 4, ValueSize: 8 * stackDepth,
			MaxEntries: stackEntries}},
		{&m.sites, ebpf.MapSpec{Name: "gofio_lsite", Type: ebpf.Hash, KeySize: 4, ValueSize: uint32(unsafe.Sizeof(siteVal{})),
			MaxEntries: stackEntries, Flags: bpfFNoPrealloc}},
		{&m.lost, ebpf.MapSpec{Name: "gofio_llost", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: numLost}},
	}
	for _, s := range specs {
		var err error
		if *s.dst, err = ebpf.NewMap(&s.spec); err != nil {
			m.close()
			return nil, fmt.Errorf("map %s: %w", s.spec.Name, err)
		}
	}
	return m, nil
}

func (m *maps) close() {
	for _, x := range []*ebpf.Map{m.tids, m.comms, m.wait, m.stacks, m.sites, m.lost} {
		if x != nil {
			x.Close()
		}
	}
}

// Stack slots (offsets from the frame pointer) of the programs.
const (
	slotTid   = -8  // u32 tid, the tids key; then the sites key
	slotComm  = -32 // [16]byte comm
	slotKey   = -48 // waitKey
	slotVal   = -72 // waitVal
	slotSpin  = -80 // u64 spin time, kept across calls
	slotZero  = -104
	slotLostK = -108 // u32 lost index
)

// Registers: R6 holds the tracepoint record, R7 the current pid_tgid; R8
// and R9 are the end program's wait entry and time.

// countLost adds one to lost counter i, then exits.
func countLost(m *maps, i int, label string) asm.Instructions {
	return append(asm.Instructions{asm.StoreImm(asm.RFP, slotLostK, int64(i), asm.Word).WithSymbol(label)},
		append(tracepoint.Lookup(m.lost, slotLostK),
			asm.JEq.Imm(asm.R0, 0, "exit"),
			asm.Mov.Imm(asm.R1, 1),
			asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
			asm.Ja.Label("exit"),
		)...)
}

// ownProcess keeps the events of process pid, with pid_tgid in R7.
func ownProcess(pid int) asm.Instructions {
	return asm.Instructions{
		asm.FnGetCurrentPidTgid.Call(),
		asm.Mov.Reg(asm.R7, asm.R0),
		asm.Mov.Reg(asm.R1, asm.R0),
		asm.RSh.Imm(asm.R1, 32),
		asm.JNE.Imm(asm.R1, int32(pid), "exit"),
	}
}

// waitKeyOf writes the wait table's key of the record's lock and the
// current task.
func waitKeyOf(lockAddr tracepoint.Field) asm.Instructions {
	return asm.Instructions{
		tracepoint.LoadField(asm.R1, asm.R6, lockAddr),
		asm.StoreMem(asm.RFP, slotKey, asm.R1, asm.DWord),
		asm.StoreMem(asm.RFP, slotKey+8, asm.R7, asm.Word),
		asm.StoreImm(asm.RFP, slotKey+12, 0, asm.Word),
	}
}

func exit() asm.Instructions {
	return asm.Instructions{
		asm.Mov.Imm(asm.R0, 0).WithSymbol("exit"),
		asm.Return(),
	}
}

// beginProgram is lock:contention_begin: for a traced thread, the first
// begin of a wait on a lock records the time and the stack; a later one
// for the same lock without LCB_F_SPIN (a mutex's spinning turned to
// sleep) records when the task went to sleep.
func beginProgram(m *maps, pid int, lockAddr, flags tracepoint.Field) asm.Instructions {
	ins := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
	ins = append(ins, ownProcess(pid)...)
	ins = append(ins, asm.StoreMem(asm.RFP, slotTid, asm.R7, asm.Word))
	ins = append(ins, tracepoint.Lookup(m.tids, slotTid)...)
	ins = append(ins,
		asm.JNE.Imm(asm.R0, 0, "traced"),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, slotComm),
		asm.Mov.Imm(asm.R2, 16),
		asm.FnGetCurrentComm.Call(),
	)
	ins = append(ins, tracepoint.Lookup(m.comms, slotComm)...)
	ins = append(ins, asm.JEq.Imm(asm.R0, 0, "exit"))
	key := waitKeyOf(lockAddr)
	key[0] = key[0].WithSymbol("traced")
	ins = append(ins, key...)
	ins = append(ins, tracepoint.Lookup(m.wait, slotKey)...)
	ins = append(ins,
		asm.JEq.Imm(asm.R0, 0, "fresh"),
		// Waiting already: note when a spinning wait turns to sleep.
		asm.Mov.Reg(asm.R8, asm.R0),
		tracepoint.LoadField(asm.R1, asm.R6, flags),
		asm.And.Imm(asm.R1, lcbFSpin),
		asm.JNE.Imm(asm.R1, 0, "exit"),
		asm.LoadMem(asm.R1, asm.R8, 16, asm.DWord),
		asm.JNE.Imm(asm.R1, 0, "exit"),
		asm.FnKtimeGetNs.Call(),
		asm.StoreMem(asm.R8, 16, asm.R0, asm.DWord),
		asm.Ja.Label("exit"),
		// A new wait: its stack first, so that taking the stack is not
		// counted as waiting.
		asm.Mov.Reg(asm.R1, asm.R6).WithSymbol("fresh"),
		asm.LoadMapPtr(asm.R2, m.stacks.FD()),
		asm.Mov.Imm(asm.R3, bpfFFastStackCmp),
		asm.FnGetStackid.Call(),
		asm.StoreMem(asm.RFP, slotVal+8, asm.R0, asm.DWord),
		asm.FnKtimeGetNs.Call(),
		asm.StoreMem(asm.RFP, slotVal, asm.R0, asm.DWord),
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.RFP, slotVal+16, asm.R1, asm.DWord),
		tracepoint.LoadField(asm.R1, asm.R6, flags),
		asm.And.Imm(asm.R1, lcbFSpin),
		asm.JNE.Imm(asm.R1, 0, "insert"),
		asm.StoreMem(asm.RFP, slotVal+16, asm.R0, asm.DWord), // asleep from the start
	)
	insert := tracepoint.Update(m.wait, slotKey, slotVal, bpfNoExist)
	insert[0] = insert[0].WithSymbol("insert")
	ins = append(ins, insert...)
	ins = append(ins, asm.JEq.Imm(asm.R0, 0, "exit"))
	ins = append(ins, countLost(m, lostBegin, "lost")...)
	return append(ins, exit()...)
}

// endProgram is lock:contention_end: a traced wait ends, and its time and
// spinning part are added to its stack's counters.
func endProgram(m *maps, pid int, lockAddr tracepoint.Field) asm.Instructions {
	ins := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
	ins = append(ins, ownProcess(pid)...)
	ins = append(ins, waitKeyOf(lockAddr)...)
	ins = append(ins, tracepoint.Lookup(m.wait, slotKey)...)
	ins = append(ins,
		asm.JEq.Imm(asm.R0, 0, "exit"),
		asm.Mov.Reg(asm.R8, asm.R0),
		asm.FnKtimeGetNs.Call(),
		asm.Mov.Reg(asm.R9, asm.R0),
		asm.LoadMem(asm.R1, asm.R8, 0, asm.DWord),  // start
		asm.LoadMem(asm.R2, asm.R8, 16, asm.DWord), // went to sleep, or 0
		asm.JNE.Imm(asm.R2, 0, "slept"),
		asm.Mov.Reg(asm.R2, asm.R9),
		asm.Sub.Reg(asm.R2, asm.R1).WithSymbol("slept"),
		asm.Sub.Reg(asm.R9, asm.R1),
		asm.StoreMem(asm.RFP, slotSpin, asm.R2, asm.DWord),
		asm.LoadMem(asm.R1, asm.R8, 8, asm.DWord), // stack id, negative when not taken
		asm.JSGE.Imm(asm.R1, 0, "stack"),
		asm.Mov.Imm32(asm.R1, -1), // unknownStack
		asm.StoreMem(asm.RFP, slotTid, asm.R1, asm.Word).WithSymbol("stack"),
		asm.LoadMapPtr(asm.R1, m.wait.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, slotKey),
		asm.FnMapDeleteElem.Call(),
	)
	ins = append(ins, tracepoint.Lookup(m.sites, slotTid)...)
	ins = append(ins,
		asm.JNE.Imm(asm.R0, 0, "add"),
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.RFP, slotZero, asm.R1, asm.DWord),
		asm.StoreMem(asm.RFP, slotZero+8, asm.R1, asm.DWord),
		asm.StoreMem(asm.RFP, slotZero+16, asm.R1, asm.DWord),
	)
	ins = append(ins, tracepoint.Update(m.sites, slotTid, slotZero, bpfNoExist)...)
	ins = append(ins, tracepoint.Lookup(m.sites, slotTid)...)
	ins = append(ins,
		asm.JEq.Imm(asm.R0, 0, "lost"),
		asm.Mov.Imm(asm.R1, 1).WithSymbol("add"),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
		asm.Add.Imm(asm.R0, 8),
		asm.StoreXAdd(asm.R0, asm.R9, asm.DWord),
		asm.Add.Imm(asm.R0, 8),
		asm.LoadMem(asm.R1, asm.RFP, slotSpin, asm.DWord),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
		asm.Ja.Label("exit"),
	)
	ins = append(ins, countLost(m, lostSite, "lost")...)
	return append(ins, exit()...)
}
