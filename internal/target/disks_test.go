package target

import (
	"path/filepath"
	"testing"

	"github.com/gofio/gofio/internal/blockdev"
	"github.com/gofio/gofio/jobfile"
)

// TestDiskUtilOff checks disk_util=0: the job's disks are not sampled.
func TestDiskUtilOff(t *testing.T) {
	dir := t.TempDir()
	if _, ok := blockdev.DiskFor(dir); !ok {
		t.Skip("the test's directory is on no disk here")
	}
	for _, on := range []bool{true, false} {
		j := &jobfile.Job{Name: "d", IOEngine: "psync", RW: jobfile.RWWrite, NoDiskUtil: !on}
		var ds Disks
		ds.Add(j, []*Target{{Path: filepath.Join(dir, "d.dat")}})
		if got := len(ds.samplers) > 0; got != on {
			t.Errorf("disk_util=%v: sampled %d disks", on, len(ds.samplers))
		}
	}
}
