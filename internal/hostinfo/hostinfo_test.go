package hostinfo

import (
	"os"
	"strings"
	"testing"
)

func TestHostAndKernel(t *testing.T) {
	want, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	if got := Hostname(); got != want {
		t.Errorf("Hostname() = %q, want %q", got, want)
	}
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Skip(err)
	}
	if got := Kernel(); got != strings.TrimSpace(string(b)) {
		t.Errorf("Kernel() = %q, want %q", got, strings.TrimSpace(string(b)))
	}
	if Machine() == "" {
		t.Error("Machine() is empty")
	}
}
