package tracepoint

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTracefsIn finds tracefs in mount tables: mounted itself (with an
// escaped blank in its path), under debugfs, or not at all.
func TestTracefsIn(t *testing.T) {
	debug := t.TempDir()
	if err := os.MkdirAll(filepath.Join(debug, "tracing", "events"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, mountinfo, want string }{
		{"tracefs", "22 1 0:21 / /sys rw - sysfs sysfs rw\n44 22 0:13 / /sys/kernel/my\\040tracing rw,relatime - tracefs nodev rw\n", "/sys/kernel/my tracing"},
		{"debugfs", "30 22 0:7 / " + debug + " rw shared:1 - debugfs debugfs rw\n", filepath.Join(debug, "tracing")},
		{"none", "22 1 0:21 / /sys rw - sysfs sysfs rw\n", ""},
	} {
		got, err := tracefsIn(strings.NewReader(tt.mountinfo))
		if err != nil || got != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

// TestFormat reads a saved format file's fields and checks Want's sizes
// and alignment, whose refusals are Unavailable.
func TestFormat(t *testing.T) {
	f, err := parseFormat(strings.NewReader(`name: contention_begin
ID: 408
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:void * lock_addr;	offset:8;	size:8;	signed:0;
	field:unsigned int flags;	offset:16;	size:4;	signed:0;
	field:char comm[16];	offset:20;	size:16;	signed:0;
`))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := f.Want("contention_begin", "lock_addr", 8); err != nil || got != (Field{Offset: 8, Size: 8}) {
		t.Fatalf("lock_addr: %v, %v", got, err)
	}
	for _, tt := range []struct {
		name  string
		sizes []int
		want  string
	}{
		{"flags", []int{8}, "field flags is 4 bytes at offset 16, not a size gofio reads"},
		{"comm", []int{4}, "field comm is 16 bytes at offset 20"},
		{"comm", []int{16}, "field comm is 16 bytes at offset 20"}, // not aligned
		{"absent", []int{8}, "tracepoint contention_begin has no field absent on this kernel"},
	} {
		_, err := f.Want("contention_begin", tt.name, tt.sizes...)
		var u *Unavailable
		if !errors.As(err, &u) || !strings.Contains(u.Reason, tt.want) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
	if _, err := parseFormat(strings.NewReader("name: x\n")); err == nil {
		t.Fatal("a format without fields parsed")
	}
}

// TestMountUnavailable: a mount table that cannot be read, and one
// without tracefs where mounting fails, are Unavailable with one line.
func TestMountUnavailable(t *testing.T) {
	dir := t.TempDir()
	mi := filepath.Join(dir, "mountinfo")
	if err := os.WriteFile(mi, []byte("22 1 0:21 / /sys rw - sysfs sysfs rw\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ mountinfo, at, want string }{
		{filepath.Join(dir, "absent"), "", "no tracefs: open "},
		{mi, filepath.Join(dir, "absent"), "no tracefs mounted, and mounting one on " + filepath.Join(dir, "absent")},
	} {
		_, err := Mount(tt.mountinfo, tt.at)
		var u *Unavailable
		if !errors.As(err, &u) || !strings.HasPrefix(u.Reason, tt.want) || strings.Contains(u.Reason, "\n") {
			t.Errorf("got %v, want %q", err, tt.want)
		}
	}
}
