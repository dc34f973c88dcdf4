package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/blockdev"
	"github.com/gofio/gofio/internal/loopdev"
	"github.com/gofio/gofio/jobfile"
)

// TestMountedDeviceRefusesWrites runs jobs against a loop device that
// carries a mounted ext4, through the real blockdev check: every writing
// job is refused before the device is opened for writing and not a byte
// changes; a reading job runs, on read-only descriptors, and its disk
// shows up in the disk stats.
func TestMountedDeviceRefusesWrites(t *testing.T) {
	d := loopdev.New(t, 32<<20)
	d.MkfsExt4(t)
	mnt := d.Mount(t)
	before := d.Hash(t)
	writers := []struct {
		rw     jobfile.RW
		engine string
		direct bool
	}{
		// Sequential buffered writes through psync.
		{jobfile.RWWrite, "psync", false},
		// Random O_DIRECT writes through io_uring.
		{jobfile.RWRandWrite, "io_uring", true},
		// A mixed job writes too.
		{jobfile.RWRandRW, "psync", true},
		// A trim destroys data as a write does.
		{jobfile.RWTrim, "psync", false},
		{jobfile.RWRandTrimWrite, "io_uring", false},
	}
	for _, w := range writers {
		var modes modeLog
		j := testJob("", "mounted-"+string(w.rw), w.rw, w.engine)
		j.Filenames = []string{d.Path}
		j.Direct = w.direct
		_, err := Run(context.Background(), []*jobfile.Job{j}, Options{Engines: recordingEngines(&modes)})
		if !errors.Is(err, blockdev.ErrInUse) || !strings.Contains(err.Error(), "appears mounted") ||
			!strings.Contains(err.Error(), mnt) || !strings.Contains(err.Error(), "allow_mounted_write") {
			t.Errorf("%s on %s: error %v; want the mounted-device refusal naming %s", w.rw, d.Path, err, mnt)
		}
		if len(modes.modes) != 0 {
			t.Errorf("%s: an engine was opened on a refused device", w.rw)
		}
	}
	for _, engine := range []string{"psync", "io_uring"} {
		if engine == "io_uring" {
			uringOK(t)
		}
		var modes modeLog
		j := testJob("", "mounted-read", jobfile.RWRandRead, engine)
		j.Filenames = []string{d.Path}
		j.Size = 1 << 20
		j.Direct = true
		res := mustRun(t, []*jobfile.Job{j}, Options{Engines: recordingEngines(&modes)})
		if !modes.all(unix.O_RDONLY) {
			t.Errorf("%s read job on a mounted device: descriptor modes %v, want O_RDONLY only", engine, modes.modes)
		}
		if got := res.Jobs[0].Dirs[0].IOBytes; got != 1<<20 {
			t.Errorf("%s read job moved %d bytes, want 1 MiB", engine, got)
		}
		// The disk's write count is not asserted: the mounted ext4 may
		// write to it at any moment (a loaded CI machine once showed one
		// write during the read job). That gofio wrote nothing is what
		// the descriptor modes above and the unchanged hash below prove.
		disk := filepath.Base(d.Path)
		if len(res.Disks) != 1 || res.Disks[0].Name != disk || res.Disks[0].ReadIOs == 0 {
			t.Errorf("%s: disk stats %+v; want one entry for %s with reads", engine, res.Disks, disk)
		}
	}
	if after := d.Hash(t); after != before {
		t.Fatalf("the mounted device changed")
	}
}

// TestMountedPartitionRefusesWholeDiskWrite: writing to a whole disk one of
// whose partitions is mounted is refused too, and changes nothing.
func TestMountedPartitionRefusesWholeDiskWrite(t *testing.T) {
	d := loopdev.NewWithOptions(t, 24<<20, loopdev.Options{Partitions: []int64{16 << 20}})
	d.MkfsExt4Partition(t, 1)
	d.MountPartition(t, 1)
	before := d.Hash(t)
	j := testJob("", "whole", jobfile.RWWrite, "psync")
	j.Filenames = []string{d.Path}
	_, err := Run(context.Background(), []*jobfile.Job{j}, Options{})
	if !errors.Is(err, blockdev.ErrInUse) || !strings.Contains(err.Error(), "partition") {
		t.Fatalf("write to %s: error %v; want a refusal naming its mounted partition", d.Path, err)
	}
	if d.Hash(t) != before {
		t.Fatal("the device changed")
	}
}

