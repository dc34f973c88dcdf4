package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

// TestUnlinkEachLoop checks fio's unlink_each_loop: a writing job's files
// are unlinked before each later loop and created anew, so each loop
// writes a fresh file; a reading job's next loop cannot open its file and
// fails with ENOENT after its first loop, as fio's (err=2, func=open).
func TestUnlinkEachLoop(t *testing.T) {
	dir := t.TempDir()
	jobs := parseJobs(t, dir, "[w]\nioengine=psync\nrw=randwrite\nbs=4k\nsize=64k\nloops=3\nunlink_each_loop=1\nfilename="+filepath.Join(dir, "w.dat")+"\n"+
		"[r]\nstonewall\nioengine=io_uring\niodepth=4\nrw=read\nbs=4k\nsize=64k\nloops=3\nunlink_each_loop=1\nfilename="+filepath.Join(dir, "r.dat")+"\n")
	res, err := Run(context.Background(), jobs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, r := res.Jobs[0], res.Jobs[1]
	if w.Error != 0 || w.Dirs[jobfile.DirWrite].TotalIOs != 48 {
		t.Errorf("writer: err=%d (%s), %d writes; want 0 and 48", w.Error, w.ErrorText, w.Dirs[jobfile.DirWrite].TotalIOs)
	}
	if st, err := os.Stat(filepath.Join(dir, "w.dat")); err != nil || st.Size() != 64<<10 {
		t.Errorf("w.dat after the run: %v, %v; want 64 KiB", st, err)
	}
	if r.Error != 2 || !strings.Contains(r.ErrorText, "open(") || r.Dirs[jobfile.DirRead].TotalIOs != 16 {
		t.Errorf("reader: err=%d (%s), %d reads; want ENOENT at the second loop's open after 16", r.Error, r.ErrorText, r.Dirs[jobfile.DirRead].TotalIOs)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.dat")); !os.IsNotExist(err) {
		t.Errorf("r.dat after the run: %v; want it unlinked", err)
	}
}

// TestUnlinkEachLoopRefused checks that gofio refuses unlink_each_loop
// where it cannot swap in the next loop's files, before anything is
// written.
func TestUnlinkEachLoopRefused(t *testing.T) {
	for _, extra := range []string{"ioengine=io_uring\nregisterfiles=1\n", "ioengine=mmap\n"} {
		dir := t.TempDir()
		jobs := parseJobs(t, dir, "[w]\n"+extra+"rw=write\nbs=4k\nsize=64k\nloops=2\nunlink_each_loop=1\nfilename="+filepath.Join(dir, "w.dat")+"\n")
		if _, err := Run(context.Background(), jobs, Options{}); err == nil || !strings.Contains(err.Error(), "unlink_each_loop") {
			t.Errorf("%q: err=%v; want a refusal naming unlink_each_loop", extra, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "w.dat")); !os.IsNotExist(err) {
			t.Errorf("%q: w.dat exists after a refusal", extra)
		}
	}
}

// TestCreateOnlyAndOnOpen checks create_only (files laid out with data,
// no I/O, the job reported with zero counts) and create_on_open (no
// layout: the file is created empty when opened, so a read of it fails
// with EIO as fio's "full resid").
func TestCreateOnlyAndOnOpen(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.dat"), filepath.Join(dir, "b.dat")
	jobs := parseJobs(t, dir, "[only]\nioengine=psync\nrw=randread\nbs=4k\nsize=64k\ncreate_only=1\nfilename="+a+"\n"+
		"[open]\nioengine=psync\nrw=read\nbs=4k\nsize=64k\ncreate_on_open=1\nfilename="+b+"\n")
	res, err := Run(context.Background(), jobs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	only, open := res.Jobs[0], res.Jobs[1]
	if only.Error != 0 || only.Dirs[jobfile.DirRead].TotalIOs != 0 {
		t.Errorf("create_only: err=%d, %d reads; want 0 and 0", only.Error, only.Dirs[jobfile.DirRead].TotalIOs)
	}
	if st, err := os.Stat(a); err != nil || st.Size() != 64<<10 {
		t.Errorf("create_only's file: %v, %v; want 64 KiB laid out", st, err)
	}
	if open.Error != 5 || open.Dirs[jobfile.DirRead].TotalIOs != 1 {
		t.Errorf("create_on_open reader: err=%d (%s), %d reads; want EIO at the first", open.Error, open.ErrorText, open.Dirs[jobfile.DirRead].TotalIOs)
	}
	if st, err := os.Stat(b); err != nil || st.Size() != 0 || st.Mode().Perm() != 0o600 {
		t.Errorf("create_on_open's file: %v, %v; want empty, mode 0600 (fio's open)", st, err)
	}
}
