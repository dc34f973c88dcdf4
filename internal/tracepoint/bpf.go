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
	prog, err := ebpf.NewProgramWithOptions(&ebpf.ProgramSpec{
		Name:         name,
		Type:         typ,
		License:      "GPL",
		Instructions: ins,
	}, ebpf.ProgramOptions{LogSizeStart: 1 << 16})
	if err != nil {
		var ve *ebpf.VerifierError
		if errors.As(err, &ve) {
			return nil, Unavailablef("BPF load refused for %s: %v", what, lastLine(ve))
		}
		return nil, Unavailablef("BPF load refused for %s: %v", what, err)
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

// Programs are a tracer's BPF programs, attached to tracepoints, with the
// kernel's BPF statistics on while they live, so that their run time (the
// tracing's cost) can be read.
type Programs struct {
	progs []*ebpf.Program
	links []link.Link
	stats io.Closer
}

// Load loads a program as Load does and keeps it.
func (p *Programs) Load(what, name string, ins asm.Instructions) (*ebpf.Program, error) {
	prog, err := Load(what, name, ins)
	if err != nil {
		return nil, err
	}
	p.progs = append(p.progs, prog)
	if p.stats == nil {
		// Without the kernel's BPF statistics the run time reads 0.
		if s, err := ebpf.EnableStats(0 /* BPF_STATS_RUN_TIME */); err == nil {
			p.stats = s
		}
	}
	return prog, nil
}

// Attach attaches prog to tracepoint group:event; the error is an
// *Unavailable.
func (p *Programs) Attach(group, event string, prog *ebpf.Program) error {
	l, err := link.Tracepoint(group, event, prog, nil)
	if err != nil {
		return Unavailablef("attaching to tracepoint %s:%s: %v", group, event, err)
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
// the kernel's BPF statistics.
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
