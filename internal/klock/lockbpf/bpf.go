package lockbpf

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/gofio/gofio/internal/tracepoint"
)

// stackDepth is how many kernel frames a contention's stack keeps: the
// lock primitives and lock-taking helpers take at most five (slow path,
// _raw_spin_lock, raw_spin_rq_lock_nested, __task_rq_lock), so six reach
// the site; a short stack is cheaper to take (the kernel walks no further)
// and makes fewer distinct stacks.
const stackDepth = 6

// siteEntries is how many distinct stacks the sites' table holds, far
// more than the hundred or so a job's threads contend on. The stack
// itself is the table's key (a hash table with chains, unlike the
// kernel's stack-trace map, whose colliding stacks would be lost); the
// table grows as it fills.
const siteEntries = 8192

// waitEntries is how many contentions may be under way at once: allocated
// when the job starts (4096 entries of 80 bytes), as they come and go
// with every contention.
const waitEntries = 4096

// bpfFNoPrealloc is BPF_F_NO_PREALLOC: a hash table that allocates its
// entries as they are added.
const bpfFNoPrealloc = 1

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
	wait  *ebpf.Map // waitKey -> waitVal: contentions begun, not yet ended
	sites *ebpf.Map // stack -> siteVal
	lost  *ebpf.Map // array[numLost] u64
}

// stack is a contention's kernel stack, innermost frame first, zero past
// its end (all zero when the kernel could not take it).
type stack [stackDepth]uint64

// waitKey is a waiting task's key: the lock and the task (16 bytes).
type waitKey struct {
	Lock uint64
	Tid  uint32
	_    uint32
}

// waitVal is when a task began to wait, when it went to sleep (0 while it
// spins) and on which stack.
type waitVal struct {
	Start   uint64
	SleptAt uint64
	Stack   stack
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
		{&m.wait, ebpf.MapSpec{Name: "gofio_lwait", Type: ebpf.Hash, KeySize: uint32(unsafe.Sizeof(waitKey{})),
			ValueSize: uint32(unsafe.Sizeof(waitVal{})), MaxEntries: waitEntries}},
		{&m.sites, ebpf.MapSpec{Name: "gofio_lsite", Type: ebpf.Hash, KeySize: uint32(unsafe.Sizeof(stack{})),
			ValueSize: uint32(unsafe.Sizeof(siteVal{})), MaxEntries: siteEntries, Flags: bpfFNoPrealloc}},
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
	for _, x := range []*ebpf.Map{m.wait, m.sites, m.lost} {
		if x != nil {
			x.Close()
		}
	}
}

// Stack slots (offsets from the frame pointer) of the programs.
const (
	slotComm  = -32  // [16]byte comm
	slotKey   = -48  // waitKey
	slotVal   = -128 // waitVal (80 bytes)
	slotZero  = -152 // a zero siteVal
	slotLostK = -156 // u32 lost index
)

// The offsets of waitVal's fields.
const (
	valStart   = 0
	valSleptAt = 8
	valStack   = 16
)

// Registers: R6 holds the tracepoint record, R7 the current pid_tgid; R8
// and R9 are the end program's wait entry and time.

// countLost adds one to lost counter i, then exits.
func countLost(m *maps, i int, label string) asm.Instructions {
	return countLostThen(m, i, label, "exit")
}

