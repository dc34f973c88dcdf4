package ktrace

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/gofio/gofio/internal/tracepoint"
)

// The programs attach as BTF-typed raw tracepoints (tp_btf) where the
// kernel describes its types (BTF, /sys/kernel/btf/vmlinux): a raw
// tracepoint hands the program the event's arguments as they are, where a
// classic one first formats the record tracefs describes, and it guards
// against recursion per program, where a classic one skips any BPF program
// while another runs on the CPU. A block request's completion, in the
// interrupt that ends it, then lands inside one of the programs often
// enough at high rates (on the virtio disk at iodepth 32 and load 15, 2.4%
// of the I/Os lost their device completion that way). Typed by BTF, the
// arguments are read through with plain loads, which the verifier checks
// against the kernel's types and makes safe (a bad pointer reads 0), where
// an untyped raw tracepoint needs a bpf_probe_read_kernel call per
// pointer (a quarter of the programs' run time). Without BTF the classic
// tracepoints serve.

// rawTracepoints finds the six events' arguments and the offsets behind
// them in the kernel's BTF.
func rawTracepoints(spec *btf.Spec) (*tracepoints, error) {
	tp := &tracepoints{submitName: "io_uring_submit_req", kind: tracepoint.BTF}
	l := btfLayout{spec: spec}
	req := l.arg(tp.submitName, "io_kiocb", 0)
	tp.sub = uringFields{req: req,
		ctx:      l.at(req, 8, "io_kiocb", "ctx"),
		opcode:   l.at(req, 1, "io_kiocb", "opcode"),
		userData: l.at(req, 8, "io_kiocb", "cqe", "user_data")}
	ring := l.arg("io_uring_complete", "io_ring_ctx", 0)
	cqe := l.arg("io_uring_complete", "io_uring_cqe", 0)
	// The request is the untyped pointer between the ring and the CQE.
	if l.err == nil && cqe.Off != ring.Off+16 {
		l.err = errors.New("raw tracepoint io_uring_complete: no request between the ring and the CQE")
	}
	tp.cqe = uringFields{ctx: ring, req: ref{Off: ring.Off + 8, Size: 8}, userData: l.at(cqe, 8, "io_uring_cqe", "user_data")}
	bio := l.arg("block_bio_queue", "bio", 0)
	tp.bio = blockFields{dev: l.at(bio, 4, "bio", "bi_bdev", "*", "block_device", "bd_dev"),
		sector: l.at(bio, 8, "bio", "bi_iter", "bi_sector")}
	for _, b := range []struct {
		dst  *blockFields
		name string
	}{{&tp.issue, "block_rq_issue"}, {&tp.done, "block_rq_complete"}, {&tp.requeue, "block_rq_requeue"}} {
		rq := l.arg(b.name, "request", 0)
		// The request's own block device: its partition's, or its disk's.
		*b.dst = blockFields{dev: l.at(rq, 4, "request", "part", "*", "block_device", "bd_dev"),
			sector: l.at(rq, 8, "request", "__sector")}
	}
	if l.err != nil {
		return nil, l.err
	}
	return tp, nil
}

// btfLayout looks arguments and members up in the kernel's BTF; the
// first failure sticks in err.
type btfLayout struct {
	spec *btf.Spec
	err  error
}

// arg is the raw tracepoint event's argument that points to struct
// typ (the nth such, from 0).
func (l *btfLayout) arg(event, typ string, nth int) ref {
	if l.err != nil {
		return ref{}
	}
	var td *btf.Typedef
	if err := l.spec.TypeByName("btf_trace_"+event, &td); err != nil {
		l.err = fmt.Errorf("raw tracepoint %s: %w", event, err)
		return ref{}
	}
	ptr, ok := td.Type.(*btf.Pointer)
	fp, ok2 := ptrTarget(ptr, ok).(*btf.FuncProto)
	if !ok || !ok2 {
		l.err = fmt.Errorf("raw tracepoint %s: not a function prototype", event)
		return ref{}
	}
	// The first parameter is the probe's own data pointer.
	for i, p := range fp.Params[1:] {
		if st, ok := pointee(p.Type).(*btf.Struct); ok && st.Name == typ {
			if nth == 0 {
				return ref{Off: int16(8 * i), Size: 8}
			}
			nth--
		}
	}
	l.err = fmt.Errorf("raw tracepoint %s takes no struct %s", event, typ)
	return ref{}
}

// at is the value of size bytes behind the pointer argument a: path
// names struct, member, member ... ; "*" then a struct name follows a
// pointer member to that struct.
func (l *btfLayout) at(a ref, size int, path ...string) ref {
	if l.err != nil {
		return ref{}
	}
	r := ref{Off: a.Off, Size: size}
	var st *btf.Struct
	if err := l.spec.TypeByName(path[0], &st); err != nil {
		l.err = fmt.Errorf("kernel type struct %s: %w", path[0], err)
		return ref{}
	}
	off := uint32(0)
	for i := 1; i < len(path); i++ {
		if path[i] == "*" {
			r.Hops = append(r.Hops, int32(off))
			off = 0
			if err := l.spec.TypeByName(path[i+1], &st); err != nil {
				l.err = fmt.Errorf("kernel type struct %s: %w", path[i+1], err)
				return ref{}
			}
			i++
			continue
		}
		m, err := member(st, path[i])
		if err != nil {
			l.err = fmt.Errorf("kernel type %s: %w", strings.Join(path[:i+1], "."), err)
			return ref{}
		}
		off += m.Offset.Bytes()
		if next, ok := btf.UnderlyingType(m.Type).(*btf.Struct); ok {
			st = next
		}
	}
	r.Hops = append(r.Hops, int32(off))
	return r
}

// member finds a struct's member by name, refusing a bitfield.
func member(st *btf.Struct, name string) (btf.Member, error) {
	for _, m := range st.Members {
		if m.Name == name {
			if m.BitfieldSize != 0 || m.Offset%8 != 0 {
				return m, errors.New("a bitfield")
			}
			return m, nil
		}
	}
	return btf.Member{}, fmt.Errorf("no member %s", name)
}

func ptrTarget(p *btf.Pointer, ok bool) btf.Type {
	if !ok {
		return nil
	}
	return p.Target
}

// pointee is what a pointer type points to, nil for another type.
func pointee(t btf.Type) btf.Type {
	if p, ok := btf.UnderlyingType(t).(*btf.Pointer); ok {
		return btf.UnderlyingType(p.Target)
	}
	return nil
}
