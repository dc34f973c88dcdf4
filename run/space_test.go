package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/faultfs"
	"github.com/gofio/gofio/internal/mounttest"
	"github.com/gofio/gofio/jobfile"
)

// TestSpaceRefusedBeforeLayout runs jobs on an 8 MiB tmpfs: files that do
// not fit its free space are refused before any byte is written, naming
// file, size, free space and the option; only the missing part of an
// existing file counts, a file shared by two jobs counts once, and
// fill_device is exempt.
func TestSpaceRefusedBeforeLayout(t *testing.T) {
	dir := mounttest.Tmpfs(t, 8)
	pre := filepath.Join(dir, "pre")
	if err := os.WriteFile(pre, bytes.Repeat([]byte("gofio"), 6<<20/5), 0o644); err != nil {
		t.Fatal(err)
	}
	preSt, _ := os.Stat(pre)
	job := func(name string, rw jobfile.RW, size uint64, files ...string) *jobfile.Job {
		j := testJob(dir, name, rw, "psync")
		if len(files) > 0 {
			j.Filenames = files
		}
		j.NrFiles = len(j.Filenames)
		j.Size = size
		return j
	}
	twoFiles := job("two", jobfile.RWWrite, 0, filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	twoFiles.FileSizeMin, twoFiles.FileSizeMax = 1<<20, 1<<20
	twoFiles.Size = 2 << 20
	twoBig := job("twobig", jobfile.RWWrite, 0, filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	twoBig.FileSizeMin, twoBig.FileSizeMax = 3<<20, 3<<20
	twoBig.Size = 6 << 20
	fill := job("fill", jobfile.RWWrite, 64<<20)
	fill.FillDevice = true
	fill.Unlink = true
	tests := []struct {
		name string
		jobs []*jobfile.Job
		want []string // the refusal's words; nil: the run goes ahead
	}{
		// A read job's 64 MiB file on 8 MiB (less the 6 MiB of pre).
		{"new-file", []*jobfile.Job{job("big", jobfile.RWRead, 64<<20)},
			[]string{"job big: filename=" + filepath.Join(dir, "big.dat"), "laying it out to 64 MiB (size=64 MiB) needs 64 MiB", "has 2 MiB free", "space_check=0"}},
		// A writing job too: its writes fill what the layout sizes.
		{"write-job", []*jobfile.Job{job("w", jobfile.RWWrite, 4<<20)},
			[]string{"job w:", "(size=4 MiB) needs 4 MiB", "space_check=0"}},
		// Two files that fit one by one and not together.
		{"two-files", []*jobfile.Job{twoBig},
			[]string{"(filesize=3 MiB) needs 3 MiB", "the run's 2 files there need 6 MiB in all"}},
		// Extending pre from 6 to 10 MiB needs 4 MiB.
		{"extend", []*jobfile.Job{job("ext", jobfile.RWRead, 10<<20, pre)},
			[]string{"extending it from 6 MiB to 10 MiB (size=10 MiB) needs 4 MiB", "has 2 MiB free"}},
		// Two jobs on one 1 MiB file: counted once.
		{"shared", []*jobfile.Job{job("s1", jobfile.RWRead, 1536<<10, filepath.Join(dir, "s")), job("s2", jobfile.RWRead, 1536<<10, filepath.Join(dir, "s"))}, nil},
		{"two-fit", []*jobfile.Job{twoFiles}, nil},
		// From 6 to 7 MiB fits: only the missing part counts.
		{"extend-fits", []*jobfile.Job{job("ext", jobfile.RWRead, 7<<20, pre)}, nil},
		// fill_device is meant to fill the filesystem.
		{"fill-device", []*jobfile.Job{fill}, nil},
	}
	for _, tt := range tests {
		before := listNames(t, dir)
		res, err := Run(context.Background(), tt.jobs, Options{})
		if tt.want == nil {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			} else if r := res.Jobs[0]; r.Error != 0 && !tt.jobs[0].FillDevice {
				t.Errorf("%s: err=%d %s", tt.name, r.Error, r.ErrorText)
			}
			for _, j := range tt.jobs {
				for _, f := range j.Filenames {
					if f != pre {
						os.Remove(f)
					}
				}
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: ran; want the refusal", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tt.name, err, w)
			}
		}
		if after := listNames(t, dir); after != before {
			t.Errorf("%s: the refused run changed %s: %s, was %s", tt.name, dir, after, before)
		}
		if st, _ := os.Stat(pre); st.Size() != preSt.Size() || !st.ModTime().Equal(preSt.ModTime()) {
			t.Errorf("%s: %s changed", tt.name, pre)
		}
	}
	// space_check=0 lets the layout go on, as fio's.
	j := job("big", jobfile.RWWrite, 64<<20)
	j.NoSpaceCheck = true
	j.Fallocate = "none"
	j.Unlink = true
	if _, err := Run(context.Background(), []*jobfile.Job{j}, Options{}); err != nil {
		t.Errorf("space_check=0: %v", err)
	}
}

// listNames lists dir's entries with their sizes.
func listNames(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range es {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s:%d:%d ", e.Name(), info.Size(), info.ModTime().UnixNano())
	}
	return b.String()
}

// TestLayoutENOSPCRemovesPartial lays out, with space_check=0, files far
// bigger than an 8 MiB tmpfs: ENOSPC ends the job with fio's error and
// its stdout line; the file the layout created is removed and the notes
// say so; a file that existed before is neither removed nor truncated,
// and one the job did not reach is untouched.
func TestLayoutENOSPCRemovesPartial(t *testing.T) {
	dir := mounttest.Tmpfs(t, 8)
	keep := filepath.Join(dir, "keep")
	short := filepath.Join(dir, "short")
	data := bytes.Repeat([]byte("before"), 1000)
	for _, p := range []string{keep, short} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	keepSt, _ := os.Stat(keep)
	newFile := filepath.Join(dir, "new")

	j := testJob(dir, "big", jobfile.RWRead, "psync")
	j.Filenames, j.NrFiles = []string{newFile, keep}, 2
	j.Size = 2 * (64 << 20)
	j.NoSpaceCheck = true
	j2 := testJob(dir, "ext", jobfile.RWRead, "psync")
	j2.Filenames = []string{short}
	j2.Size = 64 << 20
	j2.NoSpaceCheck = true

	var info, warn bytes.Buffer
	res, err := Run(context.Background(), []*jobfile.Job{j, j2}, Options{Info: &info, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Jobs {
		if r.Error != int(unix.ENOSPC) || r.ErrorText != "func=write, error=No space left on device" {
			t.Errorf("%s: err=%d %q; want fio's ENOSPC on write", r.Name, r.Error, r.ErrorText)
		}
	}
	if n := strings.Count(info.String(), "fio: ENOSPC on laying out file, stopping\n"); n != 2 {
		t.Errorf("stdout has %d ENOSPC lines, want 2:\n%s", n, info.String())
	}
	if _, err := os.Stat(newFile); !os.IsNotExist(err) {
		t.Errorf("the partial %s is still there (%v)", newFile, err)
	}
	note := "removed " + newFile + ", which this run created and whose layout failed"
	if r := res.Jobs[0]; len(r.EngineNotes) != 1 || r.EngineNotes[0] != note {
		t.Errorf("notes %q, want %q", r.EngineNotes, note)
	}
	if !strings.Contains(warn.String(), "no space left on device; "+note) {
		t.Errorf("warnings lack the removal:\n%s", warn.String())
	}
	if st, err := os.Stat(keep); err != nil || st.Size() != keepSt.Size() || !st.ModTime().Equal(keepSt.ModTime()) {
		t.Errorf("%s changed: %v %v", keep, st, err)
	}
	got, err := os.ReadFile(short)
	if err != nil || len(got) <= len(data) || !bytes.Equal(got[:len(data)], data) {
		t.Errorf("%s: %d bytes, %v; want it extended, its data kept", short, len(got), err)
	}
	if r := res.Jobs[1]; len(r.EngineNotes) != 0 {
		t.Errorf("the pre-existing file's job has notes %q", r.EngineNotes)
	}
}

// TestLayoutStopsOnCancel cancels the run while a read job lays out a
// file on a FUSE target that sleeps 20 ms on every 128 KiB write: the run
// returns within a second, the partial file gofio created is removed,
// and the job is reported without I/O or error, its notes saying what
// was removed.
func TestLayoutStopsOnCancel(t *testing.T) {
	x := faultfs.MountT(t, faultfs.Options{Absent: true})
	x.Delay(faultfs.Write, 20*time.Millisecond, 1)
	j := testJob("", "slow", jobfile.RWRead, "psync")
	j.Filenames = []string{x.Path()}
	j.Size = 64 << 20
	j.Fallocate = "none"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var warn bytes.Buffer
	done := make(chan struct{})
	var stopped time.Time
	go func() {
		defer close(done)
		for x.Counts().Writes < 4 {
			time.Sleep(5 * time.Millisecond)
		}
		stopped = time.Now()
		cancel()
	}()
	res, err := Run(ctx, []*jobfile.Job{j}, Options{Warn: &warn})
	took := time.Since(stopped)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if took > time.Second {
		t.Errorf("the layout went on %v after the stop", took)
	}
	if _, err := os.Stat(x.Path()); !os.IsNotExist(err) {
		t.Errorf("the partial file is still there (%v)", err)
	}
	if c := x.Counts(); c.Creates != 1 || c.Unlinks != 1 || c.WriteBytes >= 64<<20 {
		t.Errorf("faultfs counts %+v; want the file created, written in part and removed", c)
	}
	if res.Signal != "interrupt" || len(res.Jobs) != 1 {
		t.Fatalf("signal %q, %d jobs", res.Signal, len(res.Jobs))
	}
	r := res.Jobs[0]
	note := "removed " + x.Path() + ", which this run created and whose layout stopped"
	if r.Error != 0 || r.Dirs[0].TotalIOs != 0 || len(r.EngineNotes) != 1 || r.EngineNotes[0] != note {
		t.Errorf("err=%d ios=%d notes %q; want no error, no I/O, %q", r.Error, r.Dirs[0].TotalIOs, r.EngineNotes, note)
	}
	if !strings.Contains(warn.String(), note) {
		t.Errorf("warnings lack the removal:\n%s", warn.String())
	}
}

// TestLayoutEDQUOTRemovesPartial lays out a read job's file on a FUSE
// target whose quota runs out after 1 MiB: EDQUOT ends the job with fio's
// "EDQUOT on laying out file, stopping" and err=122, and the partial file
// the layout created is removed.
func TestLayoutEDQUOTRemovesPartial(t *testing.T) {
	x := faultfs.MountT(t, faultfs.Options{Absent: true})
	x.QuotaAfter(1 << 20)
	j := testJob("", "quota", jobfile.RWRead, "psync")
	j.Filenames = []string{x.Path()}
	j.Size = 8 << 20
	j.Fallocate = "none"
	var info bytes.Buffer
	res, err := Run(context.Background(), []*jobfile.Job{j}, Options{Info: &info})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Jobs[0]; r.Error != int(unix.EDQUOT) || r.ErrorText != "func=write, error=Disk quota exceeded" {
		t.Errorf("err=%d %q; want EDQUOT on write", r.Error, r.ErrorText)
	}
	if !strings.Contains(info.String(), "fio: EDQUOT on laying out file, stopping\n") {
		t.Errorf("stdout lacks fio's EDQUOT line:\n%s", info.String())
	}
	if c := x.Counts(); c.Creates != 1 || c.Unlinks != 1 {
		t.Errorf("faultfs counts %+v; want the file created and removed", c)
	}
}
