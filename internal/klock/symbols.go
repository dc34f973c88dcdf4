package klock

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Symbols are the kernel's text symbols, from /proc/kallsyms, sorted by
// address.
type Symbols struct {
	syms []symbol
}

type symbol struct {
	addr   uint64
	name   string
	module string // "" for the kernel itself
}

// ErrHiddenAddresses is ParseKallsyms' error when every address reads 0:
// kernel.kptr_restrict hides them from this process.
var ErrHiddenAddresses = errors.New("/proc/kallsyms shows no addresses (kernel.kptr_restrict)")

// ParseKallsyms reads /proc/kallsyms' text symbols ("ADDR t NAME
// [MODULE]" lines with type t or T).
func ParseKallsyms(r io.Reader) (*Symbols, error) {
	s := &Symbols{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	nonzero := false
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || (f[1] != "t" && f[1] != "T") {
			continue
		}
		addr, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil {
			return nil, fmt.Errorf("kallsyms line %q: %w", sc.Text(), err)
		}
		sym := symbol{addr: addr, name: f[2]}
		if len(f) > 3 {
			sym.module = strings.Trim(f[3], "[]")
		}
		nonzero = nonzero || addr != 0
		s.syms = append(s.syms, sym)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(s.syms) == 0 {
		return nil, errors.New("/proc/kallsyms has no text symbols")
	}
	if !nonzero {
		return nil, ErrHiddenAddresses
	}
	slices.SortStableFunc(s.syms, func(a, b symbol) int { return cmp.Compare(a.addr, b.addr) })
	return s, nil
}

// Lookup returns the function holding address pc (the symbol at or below
// it) and its module, "" when pc lies below every symbol.
func (s *Symbols) Lookup(pc uint64) (name, module string) {
	i, found := slices.BinarySearchFunc(s.syms, pc, func(e symbol, t uint64) int { return cmp.Compare(e.addr, t) })
	if !found {
		if i == 0 {
			return "", ""
		}
		i--
	}
	return s.syms[i].name, s.syms[i].module
}

// baseName strips a compiler clone's suffix: "io_wq_enqueue.cold" and
// "__mutex_lock.constprop.0" are io_wq_enqueue and __mutex_lock.
func baseName(name string) string {
	if i := strings.IndexByte(name, '.'); i > 0 {
		return name[:i]
	}
	return name
}

// lockPrefixes are the names of the kernel's lock primitives and slow
// paths (spinlocks, rwlocks, mutexes, rwsems, percpu rwsems, rt locks),
// and of the scheduler's run-queue lock wrappers: a contention's stack
// starts inside them, and its site is the first function that is not one.
var lockPrefixes = []string{
	"queued_spin_lock_slowpath", "native_queued_spin_lock_slowpath", "__pv_queued_spin_lock_slowpath",
	"pv_queued_spin_lock_slowpath", "queued_read_lock_slowpath", "queued_write_lock_slowpath",
	"_raw_spin_", "_raw_read_", "_raw_write_", "do_raw_spin_", "do_raw_read_", "do_raw_write_",
	"raw_spin_rq_lock", "_raw_spin_rq_lock",
	"mutex_lock", "__mutex_lock", "mutex_spin_on_owner", "mutex_optimistic_spin", "osq_lock",
	"rwsem_down_", "rwsem_optimistic_spin", "rwsem_spin_on_owner", "down_read", "down_write", "__down_",
	"percpu_down_", "__percpu_down_", "percpu_rwsem_wait",
	"rt_mutex_", "__rt_mutex_", "rt_spin_lock", "rtlock_", "rt_read_lock", "rt_write_lock", "rwbase_",
	"ww_mutex_lock", "__ww_mutex_lock",
}

// lockSuffixes end the names of the kernel's helpers that only take a
// lock for their caller (__task_rq_lock, folio_lruvec_lock_irqsave,
// lock_sock_nested): the caller is the site.
var lockSuffixes = []string{"_lock", "_lock_irq", "_lock_irqsave", "_lock_bh", "_lock_nested"}

// LockPrimitive reports whether function name is a lock primitive, a
// lock's slow path or a helper that takes a lock for its caller, which a
// site is never.
func LockPrimitive(name string) bool {
	name = baseName(name)
	switch name {
	case "down", "down_interruptible", "down_killable", "down_timeout", "double_rq_lock", "double_lock_balance",
		"_double_lock_balance":
		return true
	}
	for _, p := range lockPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	for _, s := range lockSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return strings.HasPrefix(name, "lock_")
}

// tracerPrefixes name the kernel's functions that run a tracepoint's BPF
// program, and the program itself: a stack taken in the program may start
// with them, under the lock primitive that fired the tracepoint.
var tracerPrefixes = []string{"bpf_prog_", "bpf_trace_run", "__bpf_trace_", "__traceiter_", "trace_call_bpf",
	"perf_trace_", "__perf_trace_"}

// tracerFrame reports whether function name (in module) runs the tracer's
// program or is the program.
func tracerFrame(name, module string) bool {
	if module == "bpf" {
		return true
	}
	for _, p := range tracerPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// SiteOf returns the site of a contention's kernel stack (innermost frame
// first): its first function that is neither the tracer's (tracerFrame)
// nor a lock primitive, with its module. An empty or unresolvable stack is
// UnknownSite.
func (s *Symbols) SiteOf(stack []uint64) (name, module string) {
	last := ""
	for _, pc := range stack {
		if pc == 0 {
			break
		}
		fn, mod := s.Lookup(pc)
		if fn == "" || tracerFrame(fn, mod) {
			continue
		}
		if !LockPrimitive(fn) {
			return baseName(fn), mod
		}
		last = baseName(fn)
	}
	if last != "" {
		// Every frame taken was a lock primitive: name the outermost.
		return last, ""
	}
	return UnknownSite, ""
}

// ioWQPrefixes name io-wq's functions (io_uring/io-wq.c), and those
// io_uring runs on its workers (io_wq_submit_work, io_wq_free_work).
var ioWQPrefixes = []string{"io_wq", "io_worker", "io_wqe", "io_acct_", "create_io_worker", "create_worker",
	"io_queue_worker", "io_init_new_worker", "io_task_worker"}

// blockPrefixes name the block layer's and block drivers' functions.
var blockPrefixes = []string{"blk_", "__blk_", "bio_", "__bio_", "submit_bio", "bdev_", "blkdev_", "elv_", "__elv_",
	"dd_", "bfq_", "kyber_", "sbitmap_", "__sbitmap_", "loop_", "lo_", "virtblk_", "virtio_queue_rq",
	"virtio_commit_rqs", "nvme_", "scsi_", "ublk_", "dm_", "md_"}

// blockModules are modules whose functions are block drivers.
var blockModules = []string{"loop", "virtio_blk", "nvme", "nvme_core", "null_blk", "ublk_drv", "scsi_mod", "sd_mod", "dm_mod"}

// Classify returns the subsystem of site function name in module.
func Classify(name, module string) Subsystem {
	has := func(prefixes []string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		return false
	}
	switch {
	case has(ioWQPrefixes):
		return SubIOWQ
	case (strings.HasPrefix(name, "io_") || strings.HasPrefix(name, "__io_")) && !strings.HasPrefix(name, "io_schedule"),
		strings.Contains(name, "io_uring"):
		return SubIOUring
	case has(blockPrefixes) || slices.Contains(blockModules, module):
		return SubBlock
	}
	return SubOther
}
