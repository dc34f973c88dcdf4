package ktrace

import (
	"github.com/cilium/ebpf/asm"

	"github.com/gofio/gofio/internal/kstage"
	"github.com/gofio/gofio/internal/tracepoint"
)

// zero64 stores a u64 zero at dst+off (asm.StoreImm makes no
// doubleword store, which BPF has).
func zero64(dst asm.Register, off int16) asm.Instruction {
	return asm.Instruction{OpCode: asm.StoreImmOp(asm.DWord), Dst: dst, Offset: off}
}

// finish ends a program: every path that leaves early jumps to exit.
func finish(ins asm.Instructions) asm.Instructions {
	return append(ins, asm.Mov.Imm(asm.R0, 0).WithSymbol("exit"), asm.Return())
}

// ring loads the event's ring into R7 and exits unless it is the job's,
// the ring of its first traced submission (counters' ring); before that,
// with unknownOK, the event goes on. Foreign rings' events (other
// processes', other jobs') leave here, before any helper is called.
func (g *gen) ring(ctx ref, unknownOK bool) asm.Instructions {
	ins := field(asm.R7, ctx)
	ins = append(ins, asm.StoreImm(asm.RFP, stKey, 0, asm.Word))
	ins = append(ins, lookup(g.m.counters, stKey, "exit")...)
	ins = append(ins, asm.LoadMem(asm.R1, asm.R0, cntRing, asm.DWord))
	if !unknownOK {
		return append(ins, asm.JNE.Reg(asm.R1, asm.R7, "exit"))
	}
	ok := g.label("ring_ok")
	return append(ins, asm.JEq.Imm(asm.R1, 0, ok), asm.JNE.Reg(asm.R1, asm.R7, "exit"),
		asm.Mov.Reg(asm.R7, asm.R7).WithSymbol(ok))
}

// bucket stores the bucket of the key in src at stBucket (bucketOf).
func (g *gen) bucket(src asm.Register) asm.Instructions {
	return asm.Instructions{
		asm.Mov.Reg(asm.R1, src),
		asm.LoadImm(asm.R2, hashMul-1<<64, asm.DWord), // the same 64 bits, signed
		asm.Mul.Reg(asm.R1, asm.R2),
		asm.RSh.Imm(asm.R1, int32(64-g.bits)),
		asm.StoreMem(asm.RFP, stBucket, asm.R1, asm.Word),
	}
}

// slotOf loads the event's user data and looks its slot's record up: the
// user data at stUD, the record's pointer in R8; other user data exit.
func (g *gen) slotOf(userData ref) asm.Instructions {
	ins := field(asm.R1, userData)
	ins = append(ins, asm.JGE.Imm(asm.R1, g.slots, "exit"), asm.StoreMem(asm.RFP, stUD, asm.R1, asm.Word))
	ins = append(ins, lookup(g.m.records, stUD, "exit")...)
	return append(ins, asm.Mov.Reg(asm.R8, asm.R0))
}

// follow looks up the record that the link in R1 names (user data + 1, 0
// for none), the user data stored at off: its pointer in R0, or a jump to
// miss.
func (g *gen) follow(off int16, miss string) asm.Instructions {
	return append(asm.Instructions{
		asm.JEq.Imm(asm.R1, 0, miss),
		asm.Sub.Imm(asm.R1, 1),
		asm.StoreMem(asm.RFP, off, asm.R1, asm.Word),
	}, lookup(g.m.records, off, miss)...)
}

// inFlight follows the link in R1 as follow does, to a record in flight:
// its pointer in R8, or a jump to miss.
func (g *gen) inFlight(off int16, miss string) asm.Instructions {
	ins := append(g.follow(off, miss), asm.Mov.Reg(asm.R8, asm.R0))
	ins = append(ins, state(asm.R1, asm.R8)...)
	return append(ins, asm.JNE.Imm(asm.R1, stateInFlight, miss))
}

// selfPlus1 loads the user data at stUD plus one (a link's value) into dst.
func selfPlus1(dst asm.Register) asm.Instructions {
	return asm.Instructions{asm.LoadMem(dst, asm.RFP, stUD, asm.Word), asm.Add.Imm(dst, 1)}
}

