package klock

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// kallsymsText is a slice of a kernel's /proc/kallsyms, out of order as
// modules' symbols are, with data symbols that must be skipped.
const kallsymsText = `ffffffff81000000 T _stext
ffffffff81100000 T native_queued_spin_lock_slowpath
ffffffff81100400 t __pv_queued_spin_lock_slowpath
ffffffff81101000 T _raw_spin_lock_irqsave
ffffffff81101100 T _raw_spin_lock
ffffffff81102000 t __mutex_lock.constprop.0
ffffffff81102800 T mutex_lock
ffffffff81103000 T rwsem_down_write_slowpath
ffffffff81103800 T down_write_killable
ffffffff81104000 t __task_rq_lock
ffffffff81104100 T try_to_wake_up
ffffffff81105000 T io_wq_enqueue
ffffffff81105800 t io_wq_enqueue.cold
ffffffff81106000 t io_worker_handle_work
ffffffff81107000 T __io_req_task_work_add
ffffffff81108000 T io_cqring_wait
ffffffff81109000 T blk_mq_dispatch_list
ffffffff8110a000 T vm_mmap_pgoff
ffffffff8110b000 T io_schedule
ffffffff8110c000 t lock_timer_base
ffffffff8110c100 T mod_timer
ffffffff8110d000 T bpf_trace_run2
ffffffff8110d100 t __bpf_trace_contention_begin
ffffffffc0004000 t bpf_prog_6deef7357e7b4530_gofio_lbegin	[bpf]
ffffffff82000000 D some_data
ffffffffc0002000 t lo_rw_aio	[loop]
ffffffffc0001000 t loop_queue_rq	[loop]
ffffffffc0003000 t tweak	[null_blk]
`

func symbols(t *testing.T) *Symbols {
	t.Helper()
	s, err := ParseKallsyms(strings.NewReader(kallsymsText))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLookup finds the function that holds an address: the symbol at or
// below it, with its module; data symbols are not functions.
func TestLookup(t *testing.T) {
	s := symbols(t)
	for _, tt := range []struct {
		pc        uint64
		name, mod string
	}{
		{0xffffffff81105010, "io_wq_enqueue", ""},
		{0xffffffff81105800, "io_wq_enqueue.cold", ""},
		{0xffffffffc0001234, "loop_queue_rq", "loop"},
		{0xffffffffc0002010, "lo_rw_aio", "loop"},
		{0xffffffff82000010, "__bpf_trace_contention_begin", ""}, // some_data is not text
		{0x1000, "", ""},
	} {
		if n, m := s.Lookup(tt.pc); n != tt.name || m != tt.mod {
			t.Errorf("%#x: got %s [%s], want %s [%s]", tt.pc, n, m, tt.name, tt.mod)
		}
	}
}

// TestParseKallsymsRefuses text without symbols, and addresses hidden
// by kptr_restrict.
func TestParseKallsymsRefuses(t *testing.T) {
	if _, err := ParseKallsyms(strings.NewReader("ffffffff82000000 D some_data\n")); err == nil {
		t.Error("no text symbols: parsed")
	}
	hidden := "0000000000000000 T _stext\n0000000000000000 T io_wq_enqueue\n"
	if _, err := ParseKallsyms(strings.NewReader(hidden)); !errors.Is(err, ErrHiddenAddresses) {
		t.Errorf("hidden addresses: %v", err)
	}
	if _, err := ParseKallsyms(strings.NewReader("zz T x\n")); err == nil {
		t.Error("a bad address parsed")
	}
}

// TestSiteOf skips the lock primitives, slow paths and lock-taking
// helpers at the top of a stack and names the first function above
// them, without a clone's suffix.
func TestSiteOf(t *testing.T) {
	s := symbols(t)
	for _, tt := range []struct {
		name      string
		stack     []uint64
		site, mod string
	}{
		{"spinlock", []uint64{0xffffffff81100010, 0xffffffff81101010, 0xffffffff81105020, 0xffffffff81106010}, "io_wq_enqueue", ""},
		{"pv spinlock, cold clone", []uint64{0xffffffff81100410, 0xffffffff81101110, 0xffffffff81105810}, "io_wq_enqueue", ""},
		{"mutex", []uint64{0xffffffff81102010, 0xffffffff81102810, 0xffffffff81108010}, "io_cqring_wait", ""},
		{"rwsem", []uint64{0xffffffff81103010, 0xffffffff81103810, 0xffffffff8110a010}, "vm_mmap_pgoff", ""},
		{"rq lock helper", []uint64{0xffffffff81100010, 0xffffffff81101110, 0xffffffff81104010, 0xffffffff81104110}, "try_to_wake_up", ""},
		{"lock_ helper", []uint64{0xffffffff81100010, 0xffffffff8110c010, 0xffffffff8110c110}, "mod_timer", ""},
		{"module", []uint64{0xffffffff81100010, 0xffffffff81101010, 0xffffffffc0001010}, "loop_queue_rq", "loop"},
		{"only primitives", []uint64{0xffffffff81100010, 0xffffffff81101010, 0, 0}, "_raw_spin_lock_irqsave", ""},
		{"from the program up", []uint64{0xffffffffc0004010, 0xffffffff8110d010, 0xffffffff8110d110, 0xffffffff81100410,
			0xffffffff81101110, 0xffffffff81106010}, "io_worker_handle_work", ""},
		{"empty", []uint64{0, 0, 0}, UnknownSite, ""},
		{"unresolvable", []uint64{0x10}, UnknownSite, ""},
	} {
		if n, m := s.SiteOf(tt.stack); n != tt.site || m != tt.mod {
			t.Errorf("%s: got %s [%s], want %s [%s]", tt.name, n, m, tt.site, tt.mod)
		}
	}
}

// TestClassify puts sites in their subsystems by name, and block drivers
// by module.
func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		name, mod string
		want      Subsystem
	}{
		{"io_wq_enqueue", "", SubIOWQ},
		{"io_worker_handle_work", "", SubIOWQ},
		{"io_wq_worker", "", SubIOWQ},
		{"create_worker_cb", "", SubIOWQ},
		{"io_acct_cancel_pending_work", "", SubIOWQ},
		{"__io_req_task_work_add", "", SubIOUring},
		{"io_cqring_wait", "", SubIOUring},
		{"io_schedule", "", SubOther},
		{"__do_sys_io_uring_enter", "", SubIOUring},
		{"__x64_sys_io_uring_register", "", SubIOUring},
		{"blk_mq_dispatch_list", "", SubBlock},
		{"submit_bio_noacct", "", SubBlock},
		{"virtblk_done", "", SubBlock},
		{"tweak", "null_blk", SubBlock},
		{"try_to_wake_up", "", SubOther},
		{UnknownSite, "", SubOther},
	} {
		if got := Classify(tt.name, tt.mod); got != tt.want {
			t.Errorf("%s [%s]: %s, want %s", tt.name, tt.mod, got, tt.want)
		}
	}
}

