package placement

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestMemPolicy checks numa_mem_policy on a buffer: node 0 (which every
// Linux machine has) binds; a node the machine lacks is refused by name.
func TestMemPolicy(t *testing.T) {
	mem, err := unix.Mmap(-1, 0, 1<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_POPULATE)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	if _, err := os.Stat("/sys/devices/system/node/node0"); err != nil {
		t.Skip("no NUMA information in /sys on this machine")
	}
	for _, spec := range []string{"bind:0", "prefer:0", "interleave:0", "local", "default"} {
		if err := MemPolicy(spec, mem); err != nil {
			t.Errorf("%s: %v", spec, err)
		}
	}
	if err := MemPolicy("bind:1000", mem); err == nil || !strings.Contains(err.Error(), "no NUMA node 1000") {
		t.Errorf("bind:1000: %v", err)
	}
}