// TestAllowMountedWriteSkipsCheck: allow_mounted_write=1 is the only way
// past the check (here with a stand-in check, on an unmounted device).
func TestAllowMountedWriteSkipsCheck(t *testing.T) {
	d := loopdev.New(t, 4<<20)
	mounted := func(p string) error { return errors.New(p + " appears mounted") }
	j := testJob("", "allow", jobfile.RWWrite, "psync")
	j.Filenames = []string{d.Path}
	if _, err := Run(context.Background(), []*jobfile.Job{j}, Options{CheckMountedWrite: mounted}); err == nil || !strings.Contains(err.Error(), "appears mounted") {
		t.Fatalf("error %v, want the check's refusal", err)
	}
	j.AllowMountedWrite = true
	r := mustRun(t, []*jobfile.Job{j}, Options{CheckMountedWrite: mounted}).Jobs[0]
	if r.Dirs[1].IOBytes != j.Size {
		t.Fatalf("wrote %d bytes, want %d", r.Dirs[1].IOBytes, j.Size)
	}
}

// TestReadOnlyJobsNeverOpenForWriting runs reading jobs on a file marked
// immutable (which even root cannot open for writing) and checks every
// descriptor is read-only and the file unchanged; a writing job on the
// same file fails, which proves the test would catch a writable open.
func TestReadOnlyJobsNeverOpenForWriting(t *testing.T) {
	uringOK(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "ro.dat")
	stampedFile(t, path, 256<<10)
	setImmutable(t, path, true)
	defer setImmutable(t, path, false)
	before := hashFile(t, path)
	tests := []struct {
		rw     jobfile.RW
		engine string
		direct bool
	}{
		// Sequential buffered reads, psync.
		{jobfile.RWRead, "psync", false},
		// Random O_DIRECT reads, io_uring.
		{jobfile.RWRandRead, "io_uring", true},
		// Sequential O_DIRECT reads, io_uring.
		{jobfile.RWRead, "io_uring", true},
	}
	for _, tt := range tests {
		var modes modeLog
		j := testJob(dir, "ro", tt.rw, tt.engine)
		j.Filenames = []string{path}
		j.Size = 0 // the whole file
		j.Direct = tt.direct
		// Options that touch the file in other ways must not open it
		// for writing either.
		j.Invalidate, j.EndFsync, j.Unlink = true, true, true
		res := mustRun(t, []*jobfile.Job{j}, Options{Engines: recordingEngines(&modes)})
		if !modes.all(unix.O_RDONLY) {
			t.Errorf("%s %s: descriptor modes %v, want O_RDONLY only", tt.rw, tt.engine, modes.modes)
		}
		if got := res.Jobs[0].Dirs[0].IOBytes; got != 256<<10 {
			t.Errorf("%s %s: read %d bytes, want the whole 256 KiB file", tt.rw, tt.engine, got)
		}
	}
	// A write job on it cannot open it: the job ends with EPERM.
	j := testJob(dir, "rw", jobfile.RWWrite, "psync")
	j.Filenames = []string{path}
	res, err := Run(context.Background(), []*jobfile.Job{j}, Options{})
	if err != nil || len(res.Jobs) != 1 || res.Jobs[0].Error != int(unix.EPERM) {
		t.Errorf("a write job on the immutable file: %v, %+v; want the job ended with EPERM", err, res)
	}
	if hashFile(t, path) != before {
		t.Fatal("the file changed")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("unlink=1 removed a file gofio did not create: %v", err)
	}
}

