package e4defrag

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/internal/mounttest"
	"github.com/gofio/gofio/jobfile"
)

func TestMoveExtents(t *testing.T) {
	mnt := mounttest.Ext4(t, 64)
	path := filepath.Join(mnt, "file1")
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	for _, inplace := range []bool{false, true} {
		job := &jobfile.Job{Size: 1 << 20, Directory: []string{mnt}}
		job.SetEngineConfig(&Options{DonorName: "file.def", InPlace: inplace})
		e, err := Open(engines.Setup{Job: job, Files: []int{int(f.Fd())}, Depth: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		out := make([]engines.Completion, 1)
		buf := make([]byte, 32<<10)
		for off := uint64(0); off < 1<<20; off += uint64(len(buf)) {
			e.Queue(0, &engines.Request{Op: engines.OpWrite, Offset: off, Buf: buf})
			e.Submit()
			e.Reap(out, 1)
			if out[0].Res != int32(len(buf)) {
				t.Fatalf("inplace=%v: move at %d: res %d", inplace, off, out[0].Res)
			}
		}
		e.Queue(0, &engines.Request{Op: engines.OpRead, Buf: buf})
		e.Submit()
		if e.Reap(out, 1); out[0].Res != -int32(unix.EINVAL) {
			t.Errorf("read: res %d, want EINVAL", out[0].Res)
		}
		e.Close()
		got, err := os.ReadFile(path)
		if err != nil || string(got) != string(data) {
			t.Fatalf("inplace=%v: defragmentation changed the file's data (%v)", inplace, err)
		}
	}
	if _, err := os.Stat(filepath.Join(mnt, "file.def")); err != nil {
		t.Errorf("donor file: %v", err)
	}
}

func TestNeedsDonor(t *testing.T) {
	if _, err := Open(engines.Setup{Job: &jobfile.Job{}, Depth: 1}); err == nil {
		t.Error("no donorname accepted")
	}
}
