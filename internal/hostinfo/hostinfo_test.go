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

// TestCPUInfo reads a key every Linux /proc/cpuinfo has and one none has.
func TestCPUInfo(t *testing.T) {
	if CPUInfo("processor") != "0" {
		t.Errorf(`CPUInfo("processor") = %q, want "0" (the first CPU)`, CPUInfo("processor"))
	}
	if got := CPUInfo("no such key"); got != "" {
		t.Errorf("CPUInfo of a missing key = %q", got)
	}
}
