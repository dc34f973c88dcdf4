package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofio/gofio/internal/faultfs"
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

// TestZbdSharedZoneLocks checks fio's zone locks across jobs that share a
// file, end to end: three psync writers and a psync randrw job race for
// the zones of one FUSE file whose writes each take 200 µs, and the
// server sees, as with fio, no request start in a zone while another is
// in flight there (every job has one I/O at a time, so the zone's lock
// is the only thing that keeps them apart), every write at its zone's
// write pointer or at its start after a reset, every read below the
// write pointer, and as many resets as the jobs report.
func TestZbdSharedZoneLocks(t *testing.T) {
	const zs, size = 1 << 20, 16 << 20
	x := faultfs.MountT(t, faultfs.Options{Size: size})
	x.Delay(faultfs.Write, 200*time.Microsecond, 1)
	var (
		busy    [size / zs]int
		wp      [size / zs]int64
		resets  int
		ios     int
		clashes []string
	)
	for z := range wp {
		wp[z] = int64(z) * zs
	}
	x.Trace(func(op faultfs.Op, off int64, n int, begin bool) {
		z := off / zs
		if !begin {
			busy[z]--
			return
		}
		ios++
		if busy[z]++; busy[z] > 1 && len(clashes) < 5 {
			clashes = append(clashes, fmt.Sprintf("%v of %d at %d while zone %d has I/O in flight", op, n, off, z))
		}
		switch {
		case op == faultfs.Read && off+int64(n) > wp[z] && len(clashes) < 5:
			clashes = append(clashes, fmt.Sprintf("read of %d at %d beyond zone %d's write pointer %d", n, off, z, wp[z]))
		case op != faultfs.Write:
		case off == z*zs && wp[z] != off:
			resets++
			wp[z] = off + int64(n)
		case off != wp[z] && len(clashes) < 5:
			clashes = append(clashes, fmt.Sprintf("write of %d at %d, zone %d's write pointer at %d", n, off, z, wp[z]))
		default:
			wp[z] = off + int64(n)
		}
	})
	t.Cleanup(func() { x.Trace(nil) })
	jobs := parseJobs(t, t.TempDir(), "[global]\nioengine=psync\nzonemode=zbd\nzonesize=1m\nbs=64k\nmax_open_zones=4\nio_size=4m\nfilename="+x.Path()+"\n"+
		"[w]\nrw=randwrite\nnumjobs=3\n[m]\nrw=randrw\n")
	res := mustRun(t, jobs, Options{})
	var jobResets uint64
	for _, r := range res.Jobs {
		jobResets += r.ZoneResets
		if r.Dirs[jobfile.DirRead].IOBytes+r.Dirs[jobfile.DirWrite].IOBytes != 4<<20 {
			t.Errorf("job %s moved %d+%d bytes, want io_size 4m", r.Name, r.Dirs[jobfile.DirRead].IOBytes, r.Dirs[jobfile.DirWrite].IOBytes)
		}
	}
	x.Trace(nil)
	for _, c := range clashes {
		t.Error(c)
	}
	if jobResets != uint64(resets) || resets == 0 {
		t.Errorf("the jobs report %d zone resets, the server saw %d", jobResets, resets)
	}
	t.Logf("%d requests, %d zone resets", ios, resets)
}

// TestZbdVerifyResetsOthersZones checks fio's zbd_file_reset for a verify
// job: when it opens its file it resets the zones of its region that hold
// data, written by another job too (here one of an earlier group, the
// zones being the run's), so that no reset drops data it will verify; it
// counts those resets (fio 3.33: the same 2, and the same 64 writes and
// reads).
func TestZbdVerifyResetsOthersZones(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "zbd.img")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(f, 8<<20); err != nil {
		t.Fatal(err)
	}
	jobs := parseJobs(t, dir, "[global]\nioengine=psync\nbs=64k\nzonemode=zbd\nzonesize=1m\nfilename="+f+"\n"+
		"[w]\nrw=write\nsize=2m\n[v]\nstonewall\nrw=randwrite\nsize=4m\nverify=crc32c\n")
	res := mustRun(t, jobs, Options{})
	v := res.Jobs[1]
	if v.ZoneResets != 2 || v.Dirs[jobfile.DirWrite].TotalIOs != 64 || v.Dirs[jobfile.DirRead].TotalIOs != 64 {
		t.Errorf("verify job after a writer: %d resets, %d writes, %d reads; want the writer's 2 zones reset, 64 and 64",
			v.ZoneResets, v.Dirs[jobfile.DirWrite].TotalIOs, v.Dirs[jobfile.DirRead].TotalIOs)
	}
}
