package uring

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// cLayout prints sizeof and offsetof of the uapi structs, compiled against
// the system's liburing/io_uring.h.
const cLayout = `#include <stdio.h>
#include <stddef.h>
#include <linux/time_types.h>
#include <liburing/io_uring.h>
#define S(t) printf("size %s %zu\n", #t, sizeof(struct t))
#define O(t, f) printf("off %s.%s %zu\n", #t, #f, offsetof(struct t, f))
int main(void) {
	S(io_uring_params); S(io_sqring_offsets); S(io_cqring_offsets);
	S(io_uring_sqe); S(io_uring_cqe); S(io_uring_probe); S(io_uring_probe_op);
	O(io_uring_params, sq_entries); O(io_uring_params, cq_entries); O(io_uring_params, flags);
	O(io_uring_params, sq_thread_cpu); O(io_uring_params, sq_thread_idle); O(io_uring_params, features);
	O(io_uring_params, wq_fd); O(io_uring_params, resv); O(io_uring_params, sq_off); O(io_uring_params, cq_off);
	O(io_sqring_offsets, head); O(io_sqring_offsets, tail); O(io_sqring_offsets, ring_mask);
	O(io_sqring_offsets, ring_entries); O(io_sqring_offsets, flags); O(io_sqring_offsets, dropped);
	O(io_sqring_offsets, array);
	O(io_cqring_offsets, head); O(io_cqring_offsets, tail); O(io_cqring_offsets, ring_mask);
	O(io_cqring_offsets, ring_entries); O(io_cqring_offsets, overflow); O(io_cqring_offsets, cqes);
	O(io_cqring_offsets, flags);
	O(io_uring_sqe, opcode); O(io_uring_sqe, flags); O(io_uring_sqe, ioprio); O(io_uring_sqe, fd);
	O(io_uring_sqe, off); O(io_uring_sqe, addr); O(io_uring_sqe, len); O(io_uring_sqe, rw_flags);
	O(io_uring_sqe, user_data); O(io_uring_sqe, buf_index); O(io_uring_sqe, personality);
	O(io_uring_sqe, splice_fd_in); O(io_uring_sqe, addr3);
	O(io_uring_cqe, user_data); O(io_uring_cqe, res); O(io_uring_cqe, flags);
	O(io_uring_probe, last_op); O(io_uring_probe, ops_len); O(io_uring_probe, ops);
	return 0;
}
`