// TestLayoutNeverTruncates: a short file a reading job needs is extended
// with its existing bytes kept; a longer file keeps its length and the
// bytes outside the job's region.
func TestLayoutNeverTruncates(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		rw       jobfile.RW
		fileSize int
		size     uint64
		wantSize int64
	}{
		// A read job extends an 8 KiB file to its 64 KiB region.
		{"short-read", jobfile.RWRead, 8 << 10, 64 << 10, 64 << 10},
		// A write job extends an 8 KiB file (sparse) to 64 KiB.
		{"short-write", jobfile.RWWrite, 8 << 10, 64 << 10, 64 << 10},
		// A write job over the first 64 KiB of a 1 MiB file keeps 1 MiB.
		{"long-write", jobfile.RWRandWrite, 1 << 20, 64 << 10, 1 << 20},
		// A read job over part of a file keeps it whole.
		{"long-read", jobfile.RWRandRead, 1 << 20, 64 << 10, 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			stampedFile(t, path, tt.fileSize)
			orig, _ := os.ReadFile(path)
			j := testJob(dir, tt.name, tt.rw, "psync")
			j.Filenames = []string{path}
			j.Size = tt.size
			j.Unlink = true
			mustRun(t, []*jobfile.Job{j}, Options{})
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("the existing file is gone: %v", err)
			}
			if int64(len(got)) != tt.wantSize {
				t.Fatalf("file is %d bytes, want %d", len(got), tt.wantSize)
			}
			keepFrom := 0
			if tt.rw.HasWrite() {
				keepFrom = int(tt.size) // the job's region was rewritten
			}
			for i := keepFrom; i < len(orig); i++ {
				if got[i] != orig[i] {
					t.Fatalf("byte %d changed outside the job's region", i)
				}
			}
		})
	}
}

// TestUnlinkRemovesOnlyCreated: unlink=1 removes a file gofio laid out,
// and nothing that existed before the run.
func TestUnlinkRemovesOnlyCreated(t *testing.T) {
	dir := t.TempDir()
	dev := loopdev.New(t, 1<<20)
	tests := []struct {
		name     string
		rw       jobfile.RW
		existing int // bytes the file has before the run; -1 = absent
		path     string
		removed  bool
	}{
		// A file the read job laid out is removed.
		{"new-read", jobfile.RWRead, -1, "", true},
		// A file the write job created is removed.
		{"new-write", jobfile.RWWrite, -1, "", true},
		// An existing file of full size is kept.
		{"full", jobfile.RWWrite, 64 << 10, "", false},
		// An existing short file that the read job extended is kept.
		{"extended", jobfile.RWRead, 4 << 10, "", false},
		// A block device node is never removed.
		{"device", jobfile.RWWrite, 0, dev.Path, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if path == "" {
				path = filepath.Join(dir, tt.name)
			}
			if tt.existing > 0 {
				stampedFile(t, path, tt.existing)
			}
			j := testJob(dir, tt.name, tt.rw, "psync")
			j.Filenames = []string{path}
			j.Unlink = true
			mustRun(t, []*jobfile.Job{j}, Options{})
			_, err := os.Stat(path)
			if gone := errors.Is(err, os.ErrNotExist); gone != tt.removed {
				t.Fatalf("after the run: stat error %v; want removed=%v", err, tt.removed)
			}
		})
	}
}

// TestDirectAlignmentCheckedBeforeLayout: a direct=1 job whose bs or offset
// does not fit the target's O_DIRECT alignment is refused before anything
// is created or written, for new files (ext4 temp dir and tmpfs) and for a
// block device.
func TestDirectAlignmentCheckedBeforeLayout(t *testing.T) {
	dev := loopdev.New(t, 4<<20)
	devBefore := dev.Hash(t)
	dirs := []string{t.TempDir()}
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		dirs = append(dirs, "/dev/shm")
	}
	tests := []struct {
		name   string
		rw     jobfile.RW
		bs     uint64
		offset uint64
		want   string
	}{
		// A read job would lay the file out with data.
		{"read-bs", jobfile.RWRead, 1000, 0, "bs=1000"},
		// A write job would create a sparse file.
		{"write-bs", jobfile.RWWrite, 1000, 0, "bs=1000"},
		// A misaligned offset.
		{"write-offset", jobfile.RWRandWrite, 4096, 100, "offset=100"},
	}
	for _, tt := range tests {
		targets := []string{dev.Path}
		for _, d := range dirs {
			targets = append(targets, filepath.Join(d, "gofio-run-align-"+tt.name))
		}
		for _, path := range targets {
			j := testJob("", "align", tt.rw, "psync")
			j.Filenames = []string{path}
			j.Direct = true
			j.BS = [jobfile.NumDirs]uint64{tt.bs, tt.bs, tt.bs}
			j.Offset = tt.offset
			j.Size = 64 << 10
			_, err := Run(context.Background(), []*jobfile.Job{j}, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "O_DIRECT alignment") {
				t.Errorf("%s on %s: error %v; want an alignment error naming %s", tt.name, path, err, tt.want)
			}
			if path != dev.Path {
				if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
					os.Remove(path)
					t.Errorf("%s: %s was created before the alignment check (stat: %v)", tt.name, path, err)
				}
			}
		}
	}
	if dev.Hash(t) != devBefore {
		t.Fatal("the device changed")
	}
}

