package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

// TestZbdEmulated checks zonemode=zbd on a regular file, as fio 3.33
// emulates it: a missing file fails its job with EINVAL (fio's
// zbd_create_zone_info) and is not created; on an existing file a
// sequential writer fills the zones of its region, and a reader in a later
// group reads exactly what was written (the zones are the run's, shared
// across groups), stopping at the first zone without data.
func TestZbdEmulated(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "zbd.img")
	missing := parseJobs(t, dir, "[z]\nioengine=psync\nrw=write\nbs=64k\nsize=4m\nzonemode=zbd\nzonesize=1m\nfilename="+f+"\n")
	res, err := Run(context.Background(), missing, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) == 0 || res.Jobs[0].Error != 22 || !strings.Contains(res.Jobs[0].ErrorText, "zbd_create_zone_info") {
		t.Fatalf("zbd on a missing file: %+v", res.Jobs)
	}
	if _, err := os.Stat(f); err == nil {
		t.Error("zbd job on a missing file created it")
	}
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(f, 8<<20); err != nil {
		t.Fatal(err)
	}
	jobs := parseJobs(t, dir, "[global]\nioengine=psync\nbs=64k\nzonemode=zbd\nzonesize=1m\nfilename="+f+"\n"+
		"[w]\nrw=write\noffset=2z\nsize=3z\n[r]\nstonewall\nrw=read\noffset=1z\n")
	res = mustRun(t, jobs, Options{})
	w, r := res.Jobs[0].Dirs[jobfile.DirWrite], res.Jobs[1].Dirs[jobfile.DirRead]
	if w.IOBytes != 3<<20 || res.Jobs[0].ZoneResets != 0 {
		t.Errorf("writer: %d bytes, %d resets; want 3 zones and none", w.IOBytes, res.Jobs[0].ZoneResets)
	}
	// The reader starts in zone 1, which is empty: it moves on to zone
	// 2 and reads the three zones written there.
	if r.IOBytes != 3<<20 {
		t.Errorf("reader: %d bytes, want the %d written", r.IOBytes, 3<<20)
	}
}
