package ktrace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindTracepoints reads this kernel's layouts (saved from Linux 6.18)
// and the older submit event's name and layout.
func TestFindTracepoints(t *testing.T) {
	tp, err := findTracepoints("testdata/linux-6.18")
	if err != nil {
		t.Fatal(err)
	}
	if tp.submitName != "io_uring_submit_req" || flat(tp.sub.req) != (Field{Offset: 16, Size: 8}) || flat(tp.sub.userData) != (Field{Offset: 24, Size: 8}) ||
		flat(tp.sub.opcode) != (Field{Offset: 32, Size: 1}) || flat(tp.cqe.userData) != (Field{Offset: 24, Size: 8}) || flat(tp.bio.sector) != (Field{Offset: 16, Size: 8}) ||
		flat(tp.done.sector) != (Field{Offset: 16, Size: 8}) || flat(tp.requeue.dev) != (Field{Offset: 8, Size: 4}) ||
		flat(tp.sub.ctx) != (Field{Offset: 8, Size: 8}) || flat(tp.cqe.ctx) != (Field{Offset: 8, Size: 8}) {
		t.Fatalf("layouts: %+v", tp)
	}
	old := fakeTracefs(t, "io_uring_submit_sqe", `name: io_uring_submit_sqe
ID: 1000
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:void * ctx;	offset:8;	size:8;	signed:0;
	field:void * req;	offset:16;	size:8;	signed:0;
	field:u8 opcode;	offset:24;	size:1;	signed:0;
	field:u64 user_data;	offset:32;	size:8;	signed:0;
	field:u32 flags;	offset:40;	size:4;	signed:0;
	field:bool force_nonblock;	offset:44;	size:1;	signed:0;
	field:bool sq_thread;	offset:45;	size:1;	signed:0;
`)
	tp, err = findTracepoints(old)
	if err != nil {
		t.Fatal(err)
	}
	if tp.submitName != "io_uring_submit_sqe" || flat(tp.sub.opcode) != (Field{Offset: 24, Size: 1}) || flat(tp.sub.userData) != (Field{Offset: 32, Size: 8}) {
		t.Fatalf("old layout: %+v", tp)
	}
}

// fakeTracefs copies the saved 6.18 layouts into a directory, with the
// submit event replaced by name and format (none when name is empty).
func fakeTracefs(t *testing.T, name, format string) string {
	t.Helper()
	dir := t.TempDir()
	for _, e := range []string{"io_uring/io_uring_complete", "block/block_bio_queue", "block/block_rq_issue", "block/block_rq_complete",
		"block/block_rq_requeue"} {
		b, err := os.ReadFile(filepath.Join("testdata/linux-6.18/events", e, "format"))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "events", e, "format"), string(b))
	}
	if name != "" {
		writeFile(t, filepath.Join(dir, "events/io_uring", name, "format"), format)
	}
	return dir
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mountinfoFor writes a mount table with a tracefs at dir ("" for none).
func mountinfoFor(t *testing.T, dir string) string {
	t.Helper()
	mi := "22 1 0:21 / /sys rw - sysfs sysfs rw\n"
	if dir != "" {
		mi += "44 22 0:13 / " + dir + " rw,relatime - tracefs nodev rw\n"
	}
	p := filepath.Join(t.TempDir(), "mountinfo")
	writeFile(t, p, mi)
	return p
}

// TestUnavailable checks each reason tracing cannot run that needs no
// privilege to provoke: Open fails with an *Unavailable whose one line
// says why.
func TestUnavailable(t *testing.T) {
	real := fakeTracefs(t, "io_uring_submit_req", mustRead(t, "testdata/linux-6.18/events/io_uring/io_uring_submit_req/format"))
	for _, tt := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"not root", Config{TracefsOnly: true, Targets: []string{"/proc/version"}, Euid: 1000}, "not root"},
		{"no tracefs", Config{TracefsOnly: true, Targets: []string{"/proc/version"}, Mountinfo: mountinfoFor(t, ""),
			MountAt: filepath.Join(t.TempDir(), "absent")}, "no tracefs mounted, and mounting one on"},
		{"missing tracepoint", Config{TracefsOnly: true, Targets: []string{"/proc/version"}, Mountinfo: mountinfoFor(t, fakeTracefs(t, "", ""))},
			"tracepoint io_uring:io_uring_submit_req (or io_uring_submit_sqe) missing"},
		{"missing field", Config{TracefsOnly: true, Targets: []string{"/proc/version"}, Mountinfo: mountinfoFor(t, fakeTracefs(t, "io_uring_submit_req",
			"format:\n\tfield:void * ctx;\toffset:8;\tsize:8;\tsigned:0;\n"))}, "tracepoint io_uring_submit_req has no field req"},
		{"not a block device", Config{TracefsOnly: true, Targets: []string{"/proc/version"}, Mountinfo: mountinfoFor(t, real)},
			"target /proc/version is not a block device and its file system has none"},
		{"no target", Config{TracefsOnly: true, Targets: []string{filepath.Join(t.TempDir(), "absent")}, Mountinfo: mountinfoFor(t, real)},
			"no such file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Open(tt.cfg)
			if err == nil {
				tr.Close()
				t.Fatal("Open succeeded")
			}
			var u *Unavailable
			if !errors.As(err, &u) || !strings.Contains(u.Reason, tt.want) || strings.Contains(u.Reason, "\n") {
				t.Fatalf("got %v, want one line with %q", err, tt.want)
			}
			if ks := Unavailability(err); ks.Available || ks.Reason != u.Reason {
				t.Fatalf("stages %+v", ks)
			}
		})
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// flat is a classic record field's ref as a Field; a ref read through
// pointers reads as none.
func flat(r ref) Field {
	if len(r.Hops) > 0 {
		return Field{}
	}
	return Field{Offset: int(r.Off), Size: r.Size}
}