// countLostThen adds one to lost counter i, then jumps to next.
func countLostThen(m *maps, i int, label, next string) asm.Instructions {
	return append(asm.Instructions{asm.StoreImm(asm.RFP, slotLostK, int64(i), asm.Word).WithSymbol(label)},
		append(tracepoint.Lookup(m.lost, slotLostK),
			asm.JEq.Imm(asm.R0, 0, next),
			asm.Mov.Imm(asm.R1, 1),
			asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
			asm.Ja.Label(next),
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

// threads are the tasks a tracer follows in its process, as its begin
// program tells them: by thread id, and by name (comm, 16 bytes, as two
// little-endian words) the kernel threads that work for those threads.
type threads struct {
	tids  []int
	comms [][2]uint64
}

// threadsOf returns the threads tids and their io-wq workers and SQPOLL
// threads (iou-wrk-TID, iou-sqp-TID).
func threadsOf(tids []int) threads {
	th := threads{tids: tids}
	for _, tid := range tids {
		for _, prefix := range commPrefixes {
			var b [16]byte
			copy(b[:15], prefix+strconv.Itoa(tid))
			th.comms = append(th.comms, [2]uint64{binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])})
		}
	}
	return th
}

// commPrefixes name the kernel threads that work for a thread: its io-wq
// workers and its SQPOLL thread, followed by its id.
var commPrefixes = []string{"iou-wrk-", "iou-sqp-"}

// traced jumps to "traced" for one of th's tasks (pid_tgid in R7) and
// exits for any other: the ids are compared first, then the task's name,
// constants all (no map is looked up).
func traced(th threads) asm.Instructions {
	ins := asm.Instructions{asm.Mov.Reg32(asm.R1, asm.R7)}
	for _, tid := range th.tids {
		ins = append(ins, asm.JEq.Imm32(asm.R1, int32(tid), "traced"))
	}
	ins = append(ins,
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, slotComm),
		asm.Mov.Imm(asm.R2, 16),
		asm.FnGetCurrentComm.Call(),
		asm.LoadMem(asm.R1, asm.RFP, slotComm, asm.DWord),
		asm.LoadMem(asm.R2, asm.RFP, slotComm+8, asm.DWord))
	for i, c := range th.comms {
		next := "comm_" + strconv.Itoa(i)
		ins = append(ins,
			asm.LoadImm(asm.R3, int64(c[0]), asm.DWord),
			asm.JNE.Reg(asm.R1, asm.R3, next),
			asm.LoadImm(asm.R3, int64(c[1]), asm.DWord),
			asm.JEq.Reg(asm.R2, asm.R3, "traced"),
			asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(next))
	}
	return append(ins, asm.Ja.Label("exit"))
}

// beginProgram is lock:contention_begin: for a traced thread, the first
// begin of a wait on a lock records the time and the stack (its first
// skip frames, the tracer's own, left out); a later one for the same lock
// without LCB_F_SPIN (a mutex's spinning turned to sleep) records when the
// task went to sleep.
func beginProgram(m *maps, pid int, th threads, l layout) asm.Instructions {
	ins := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
	ins = append(ins, ownProcess(pid)...)
	ins = append(ins, traced(th)...)
	lockAddr, flags := l.lockAddr, l.flags
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
		asm.LoadMem(asm.R1, asm.R8, valSleptAt, asm.DWord),
		asm.JNE.Imm(asm.R1, 0, "exit"),
		asm.FnKtimeGetNs.Call(),
		asm.StoreMem(asm.R8, valSleptAt, asm.R0, asm.DWord),
		asm.Ja.Label("exit"),
		// A new wait: its stack first, so that taking the stack is not
		// counted as waiting (bpf_get_stack zeroes what it does not
		// fill, all of it when it fails).
		asm.Mov.Reg(asm.R1, asm.R6).WithSymbol("fresh"),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, slotVal+valStack),
		asm.Mov.Imm(asm.R3, int32(unsafe.Sizeof(stack{}))),
		asm.Mov.Imm(asm.R4, int32(l.skip)), // BPF_F_SKIP_FIELD_MASK
		asm.FnGetStack.Call(),
		asm.FnKtimeGetNs.Call(),
		asm.StoreMem(asm.RFP, slotVal+valStart, asm.R0, asm.DWord),
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.RFP, slotVal+valSleptAt, asm.R1, asm.DWord),
		tracepoint.LoadField(asm.R1, asm.R6, flags),
		asm.And.Imm(asm.R1, lcbFSpin),
		asm.JNE.Imm(asm.R1, 0, "insert"),
		asm.StoreMem(asm.RFP, slotVal+valSleptAt, asm.R0, asm.DWord), // asleep from the start
	)
	insert := tracepoint.Update(m.wait, slotKey, slotVal, bpfNoExist)
	insert[0] = insert[0].WithSymbol("insert")
	ins = append(ins, insert...)
	ins = append(ins, asm.JEq.Imm(asm.R0, 0, "exit"))
	ins = append(ins, countLost(m, lostBegin, "lost")...)
	return append(ins, exit()...)
}