// unlink takes the record in R8 (user data at stUD) out of its bucket's
// chain, if it is on one: its neighbours link to each other, or the
// bucket to the one before it. A neighbour that does not link back to it
// (a chain a race broke) is left as it is. The record keeps its own links
// until its slot is submitted again, so that a block event walking the
// chain on another CPU meanwhile goes on past it. R0 to R5 change.
func (g *gen) unlink() asm.Instructions {
	done, head, before := g.label("unlinked"), g.label("unlink_head"), g.label("unlink_prev")
	ins := asm.Instructions{asm.LoadMem(asm.R1, asm.R8, recKey, asm.DWord), asm.JEq.Imm(asm.R1, 0, done)}
	ins = append(ins, g.bucket(asm.R1)...)
	// The one queued after it now follows the one before it.
	ins = append(ins,
		asm.LoadMem(asm.R1, asm.R8, recNext, asm.Word),
		asm.JEq.Imm(asm.R1, 0, head))
	ins = append(ins, g.follow(stValue, before)...)
	ins = append(ins, asm.LoadMem(asm.R2, asm.R0, recPrev, asm.Word))
	ins = append(ins, selfPlus1(asm.R3)...)
	ins = append(ins,
		asm.JNE.Reg(asm.R2, asm.R3, before),
		asm.LoadMem(asm.R2, asm.R8, recPrev, asm.Word),
		asm.StoreMem(asm.R0, recPrev, asm.R2, asm.Word),
		asm.Ja.Label(before))
	// The newest of its bucket: the one before it is now.
	ins = append(ins, labeled(head, lookup(g.m.heads, stBucket, before))...)
	ins = append(ins, asm.LoadMem(asm.R2, asm.R0, 0, asm.Word))
	ins = append(ins, selfPlus1(asm.R3)...)
	ins = append(ins,
		asm.JNE.Reg(asm.R2, asm.R3, before),
		asm.LoadMem(asm.R2, asm.R8, recPrev, asm.Word),
		asm.StoreMem(asm.R0, 0, asm.R2, asm.Word))
	// The one before it is now followed by the one after it.
	ins = append(ins, asm.LoadMem(asm.R1, asm.R8, recPrev, asm.Word).WithSymbol(before))
	ins = append(ins, g.follow(stValue, done)...)
	ins = append(ins, asm.LoadMem(asm.R2, asm.R0, recNext, asm.Word))
	ins = append(ins, selfPlus1(asm.R3)...)
	return append(ins,
		asm.JNE.Reg(asm.R2, asm.R3, done),
		asm.LoadMem(asm.R2, asm.R8, recNext, asm.Word),
		asm.StoreMem(asm.R0, recNext, asm.R2, asm.Word),
		asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(done))
}

// submitProg is io_uring_submit_req: a read or write one of the job's
// threads submits starts its slot's record, and names the job's ring. A
// record still in flight there lost its completion (it leaves its
// bucket), one completed and not taken was not reaped.
func (g *gen) submitProg(f uringFields) asm.Instructions {
	ins := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
	ins = append(ins, g.ring(f.ctx, true)...)
	ins = append(ins, g.thread()...)
	ins = append(ins, asm.LoadMem(asm.R7, asm.RFP, stKey, asm.Word))
	ins = append(ins, field(asm.R1, f.opcode)...)
	for _, op := range []int32{opReadv, opWritev, opReadFixed, opWriteFixed, opRead, opWrite} {
		ins = append(ins, asm.JEq.Imm(asm.R1, op, "traced_op"))
	}
	ins = append(ins, asm.Ja.Label("exit"))
	ins = append(ins, labeled("traced_op", g.slotOf(f.userData))...)
	ins = append(ins, g.sampled()...)
	ins = append(ins, g.stamp()...)
	ins = append(ins, asm.Mov.Reg(asm.R9, asm.R0))
	cutoff := append(asm.Instructions{asm.StoreImm(asm.RFP, stKey, 0, asm.Word)}, lookup(g.m.counters, stKey, "exit")...)
	cutoff = append(cutoff, asm.LoadMem(asm.R1, asm.R0, cntCutoff, asm.DWord))
	// Before the cutoff (ramp_time): not traced.
	ins = append(ins, cutoff...)
	ins = append(ins, asm.JLT.Reg(asm.R9, asm.R1, "exit"))
	// The job's ring, stored once: a store every submission would take the
	// counters' line from the CPUs that read it.
	ins = append(ins, field(asm.R2, f.ctx)...)
	ins = append(ins,
		asm.LoadMem(asm.R3, asm.R0, cntRing, asm.DWord),
		asm.JEq.Reg(asm.R3, asm.R2, "ring_known"),
		asm.StoreMem(asm.R0, cntRing, asm.R2, asm.DWord),
		asm.Mov.Reg(asm.R2, asm.R2).WithSymbol("ring_known"))
	ins = append(ins, state(asm.R2, asm.R8)...)
	ins = append(ins,
		asm.JEq.Imm(asm.R2, stateFree, "fresh"),
		asm.JNE.Imm(asm.R2, stateInFlight, "counted"))
	ins = append(ins, g.unlink()...)
	ins = append(ins, cutoff...)
	ins = append(ins, asm.Mov.Imm(asm.R2, stateInFlight))
	unreaped := asm.StoreXAdd(asm.R0, asm.R3, asm.DWord)
	unreaped.Offset = cntUnreaped
	lost := asm.StoreXAdd(asm.R0, asm.R3, asm.DWord)
	lost.Offset = cntLost
	ins = append(ins,
		asm.LoadMem(asm.R3, asm.R8, recSubmit, asm.DWord).WithSymbol("counted"),
		asm.JLT.Reg(asm.R3, asm.R1, "fresh"),
		asm.Mov.Imm(asm.R3, 1),
		asm.JEq.Imm(asm.R2, stateInFlight, "lost"),
		unreaped,
		asm.Ja.Label("fresh"),
		lost.WithSymbol("lost"))
	ins = append(ins, labeled("fresh", field(asm.R1, f.req))...)
	ins = append(ins,
		asm.StoreMem(asm.R8, recReq, asm.R1, asm.Word),
		asm.StoreMem(asm.R8, recSubmit, asm.R9, asm.DWord))
	for _, off := range []int16{recBio, recIssue, recDone, recCQE, recKey} {
		ins = append(ins, zero64(asm.R8, off))
	}
	ins = append(ins, asm.StoreImm(asm.R8, recPrev, 0, asm.Word),
		asm.StoreImm(asm.R8, recNext, 0, asm.Word),
		asm.StoreImm(asm.R8, recState, stateInFlight, asm.Word),
		// The thread's next bio is this request's.
		asm.StoreMem(asm.RFP, stKey, asm.R7, asm.Word))
	ins = append(ins, lookup(g.m.current, stKey, "exit")...)
	ins = append(ins, selfPlus1(asm.R1)...)
	return finish(append(ins, asm.StoreMem(asm.R0, 0, asm.R1, asm.Word)))
}

