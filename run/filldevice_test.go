package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/mounttest"
	"github.com/gofio/gofio/jobfile"
)

// TestFillDeviceShortWrite fills an 8 MiB tmpfs with 3 KiB writes: the
// last full one is cut short at the end of the space and its remainder
// fails with ENOSPC. gofio counts that I/O once and the bytes that reached
// the file (fio 3.33 counts the remainder as another I/O and drops the
// short part's bytes: 2732 I/Os, 8386560 bytes), and the job ends without
// an error.
func TestFillDeviceShortWrite(t *testing.T) {
	dir := mounttest.Tmpfs(t, 8)
	jobs := parseJobs(t, t.TempDir(), fmt.Sprintf("[f]\ndirectory=%s\nrw=write\nbs=3k\nfill_device=1\n", dir))
	var warn strings.Builder
	res, err := Run(context.Background(), jobs, Options{Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	jr := res.Jobs[0]
	w := jr.Dirs[jobfile.DirWrite]
	st, err := os.Stat(filepath.Join(dir, "f.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d I/Os, %d bytes, %d short; file %d bytes; %q", w.TotalIOs, w.IOBytes, w.ShortIOs, st.Size(), warn.String())
	if jr.Error != 0 || w.TotalIOs != 2731 || w.IOBytes != 8<<20 || w.ShortIOs != 1 || uint64(st.Size()) != w.IOBytes {
		t.Errorf("error %d, %d I/Os, %d bytes, %d short, file of %d: want no error, 2731 I/Os, %d bytes, 1 short, the file that size",
			jr.Error, w.TotalIOs, w.IOBytes, w.ShortIOs, st.Size(), 8<<20)
	}
	if !strings.Contains(warn.String(), "No space left on device: write offset=8388608, buflen=1024") {
		t.Errorf("no io_u error line for the ENOSPC write: %q", warn.String())
	}
}

// TestFillDeviceRefused checks the fill_device jobs gofio refuses before
// anything runs: jobs that read, and random writes without size=.
func TestFillDeviceRefused(t *testing.T) {
	for _, c := range []struct{ opts, want string }{
		{"rw=randrw", "fill_device with rw=randrw: gofio fills only with jobs that write and do not read"},
		{"rw=randwrite", "fill_device with rw=randwrite needs size="},
	} {
		dir := t.TempDir()
		jobs := parseJobs(t, dir, fmt.Sprintf("[f]\ndirectory=%s\nbs=4k\nfill_device=1\n%s\n", dir, c.opts))
		_, err := Run(context.Background(), jobs, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.opts, err, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "f.0.0")); err == nil {
			t.Errorf("%s: the refused job created its file", c.opts)
		}
	}
}

// TestLaterGroupUsesEarlierFile runs a writer and, in a later group, a
// reader without size= of the file the writer makes and that does not
// exist before the run: with create_serialize=0 the reader's file is set
// up when its group starts; with fio's default create_serialize=1 it is
// set up before any job runs, once the writer's setup laid the file out,
// and fio 3.33 reads the 64 KiB the writer wrote either way.
func TestLaterGroupUsesEarlierFile(t *testing.T) {
	for _, serialize := range []string{"0", "1"} {
		dir := t.TempDir()
		f := filepath.Join(dir, "made.dat")
		jobs := parseJobs(t, dir, fmt.Sprintf("[global]\nbs=4k\nfilename=%s\n[w]\nrw=write\nsize=64k\n[r]\nstonewall\ncreate_serialize=%s\nrw=read\n", f, serialize))
		res, err := Run(context.Background(), jobs, Options{})
		if err != nil {
			t.Fatalf("create_serialize=%s: %v", serialize, err)
		}
		if r := res.Jobs[1]; r.Error != 0 || r.Dirs[jobfile.DirRead].IOBytes != 64<<10 {
			t.Errorf("create_serialize=%s: reader error %d, %d bytes read, want 65536", serialize, r.Error, r.Dirs[jobfile.DirRead].IOBytes)
		}
	}
}
