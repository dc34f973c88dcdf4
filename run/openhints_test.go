package run

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/faultfs"
	"github.com/gofio/gofio/jobfile"
)

// TestFadviseHint records the advice each open gives, as fio's
// td_io_open_file: fadvise_hint=1 (fio's default) advises RANDOM for a
// random pattern and SEQUENTIAL otherwise, over the job's region;
// random and sequential are given as named; 0 gives none. A failing
// fadvise is reported once and the job runs.
func TestFadviseHint(t *testing.T) {
	type call struct {
		off, n int64
		advice int
	}
	tests := []struct {
		hint string
		rw   jobfile.RW
		want []call
	}{
		{"1", jobfile.RWRandRead, []call{{4096, 60 << 10, unix.FADV_RANDOM}}},
		{"1", jobfile.RWWrite, []call{{4096, 60 << 10, unix.FADV_SEQUENTIAL}}},
		{"sequential", jobfile.RWRandRead, []call{{4096, 60 << 10, unix.FADV_SEQUENTIAL}}},
		{"random", jobfile.RWRead, []call{{4096, 60 << 10, unix.FADV_RANDOM}}},
		{"0", jobfile.RWRead, nil},
	}
	for _, tt := range tests {
		var mu sync.Mutex
		var got []call
		fadvise := func(fd int, off, n int64, advice int) error {
			mu.Lock()
			got = append(got, call{off, n, advice})
			mu.Unlock()
			return nil
		}
		j := testJob(t.TempDir(), "fa", tt.rw, "psync")
		j.FadviseHint, j.Offset, j.Size = tt.hint, 4096, 60<<10
		mustRun(t, []*jobfile.Job{j}, Options{fadvise: fadvise})
		if len(got) != len(tt.want) || (len(got) > 0 && got[0] != tt.want[0]) {
			t.Errorf("fadvise_hint=%s rw=%s: calls %v, want %v", tt.hint, tt.rw, got, tt.want)
		}
	}
	var warn strings.Builder
	failing := func(int, int64, int64, int) error { return unix.EINVAL }
	j := testJob(t.TempDir(), "fa", jobfile.RWRead, "psync")
	j.FadviseHint, j.NrFiles = "1", 2
	j.Filenames = append(j.Filenames, j.Filenames[0]+".2")
	res := mustRun(t, []*jobfile.Job{j}, Options{fadvise: failing, Warn: &warn})
	if n := strings.Count(warn.String(), "fio: fadvise hint failed\n"); n != 1 || res.Jobs[0].Error != 0 {
		t.Errorf("failing fadvise: %d warnings, err=%d; want 1 and the job run\n%s", n, res.Jobs[0].Error, warn.String())
	}
}

// TestWriteHint sets write_hint as fio does: on the inode of a buffered
// file (F_SET_RW_HINT, which F_GET_RW_HINT reads back), and on the open
// file with direct=1 (F_SET_FILE_RW_HINT), which this kernel refuses:
// the job then ends with EINVAL, func=fcntl write hint, as fio's.
func TestWriteHint(t *testing.T) {
	j := testJob(t.TempDir(), "wh", jobfile.RWWrite, "psync")
	j.WriteHint = 3 // medium
	if r := mustRun(t, []*jobfile.Job{j}, Options{}).Jobs[0]; r.Error != 0 {
		t.Fatalf("buffered: err=%d %s", r.Error, r.ErrorText)
	}
	fd, err := unix.Open(j.Filenames[0], unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var hint uint64
	const fGetRWHint = 1035
	if _, _, e := unix.Syscall(unix.SYS_FCNTL, uintptr(fd), fGetRWHint, uintptr(unsafe.Pointer(&hint))); e != 0 || hint != 3 {
		t.Errorf("F_GET_RW_HINT: %d, %v; want 3", hint, e)
	}
	j = testJob(t.TempDir(), "whd", jobfile.RWWrite, "psync")
	j.WriteHint, j.Direct = 4, true
	res, err := Run(context.Background(), []*jobfile.Job{j}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Jobs[0]
	if !errors.Is(unix.Errno(r.Error), unix.EINVAL) || r.ErrorText != "func=fcntl write hint, error=Invalid argument" {
		t.Errorf("direct=1: err=%d %q; want EINVAL from fcntl write hint (Linux 5.17 dropped F_SET_FILE_RW_HINT)", r.Error, r.ErrorText)
	}
}

// TestPreRead reads each file's region once before the job's I/O, as
// fio's pre_read_files: a writing job on a FUSE file reads it all (256
// KiB in 4 KiB pieces) before writing, and a short file ends the job
// with EIO, func=pre_read.
func TestPreRead(t *testing.T) {
	x := faultfs.MountT(t, faultfs.Options{Size: 256 << 10})
	j := fuseJob(x, "pr", jobfile.RWWrite, "psync", 256<<10, 1)
	j.PreRead = true
	if r := runFault(t, j).Jobs[0]; r.Error != 0 || r.Dirs[jobfile.DirWrite].IOBytes != 256<<10 {
		t.Fatalf("err=%d %s, wrote %d", r.Error, r.ErrorText, r.Dirs[jobfile.DirWrite].IOBytes)
	}
	if c := x.Counts(); c.ReadBytes != 256<<10 || c.Reads != 64 {
		t.Errorf("pre_read: %d reads of %d bytes in all, want 64 reads of 256 KiB", c.Reads, c.ReadBytes)
	}
	x.FailAt(faultfs.Read, 128<<10, 4096)
	j = fuseJob(x, "pr-eio", jobfile.RWRead, "psync", 256<<10, 1)
	j.PreRead = true
	if r := runFault(t, j).Jobs[0]; r.Error != int(unix.EIO) || !strings.HasPrefix(r.ErrorText, "func=pre_read,") {
		t.Errorf("failing pre_read: err=%d %q; want EIO, func=pre_read", r.Error, r.ErrorText)
	}
}