// sampled leaves a submission out unless it is one of the 1 in g.sample
// drawn (bpf_get_prandom_u32 modulo g.sample is 0; under test, the stamp
// modulo g.sample): one left out names no request as its thread's next
// bio (the thread's index at stKey, in R7), so that none of the block
// events of its bio finds a record, and its slot's record stays free
// (the job's reap took it), so that its completion and reap skip it.
func (g *gen) sampled() asm.Instructions {
	if g.sample <= 1 {
		return nil
	}
	draw := asm.Instructions{asm.FnGetPrandomU32.Call()}
	if g.test {
		draw = asm.Instructions{asm.LoadMem(asm.R0, asm.R6, 0, asm.DWord)}
	}
	keep := g.label("sampled")
	ins := append(draw, asm.Mod.Imm(asm.R0, g.sample), asm.JEq.Imm(asm.R0, 0, keep),
		asm.StoreMem(asm.RFP, stKey, asm.R7, asm.Word))
	ins = append(ins, lookup(g.m.current, stKey, "exit")...)
	return append(ins, asm.StoreImm(asm.R0, 0, 0, asm.Word), asm.Ja.Label("exit"),
		asm.Mov.Reg(asm.R0, asm.R0).WithSymbol(keep))
}

// bioProg is block_bio_queue: the first bio one of the job's threads
// queues on a traced device after submitting a request is the request's:
// it gives the request its key, and the request becomes the newest of the
// key's bucket. A second one marks it split.
func (g *gen) bioProg(f blockFields) asm.Instructions {
	ins := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
	ins = append(ins, g.disk(f.dev)...)
	ins = append(ins, g.thread()...)
	ins = append(ins, lookup(g.m.current, stKey, "exit")...)
	ins = append(ins, asm.LoadMem(asm.R1, asm.R0, 0, asm.Word))
	ins = append(ins, g.inFlight(stUD, "exit")...)
	ins = append(ins,
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
	ins = append(ins, g.bucket(asm.R7)...)
	ins = append(ins, lookup(g.m.heads, stBucket, "exit")...)
	ins = append(ins, asm.Mov.Reg(asm.R9, asm.R0))
	// The bucket's newest so far, if it is one (in flight, last of its
	// chain), is the one before this request.
	ins = append(ins, asm.LoadMem(asm.R1, asm.R9, 0, asm.Word))
	ins = append(ins, g.follow(stValue, "newest")...)
	ins = append(ins, state(asm.R1, asm.R0)...)
	ins = append(ins,
		asm.JNE.Imm(asm.R1, stateInFlight, "newest"),
		asm.LoadMem(asm.R1, asm.R0, recNext, asm.Word),
		asm.JNE.Imm(asm.R1, 0, "newest"))
	ins = append(ins, selfPlus1(asm.R1)...)
	ins = append(ins,
		asm.StoreMem(asm.R0, recNext, asm.R1, asm.Word),
		asm.LoadMem(asm.R1, asm.RFP, stValue, asm.Word),
		asm.Add.Imm(asm.R1, 1),
		asm.StoreMem(asm.R8, recPrev, asm.R1, asm.Word))
	ins = append(ins, labeled("newest", selfPlus1(asm.R1))...)
	return finish(append(ins, asm.StoreMem(asm.R9, 0, asm.R1, asm.Word)))
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
// bucket chain (R9, 0 for none) and stamps it (a requeue takes the issue
// back).
func (g *gen) blockProg(f blockFields, kind int) asm.Instructions {
	ins := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
	ins = append(ins, g.disk(f.dev)...)
	ins = append(ins, g.key(f.sector)...)
	ins = append(ins, g.bucket(asm.R7)...)
	ins = append(ins, lookup(g.m.heads, stBucket, "exit")...)
	ins = append(ins, asm.LoadMem(asm.R1, asm.R0, 0, asm.Word), asm.Mov.Imm(asm.R9, 0))
	for i := 0; i < chainWalk; i++ {
		skip := g.label("skip")
		ins = append(ins, g.inFlight(stKey, "walked")...)
		ins = append(ins,
			asm.LoadMem(asm.R1, asm.R8, recKey, asm.DWord),
			asm.JNE.Reg(asm.R1, asm.R7, skip),
			asm.LoadMem(asm.R1, asm.R8, recIssue, asm.DWord))
		if kind == blockIssue {
			ins = append(ins, asm.JNE.Imm(asm.R1, 0, skip))
		} else {
			ins = append(ins, asm.JEq.Imm(asm.R1, 0, skip),
				asm.LoadMem(asm.R1, asm.R8, recDone, asm.DWord),
				asm.JNE.Imm(asm.R1, 0, skip))
		}
		ins = append(ins, asm.Mov.Reg(asm.R9, asm.R8),
			asm.LoadMem(asm.R1, asm.R8, recPrev, asm.Word).WithSymbol(skip))
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

// completeProg is io_uring_complete on the job's ring: the request's
// record takes its CQE stamp, leaves its bucket, and is joined when every
// stamp came in order, or unjoined with the reason.
func (g *gen) completeProg(f uringFields) asm.Instructions {
	ins := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
	ins = append(ins, g.ring(f.ctx, false)...)
	ins = append(ins, g.slotOf(f.userData)...)
	ins = append(ins, state(asm.R1, asm.R8)...)
	ins = append(ins, asm.JNE.Imm(asm.R1, stateInFlight, "exit"))
	ins = append(ins, field(asm.R1, f.req)...)
	ins = append(ins,
		asm.LoadMem(asm.R2, asm.R8, recReq, asm.Word),
		asm.JNE.Reg32(asm.R1, asm.R2, "exit"))
	ins = append(ins, g.stamp()...)
	ins = append(ins, asm.Mov.Reg(asm.R9, asm.R0), asm.StoreMem(asm.R8, recCQE, asm.R9, asm.DWord))
	ins = append(ins, g.unlink()...)
	unjoined := func(k int) asm.Instruction {
		return asm.StoreImm(asm.R8, recState, int64(stateUnjoined+k), asm.Word)
	}
	return finish(append(ins,
		asm.LoadMem(asm.R1, asm.R8, recState, asm.Word),
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
	event tracepoint.Event
	what  string // what the load error names
	name  string // the program's name (at most 15 bytes)
	ins   asm.Instructions
}

// programs builds the six programs over the record layouts.
func (g *gen) programs(tp *tracepoints) []progSpec {
	ev := func(group, name string) tracepoint.Event {
		return tracepoint.Event{Group: group, Name: name, Kind: tp.kind}
	}
	return []progSpec{
		{ev("io_uring", tp.submitName), "submit_req", "gofio_ksub", g.submitProg(tp.sub)},
		{ev("block", "block_bio_queue"), "bio_queue", "gofio_kbio", g.bioProg(tp.bio)},
		{ev("block", "block_rq_issue"), "rq_issue", "gofio_kissue", g.blockProg(tp.issue, blockIssue)},
		{ev("block", "block_rq_complete"), "rq_complete", "gofio_kdone", g.blockProg(tp.done, blockComplete)},
		{ev("block", "block_rq_requeue"), "rq_requeue", "gofio_krequeue", g.blockProg(tp.requeue, blockRequeue)},
		{ev("io_uring", "io_uring_complete"), "complete", "gofio_kcqe", g.completeProg(tp.cqe)},
	}
}