// siteOf leaves in R0 the counters of the stack at R8+valStack (the wait
// entry's), made zero when there are none yet; 0 when they cannot be.
func siteOf(m *maps) asm.Instructions {
	lookup := asm.Instructions{
		asm.Mov.Reg(asm.R2, asm.R8),
		asm.Add.Imm(asm.R2, valStack),
		asm.LoadMapPtr(asm.R1, m.sites.FD()),
		asm.FnMapLookupElem.Call(),
	}
	ins := append(asm.Instructions{}, lookup...)
	ins = append(ins,
		asm.JNE.Imm(asm.R0, 0, "site"),
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.RFP, slotZero, asm.R1, asm.DWord),
		asm.StoreMem(asm.RFP, slotZero+8, asm.R1, asm.DWord),
		asm.StoreMem(asm.RFP, slotZero+16, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, m.sites.FD()),
		asm.Mov.Reg(asm.R2, asm.R8),
		asm.Add.Imm(asm.R2, valStack),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, slotZero),
		asm.Mov.Imm(asm.R4, bpfNoExist),
		asm.FnMapUpdateElem.Call(),
	)
	ins = append(ins, lookup...)
	return append(ins, asm.Mov.Imm(asm.R1, 0).WithSymbol("site"))
}

// endProgram is lock:contention_end: a traced wait ends, and its time and
// spinning part are added to its stack's counters.
func endProgram(m *maps, pid int, l layout) asm.Instructions {
	ins := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
	ins = append(ins, ownProcess(pid)...)
	ins = append(ins, waitKeyOf(l.endAddr)...)
	ins = append(ins, tracepoint.Lookup(m.wait, slotKey)...)
	ins = append(ins,
		asm.JEq.Imm(asm.R0, 0, "exit"),
		asm.Mov.Reg(asm.R8, asm.R0),
		asm.FnKtimeGetNs.Call(),
		asm.Mov.Reg(asm.R9, asm.R0),
		asm.LoadMem(asm.R1, asm.R8, valStart, asm.DWord),
		asm.LoadMem(asm.R2, asm.R8, valSleptAt, asm.DWord), // went to sleep, or 0
		asm.JNE.Imm(asm.R2, 0, "slept"),
		asm.Mov.Reg(asm.R2, asm.R9),
		asm.Sub.Reg(asm.R2, asm.R1).WithSymbol("slept"),
		asm.Sub.Reg(asm.R9, asm.R1),
		// The spinning part goes where the entry's start was: R9 holds
		// the wait across the calls that follow.
		asm.StoreMem(asm.R8, valStart, asm.R2, asm.DWord),
	)
	ins = append(ins, siteOf(m)...)
	ins = append(ins,
		asm.JEq.Imm(asm.R0, 0, "lost_site"),
		asm.Mov.Imm(asm.R1, 1),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
		asm.Add.Imm(asm.R0, 8),
		asm.StoreXAdd(asm.R0, asm.R9, asm.DWord),
		asm.Add.Imm(asm.R0, 8),
		asm.LoadMem(asm.R1, asm.R8, valStart, asm.DWord),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
		asm.Ja.Label("done"),
	)
	ins = append(ins, countLostThen(m, lostSite, "lost_site", "done")...)
	ins = append(ins,
		asm.LoadMapPtr(asm.R1, m.wait.FD()).WithSymbol("done"),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, slotKey),
		asm.FnMapDeleteElem.Call(),
	)
	return append(ins, exit()...)
}
