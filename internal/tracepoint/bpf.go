package tracepoint

import (
	"errors"
	"fmt"
	"io"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
)

// Size is the load size of an n-byte field: 1, 2, 4, else 8 bytes.
func Size(n int) asm.Size {
	switch n {
	case 1:
		return asm.Byte
	case 2:
		return asm.Half
	case 4:
		return asm.Word
	}
	return asm.DWord
}

// LoadField loads field f of the record that src points to into dst.
func LoadField(dst, src asm.Register, f Field) asm.Instruction {
	return asm.LoadMem(dst, src, int16(f.Offset), Size(f.Size))
}

// Load loads a BPF tracepoint program (GPL, so that it may call the
// kernel's GPL helpers). A refusal is an *Unavailable that names what
// (e.g. "submit_req") and gives the verifier's last word.
func Load(what, name string, ins asm.Instructions) (*ebpf.Program, error) {
	return LoadType(ebpf.TracePoint, what, name, ins)
}

// LoadType loads a program of type typ as Load does. Tests load a
// tracepoint program's instructions as a raw tracepoint program (built
// over a test layout), which BPF_PROG_TEST_RUN runs on synthetic records.
func LoadType(typ ebpf.ProgramType, what, name string, ins asm.Instructions) (*ebpf.Program, error) {
	return load(&ebpf.ProgramSpec{Name: name, Type: typ, Instructions: ins}, what)
}

// load loads spec under the GPL; a refusal is an *Unavailable naming what.
func load(spec *ebpf.ProgramSpec, what string) (*ebpf.Program, error) {
	spec.License = "GPL"
	prog, err := ebpf.NewProgramWithOptions(spec, ebpf.ProgramOptions{LogSizeStart: 1 << 16})
	if err != nil {
		return nil, refused(what, err)
	}
	return prog, nil
}

// lastLine is the verifier's cause with its log's last non-empty line.
func lastLine(ve *ebpf.VerifierError) string {
	for i := len(ve.Log) - 1; i >= 0; i-- {
		if ve.Log[i] != "" {
			return fmt.Sprintf("%v: %s", ve.Cause, ve.Log[i])
		}
	}
	return ve.Cause.Error()
}

// Lookup looks the key on the stack at off up in m, leaving the value's
// pointer (or 0) in R0.
func Lookup(m *ebpf.Map, off int16) asm.Instructions {
	return asm.Instructions{
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, int32(off)),
		asm.LoadMapPtr(asm.R1, m.FD()),
		asm.FnMapLookupElem.Call(),
	}
}

// Update writes the key and value on the stack at keyOff and valOff into
// m with flags (BPF_ANY 0, BPF_NOEXIST 1), leaving the error in R0.
func Update(m *ebpf.Map, keyOff, valOff int16, flags int32) asm.Instructions {
	return asm.Instructions{
		asm.LoadMapPtr(asm.R1, m.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, int32(keyOff)),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, int32(valOff)),
		asm.Mov.Imm(asm.R4, flags),
		asm.FnMapUpdateElem.Call(),
	}
}

// Kind is how a program attaches to its event.
type Kind int

const (
	// Classic is a classic tracepoint: the program reads the record that
	// the event's tracefs format file describes, which perf formats
	// first, and the kernel skips it whenever any BPF program already
	// runs on the CPU.
	Classic Kind = iota
	// BTF is a BTF-typed raw tracepoint (tp_btf): the program reads the
	// event's arguments themselves, and what they point to with plain
	// loads the verifier checks against the kernel's BTF (no helper call,
	// no formatting), and the kernel skips it only when it runs already
	// on the CPU.
	BTF
)

// Event is a tracepoint and how its program attaches to it.
type Event struct {
	Group, Name string
	Kind        Kind
}

func (e Event) String() string { return e.Group + ":" + e.Name }

// LoadEvent loads a program for event e as Load does: a tracepoint
// program for a classic one, a tracing program for a BTF one.
func LoadEvent(e Event, what, name string, ins asm.Instructions) (*ebpf.Program, error) {
	if e.Kind == Classic {
		return Load(what, name, ins)
	}
	return load(&ebpf.ProgramSpec{Name: name, Type: ebpf.Tracing, AttachType: ebpf.AttachTraceRawTp,
		AttachTo: e.Name, Instructions: ins}, what)
}

// refused is the *Unavailable of a program the kernel refused.
func refused(what string, err error) error {
	var ve *ebpf.VerifierError
	if errors.As(err, &ve) {
		return Unavailablef("BPF load refused for %s: %v", what, lastLine(ve))
	}
	return Unavailablef("BPF load refused for %s: %v", what, err)
}

// Programs are a tracer's BPF programs, attached to tracepoints.
type Programs struct {
	// Stats turns the kernel's BPF run-time statistics on while the
	// programs live, so that RunStats reads their run time (the
	// tracing's cost). The statistics add two clock reads to every run of
	// every BPF program on the machine, so they are on only when asked
	// for (--kernel-trace-cost).
	Stats bool
	progs []*ebpf.Program
	links []link.Link
	stats io.Closer
}

// Load loads a program for event e as LoadEvent does and keeps it.
func (p *Programs) Load(e Event, what, name string, ins asm.Instructions) (*ebpf.Program, error) {
	prog, err := LoadEvent(e, what, name, ins)
	if err != nil {
		return nil, err
	}
	p.progs = append(p.progs, prog)
	if p.Stats && p.stats == nil {
		// Without the kernel's BPF statistics the run time reads 0.
		if s, err := ebpf.EnableStats(0 /* BPF_STATS_RUN_TIME */); err == nil {
			p.stats = s
		}
	}
	return prog, nil
}

// Attach attaches prog to event e; the error is an *Unavailable.
func (p *Programs) Attach(e Event, prog *ebpf.Program) error {
	var l link.Link
	var err error
	if e.Kind == Classic {
		l, err = link.Tracepoint(e.Group, e.Name, prog, nil)
	} else {
		l, err = link.AttachTracing(link.TracingOptions{Program: prog, AttachType: ebpf.AttachTraceRawTp})
	}
	if err != nil {
		return Unavailablef("attaching to tracepoint %s: %v", e, err)
	}
	p.links = append(p.links, l)
	return nil
}

// Detach detaches every program: tracing stops, the maps stay readable.
func (p *Programs) Detach() {
	for _, l := range p.links {
		l.Close()
	}
	p.links = nil
}

// RunStats returns the programs' run time and run count so far, 0 without
// the kernel's BPF statistics (Stats).
func (p *Programs) RunStats() (ns, runs uint64) {
	if p.stats == nil {
		return 0, 0
	}
	for _, prog := range p.progs {
		if s, err := prog.Stats(); err == nil {
			ns += uint64(s.Runtime)
			runs += s.RunCount
		}
	}
	return ns, runs
}

// Misses returns how many times the kernel skipped one of the programs
// because a BPF program already ran on the CPU (its events are lost).
func (p *Programs) Misses() (n uint64) {
	for _, prog := range p.progs {
		if s, err := prog.Stats(); err == nil {
			n += s.RecursionMisses
		}
	}
	return n
}

// Close detaches and unloads the programs.
func (p *Programs) Close() {
	p.Detach()
	for _, prog := range p.progs {
		prog.Close()
	}
	p.progs = nil
	if p.stats != nil {
		p.stats.Close()
		p.stats = nil
	}
}