func sample() *Locks {
	l := &Locks{Available: true, CPUNs: 4_000_000, IOs: 1000, Threads: 5}
	for _, s := range []Site{
		{Name: "io_worker_handle_work", Subsystem: SubIOWQ, Count: 30, WaitNs: 30_000, SpinNs: 30_000},
		{Name: "io_wq_enqueue", Subsystem: SubIOWQ, Count: 50, WaitNs: 100_000, SpinNs: 100_000},
		{Name: "io_cqring_wait", Subsystem: SubIOUring, Count: 5, WaitNs: 200_000, SpinNs: 0},
		{Name: "io_wq_enqueue", Subsystem: SubIOWQ, Count: 10, WaitNs: 20_000, SpinNs: 20_000},
	} {
		l.AddSite(s)
	}
	l.SortSites()
	return l
}

// TestLocksFigures sums sites of the same name, orders them by wait, and
// gives the per-I/O figures and the spinning share of CPU.
func TestLocksFigures(t *testing.T) {
	l := sample()
	if l.Contentions != 95 || l.WaitNs != 350_000 || l.SpinNs != 150_000 || len(l.Sites) != 3 {
		t.Fatalf("totals: %+v", l)
	}
	if l.Sites[0].Name != "io_cqring_wait" || l.Sites[1].Name != "io_wq_enqueue" || l.Sites[1].Count != 60 ||
		l.Sites[1].WaitNs != 120_000 {
		t.Fatalf("sites: %+v", l.Sites)
	}
	if l.ContentionsPerIO() != 0.095 || l.WaitNsPerIO() != 350 || l.WaitShare() != 0.0375 {
		t.Fatalf("per I/O %v %v, share %v", l.ContentionsPerIO(), l.WaitNsPerIO(), l.WaitShare())
	}
	subs := l.BySubsystem()
	if len(subs) != 2 || subs[0] != (SubsystemTotal{SubIOWQ, 2, 90, 150_000}) ||
		subs[1] != (SubsystemTotal{SubIOUring, 1, 5, 200_000}) {
		t.Fatalf("subsystems: %+v", subs)
	}
	if top := l.Top(2); len(top) != 2 || top[0].Name != "io_cqring_wait" {
		t.Fatalf("top: %+v", top)
	}
	var none Locks
	if none.ContentionsPerIO() != 0 || none.WaitNsPerIO() != 0 || none.WaitShare() != 0 || none.BPFNsPerIO() != 0 {
		t.Fatal("figures without I/O or CPU are not 0")
	}
}

// TestLocksMerge adds sites and totals; an available part makes the
// merge available, and an unavailable one keeps the first reason.
func TestLocksMerge(t *testing.T) {
	m := &Locks{}
	m.Merge(&Locks{Reason: "not root"})
	m.Merge(&Locks{Reason: "no lock tracepoints"})
	if m.Available || m.Reason != "not root" {
		t.Fatalf("unavailable merge: %+v", m)
	}
	m.Merge(sample())
	m.Merge(sample())
	m.Merge(nil)
	if !m.Available || m.Reason != "" || m.Contentions != 190 || m.IOs != 2000 || m.CPUNs != 8_000_000 ||
		m.Threads != 10 || len(m.Sites) != 3 || m.Sites[1].Count != 120 {
		t.Fatalf("merge: %+v", m)
	}
	if math.Abs(m.WaitNsPerIO()-350) > 1e-9 {
		t.Fatalf("wait per I/O %v", m.WaitNsPerIO())
	}
}

// TestLockPrimitive knows the primitives by name and leaves sites alone.
func TestLockPrimitive(t *testing.T) {
	for _, n := range []string{"queued_spin_lock_slowpath", "_raw_spin_lock_irqsave", "__mutex_lock.constprop.0",
		"mutex_lock_interruptible", "rwsem_down_read_slowpath", "down_read_killable", "down", "osq_lock",
		"__task_rq_lock", "raw_spin_rq_lock_nested", "folio_lruvec_lock_irqsave", "lock_timer_base",
		"percpu_down_write", "rt_spin_lock", "queued_read_lock_slowpath"} {
		if !LockPrimitive(n) {
			t.Errorf("%s is a lock primitive", n)
		}
	}
	for _, n := range []string{"io_wq_enqueue", "io_worker_handle_work", "try_to_wake_up", "blk_mq_dispatch_list",
		"__schedule", "downgrade_write", "mutex_unlock", "io_cqring_wait"} {
		if LockPrimitive(n) {
			t.Errorf("%s is not a lock primitive", n)
		}
	}
}
