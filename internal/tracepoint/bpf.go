package tracepoint

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
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
