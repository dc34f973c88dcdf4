package ktrace

import (
	"encoding/binary"
	"fmt"
)

// Kind is what an Event records.
type Kind uint16

// The kinds of events, one per tracepoint.
const (
	// KindSubmit is io_uring_submit_req: A is the request pointer, B the
	// SQE's user data, Aux the opcode, Tid the submitting task.
	KindSubmit Kind = 1 + iota
	// KindBioQueue is block_bio_queue: A is the sector, B the device
	// (kernel dev_t) << 32 | sectors, Tid the queueing task.
	KindBioQueue
	// KindRqIssue is block_rq_issue: A and B as KindBioQueue.
	KindRqIssue
	// KindRqComplete is block_rq_complete: A and B as KindBioQueue.
	KindRqComplete
	// KindComplete is io_uring_complete: A is the request pointer, B the
	// user data.
	KindComplete
	numKinds
)

var kindNames = [numKinds]string{"", "submit_req", "bio_queue", "rq_issue", "rq_complete", "complete"}

func (k Kind) String() string {
	if k < numKinds && k > 0 {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// EventSize is the size of an event record in the BPF ring buffer.
const EventSize = 32

// Event is one tracepoint hit, as the BPF programs write it (little
// endian): kind u16, aux u16, tid u32, ts u64, a u64, b u64.
type Event struct {
	Kind Kind
	Aux  uint16
	Tid  uint32
	TS   uint64 // bpf_ktime_get_ns
	A, B uint64
}

// Decode reads an event record; false when b is not one.
func Decode(b []byte, e *Event) bool {
	if len(b) < EventSize {
		return false
	}
	e.Kind = Kind(binary.LittleEndian.Uint16(b))
	e.Aux = binary.LittleEndian.Uint16(b[2:])
	e.Tid = binary.LittleEndian.Uint32(b[4:])
	e.TS = binary.LittleEndian.Uint64(b[8:])
	e.A = binary.LittleEndian.Uint64(b[16:])
	e.B = binary.LittleEndian.Uint64(b[24:])
	return e.Kind > 0 && e.Kind < numKinds
}

// Encode writes e as a record (tests, and the inverse of Decode).
func (e *Event) Encode(b []byte) {
	binary.LittleEndian.PutUint16(b, uint16(e.Kind))
	binary.LittleEndian.PutUint16(b[2:], e.Aux)
	binary.LittleEndian.PutUint32(b[4:], e.Tid)
	binary.LittleEndian.PutUint64(b[8:], e.TS)
	binary.LittleEndian.PutUint64(b[16:], e.A)
	binary.LittleEndian.PutUint64(b[24:], e.B)
}

// BlockB packs a block event's device and sector count into Event.B.
func BlockB(dev uint32, sectors uint32) uint64 { return uint64(dev)<<32 | uint64(sectors) }

// Reap is gofio's own record of one I/O: the SQE's user data, the stamp
// its lat starts at (prepared, before submission) and the stamp it ends
// at (its completion, after the harvest), both clock.Nanotime.
type Reap struct {
	UserData   uint64
	Start, End uint64
}

// The io_uring opcodes of reads and writes, whose requests are traced.
const (
	opReadv      = 1
	opWritev     = 2
	opReadFixed  = 4
	opWriteFixed = 5
	opRead       = 22
	opWrite      = 23
)

// tracedOp reports whether an SQE opcode moves data through a bio.
func tracedOp(op uint16) bool {
	switch op {
	case opReadv, opWritev, opReadFixed, opWriteFixed, opRead, opWrite:
		return true
	}
	return false
}