// TestDiskStats: a job on a file of a block-backed filesystem and a job on
// the device itself report that disk, once; a tmpfs target reports none.
func TestDiskStats(t *testing.T) {
	d := loopdev.New(t, 32<<20)
	d.MkfsExt4(t)
	mnt := d.Mount(t)
	disk := filepath.Base(d.Path)
	onFS := testJob(mnt, "fs", jobfile.RWWrite, "psync")
	onFS.Direct = true
	onFS.Unlink = true
	res := mustRun(t, []*jobfile.Job{onFS}, Options{})
	if len(res.Disks) != 1 || res.Disks[0].Name != disk || res.Disks[0].WriteIOs == 0 {
		t.Errorf("file on ext4 on %s: disks %+v; want %s with writes", d.Path, res.Disks, disk)
	}
	if err := unix.Unmount(mnt, 0); err != nil {
		t.Fatal(err)
	}
	// Two jobs on the same disk: one entry.
	a := testJob("", "a", jobfile.RWRead, "psync")
	a.Filenames = []string{d.Path}
	a.Direct = true
	b := testJob("", "b", jobfile.RWWrite, "psync")
	b.Filenames = []string{d.Path}
	b.Offset = 1 << 20
	b.Direct = true
	res = mustRun(t, []*jobfile.Job{a, b}, Options{})
	if len(res.Disks) != 1 || res.Disks[0].Name != disk || res.Disks[0].ReadIOs == 0 || res.Disks[0].WriteIOs == 0 {
		t.Errorf("two jobs on %s: disks %+v; want one entry with reads and writes", d.Path, res.Disks)
	}
	tmp := mountTmpfs(t, "4m")
	res = mustRun(t, []*jobfile.Job{testJob(tmp, "tmpfs", jobfile.RWWrite, "psync")}, Options{})
	if len(res.Disks) != 0 {
		t.Errorf("tmpfs target: disks %+v, want none", res.Disks)
	}
}

// TestReadOnlyBlockDevice runs --readonly read jobs on a loop device the
// test attaches read-only (LO_FLAGS_READ_ONLY: a write to it fails with
// EPERM): psync and O_DIRECT io_uring jobs open it read-only, read all of
// it and change nothing.
func TestReadOnlyBlockDevice(t *testing.T) {
	d := loopdev.NewWithOptions(t, 4<<20, loopdev.Options{ReadOnly: true})
	before := d.Hash(t)
	for _, engine := range []string{"psync", "io_uring"} {
		if engine == "io_uring" {
			uringOK(t)
		}
		var modes modeLog
		j := testJob("", "ro-"+engine, jobfile.RWRandRead, engine)
		j.Filenames = []string{d.Path}
		j.Size, j.Direct, j.ReadOnly = 0, true, true
		j.IODepth, j.IODepthBatchSubmit, j.IODepthBatchCompleteMax = 4, 4, 4
		res := mustRun(t, []*jobfile.Job{j}, Options{Engines: recordingEngines(&modes)})
		if len(modes.modes) == 0 || !modes.all(unix.O_RDONLY) {
			t.Errorf("%s: descriptor modes %v, want O_RDONLY only", engine, modes.modes)
		}
		if r := res.Jobs[0]; r.Error != 0 || r.Dirs[jobfile.DirRead].IOBytes != 4<<20 {
			t.Errorf("%s: error %d, read %d bytes; want the whole 4 MiB device", engine, r.Error, r.Dirs[jobfile.DirRead].IOBytes)
		}
	}
	if d.Hash(t) != before {
		t.Fatal("the device changed")
	}
}
