package lockbpf

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/tracepoint"
)

// The lock tracepoints' layouts on Linux 6.18.
const (
	beginFormat = `name: contention_begin
ID: 408
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:void * lock_addr;	offset:8;	size:8;	signed:0;
	field:unsigned int flags;	offset:16;	size:4;	signed:0;
`
	endFormat = `name: contention_end
ID: 407
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:void * lock_addr;	offset:8;	size:8;	signed:0;
	field:int ret;	offset:16;	size:4;	signed:1;
`
)

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeTracefs makes a tracefs directory with the lock events' given
// formats ("" leaves an event out), and a mount table that shows it.
func fakeTracefs(t *testing.T, begin, end string) (mountinfo string) {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "events/sched/sched_switch/format"), "format:\n\tfield:int x;\toffset:8;\tsize:4;\tsigned:0;\n")
	if begin != "" {
		writeFile(t, filepath.Join(dir, "events/lock/contention_begin/format"), begin)
	}
	if end != "" {
		writeFile(t, filepath.Join(dir, "events/lock/contention_end/format"), end)
	}
	mi := filepath.Join(t.TempDir(), "mountinfo")
	writeFile(t, mi, "22 1 0:21 / /sys rw - sysfs sysfs rw\n44 22 0:13 / "+dir+" rw,relatime - tracefs nodev rw\n")
	return mi
}

// TestUnavailable checks each reason tracing cannot run that needs no
// privilege to provoke, each given to Open as a dependency: Open fails
// with an Unavailable whose one line says why, and the job's figures say
// "available": false with it.
func TestUnavailable(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"not root", Config{Euid: 1000, TracefsOnly: true, Mountinfo: fakeTracefs(t, beginFormat, endFormat)}, "not root: tracing needs root"},
		{"no tracefs", Config{TracefsOnly: true, Mountinfo: filepath.Join(t.TempDir(), "absent")}, "no tracefs: open "},
		{"no lock tracepoints", Config{TracefsOnly: true, Mountinfo: fakeTracefs(t, "", "")},
			"no lock tracepoints: lock:contention_begin is missing from "},
		{"no contention_end", Config{TracefsOnly: true, Mountinfo: fakeTracefs(t, beginFormat, "")},
			"no lock tracepoints: lock:contention_end is missing from "},
		{"missing field", Config{TracefsOnly: true, Mountinfo: fakeTracefs(t, strings.Replace(beginFormat, "int flags;", "int lcb_flags;", 1), endFormat)},
			"tracepoint contention_begin has no field flags on this kernel"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Open(tt.cfg)
			if err == nil {
				tr.Close(0)
				t.Fatal("Open succeeded")
			}
			var u *tracepoint.Unavailable
			if !errors.As(err, &u) || !strings.HasPrefix(u.Reason, tt.want) || strings.Contains(u.Reason, "\n") {
				t.Fatalf("got %v, want one line starting %q", err, tt.want)
			}
			if l := Unavailability(err); l.Available || l.Reason != u.Reason {
				t.Fatalf("figures %+v", l)
			}
		})
	}
	if l := Unavailability(errors.New("boom")); l.Available || l.Reason != "tracing failed: boom" {
		t.Fatalf("other error: %+v", l)
	}
}

// TestBPFRefused hands the programs a layout the verifier must refuse (the
// lock's address beyond the largest trace record) and checks that the
// refusal is an Unavailable that says so, with nothing left attached.
// Root only.
func TestBPFRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("loading BPF programs needs root; skipping")
	}
	mi := fakeTracefs(t, strings.Replace(beginFormat, "lock_addr;\toffset:8;", "lock_addr;\toffset:65536;", 1), endFormat)
	tr, err := Open(Config{Pid: os.Getpid(), Tids: []int{os.Getpid()}, TracefsOnly: true, Mountinfo: mi})
	if err == nil {
		tr.Close(0)
		t.Fatal("Open succeeded")
	}
	var u *tracepoint.Unavailable
	if !errors.As(err, &u) || !strings.HasPrefix(u.Reason, "BPF load refused for contention_begin: ") {
		t.Fatalf("got %v", err)
	}
}

// TestThreadsCPU reads the CPU time of the traced threads from a task
// directory: the ones named by id, and the io-wq workers and SQPOLL
// thread named after them, not other threads.
func TestThreadsCPU(t *testing.T) {
	dir := t.TempDir()
	for _, th := range []struct{ tid, comm, schedstat string }{
		{"100", "gofio", "5000 10 3"},
		{"101", "iou-wrk-100", "7000 1 1"},
		{"102", "iou-sqp-100", "11000 1 1"},
		{"103", "iou-wrk-1000", "13000 1 1"}, // another thread's worker
		{"104", "gofio", "17000 1 1"},
		{"105", "iou-wrk-100", ""}, // exited while read
	} {
		writeFile(t, filepath.Join(dir, th.tid, "comm"), th.comm+"\n")
		if th.schedstat != "" {
			writeFile(t, filepath.Join(dir, th.tid, "schedstat"), th.schedstat+"\n")
		}
	}
	tr := &Tracer{cfg: Config{Tids: []int{100}, TaskDir: dir}, comms: commsOf([]int{100})}
	got := tr.threadsCPU()
	if len(got) != 3 || got[100] != 5000 || got[101] != 7000 || got[102] != 11000 {
		t.Fatalf("got %v", got)
	}
}