// goLayout is the Go side of cLayout, keyed the same way.
func goLayout() map[string]uintptr {
	var p Params
	var so SQRingOffsets
	var co CQRingOffsets
	var s SubmissionQueueEntry
	var c CompletionQueueEvent
	var pr Probe
	return map[string]uintptr{
		"size io_uring_params":   unsafe.Sizeof(p),
		"size io_sqring_offsets": unsafe.Sizeof(so),
		"size io_cqring_offsets": unsafe.Sizeof(co),
		"size io_uring_sqe":      unsafe.Sizeof(s),
		"size io_uring_cqe":      unsafe.Sizeof(c),
		"size io_uring_probe":    unsafe.Offsetof(pr.Ops), // flexible array: header only
		"size io_uring_probe_op": unsafe.Sizeof(ProbeOp{}),

		"off io_uring_params.sq_entries":     unsafe.Offsetof(p.SQEntries),
		"off io_uring_params.cq_entries":     unsafe.Offsetof(p.CQEntries),
		"off io_uring_params.flags":          unsafe.Offsetof(p.Flags),
		"off io_uring_params.sq_thread_cpu":  unsafe.Offsetof(p.SQThreadCPU),
		"off io_uring_params.sq_thread_idle": unsafe.Offsetof(p.SQThreadIdle),
		"off io_uring_params.features":       unsafe.Offsetof(p.Features),
		"off io_uring_params.wq_fd":          unsafe.Offsetof(p.WQFd),
		"off io_uring_params.resv":           unsafe.Offsetof(p.Resv),
		"off io_uring_params.sq_off":         unsafe.Offsetof(p.SQOff),
		"off io_uring_params.cq_off":         unsafe.Offsetof(p.CQOff),

		"off io_sqring_offsets.head":         unsafe.Offsetof(so.Head),
		"off io_sqring_offsets.tail":         unsafe.Offsetof(so.Tail),
		"off io_sqring_offsets.ring_mask":    unsafe.Offsetof(so.RingMask),
		"off io_sqring_offsets.ring_entries": unsafe.Offsetof(so.RingEntries),
		"off io_sqring_offsets.flags":        unsafe.Offsetof(so.Flags),
		"off io_sqring_offsets.dropped":      unsafe.Offsetof(so.Dropped),
		"off io_sqring_offsets.array":        unsafe.Offsetof(so.Array),

		"off io_cqring_offsets.head":         unsafe.Offsetof(co.Head),
		"off io_cqring_offsets.tail":         unsafe.Offsetof(co.Tail),
		"off io_cqring_offsets.ring_mask":    unsafe.Offsetof(co.RingMask),
		"off io_cqring_offsets.ring_entries": unsafe.Offsetof(co.RingEntries),
		"off io_cqring_offsets.overflow":     unsafe.Offsetof(co.Overflow),
		"off io_cqring_offsets.cqes":         unsafe.Offsetof(co.CQEs),
		"off io_cqring_offsets.flags":        unsafe.Offsetof(co.Flags),

		"off io_uring_sqe.opcode":       unsafe.Offsetof(s.OpCode),
		"off io_uring_sqe.flags":        unsafe.Offsetof(s.Flags),
		"off io_uring_sqe.ioprio":       unsafe.Offsetof(s.IoPrio),
		"off io_uring_sqe.fd":           unsafe.Offsetof(s.Fd),
		"off io_uring_sqe.off":          unsafe.Offsetof(s.Off),
		"off io_uring_sqe.addr":         unsafe.Offsetof(s.Addr),
		"off io_uring_sqe.len":          unsafe.Offsetof(s.Len),
		"off io_uring_sqe.rw_flags":     unsafe.Offsetof(s.OpcodeFlags),
		"off io_uring_sqe.user_data":    unsafe.Offsetof(s.UserData),
		"off io_uring_sqe.buf_index":    unsafe.Offsetof(s.BufIG),
		"off io_uring_sqe.personality":  unsafe.Offsetof(s.Personality),
		"off io_uring_sqe.splice_fd_in": unsafe.Offsetof(s.SpliceFdIn),
		"off io_uring_sqe.addr3":        unsafe.Offsetof(s.Addr3),

		"off io_uring_cqe.user_data": unsafe.Offsetof(c.UserData),
		"off io_uring_cqe.res":       unsafe.Offsetof(c.Res),
		"off io_uring_cqe.flags":     unsafe.Offsetof(c.Flags),

		"off io_uring_probe.last_op": unsafe.Offsetof(pr.LastOp),
		"off io_uring_probe.ops_len": unsafe.Offsetof(pr.OpsLen),
		"off io_uring_probe.ops":     unsafe.Offsetof(pr.Ops),
	}
}

// TestLayoutMatchesC compiles a C program against the uapi header and
// compares every size and offset with the Go mirror structs.
func TestLayoutMatchesC(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not installed: cannot compare with the C layout")
	}
	if _, err := os.Stat("/usr/include/liburing/io_uring.h"); err != nil {
		t.Skip("liburing-dev not installed (/usr/include/liburing/io_uring.h missing)")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "layout.c")
	bin := filepath.Join(dir, "layout")
	if err := os.WriteFile(src, []byte(cLayout), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(gcc, "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := goLayout()
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		key := f[0] + " " + f[1]
		cv, _ := strconv.ParseUint(f[2], 10, 64)
		gv, ok := want[key]
		if !ok {
			t.Errorf("%s: no Go counterpart", key)
			continue
		}
		seen++
		if uintptr(cv) != gv {
			t.Errorf("%s: C %d, Go %d", key, cv, gv)
		}
	}
	if seen != len(want) {
		t.Errorf("compared %d of %d entries", seen, len(want))
	}
}

// TestGeteventsArgSize checks the EXT_ARG block is the 24 bytes the kernel
// insists on.
func TestGeteventsArgSize(t *testing.T) {
	if got := unsafe.Sizeof(geteventsArg{}); got != 24 {
		t.Fatalf("geteventsArg is %d bytes, want 24", got)
	}
}
