package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/iolog"
	"github.com/gofio/gofio/internal/loopdev"
	"github.com/gofio/gofio/jobfile"
)

// TestReplayV3Timing replays a version 3 log whose I/Os are 100 ms
// apart on a fake clock: the replay sleeps the gaps (scaled by
// replay_time_scale), and not at all with replay_no_stall.
func TestReplayV3Timing(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.WriteFile(data, make([]byte, 64<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "t.log")
	text := fmt.Sprintf("fio version 3 iolog\n0 %[1]s add\n10 %[1]s open\n20 %[1]s read 0 4096\n100020 %[1]s read 4096 4096\n200020 %[1]s write 8192 8192\n300020 %[1]s read 0 16384\n300030 %[1]s close\n", data)
	if err := os.WriteFile(log, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opts     string
		min, max time.Duration
	}{
		{"", 299 * time.Millisecond, 301 * time.Millisecond},
		{"replay_time_scale=200\n", 149 * time.Millisecond, 151 * time.Millisecond},
		{"replay_no_stall=1\n", 0, 0},
	} {
		jobs := parseJobs(t, dir, "[r]\nioengine=psync\nread_iolog="+log+"\n"+c.opts)
		clock := &fakeClock{step: 1}
		res := mustRun(t, jobs, clock.opts()).Jobs[0]
		if got := time.Duration(clock.slept.Load()); got < c.min || got > c.max {
			t.Errorf("%q: slept %v, want %v..%v", c.opts, got, c.min, c.max)
		}
		r, w := res.Dirs[jobfile.DirRead], res.Dirs[jobfile.DirWrite]
		if r.TotalIOs != 3 || r.IOBytes != 24576 || w.TotalIOs != 1 || w.IOBytes != 8192 {
			t.Errorf("%q: read %d/%d write %d/%d", c.opts, r.TotalIOs, r.IOBytes, w.TotalIOs, w.IOBytes)
		}
	}
}

// TestWriteThenReplay writes an iolog of a job and replays it in the
// same run (the log is read when the replay starts, as fio does): the
// replay issues what the job issued, and the log has fio's lines.
func TestWriteThenReplay(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "w.log")
	jobs := parseJobs(t, dir, fmt.Sprintf("[w]\nioengine=psync\nrw=randrw\nbs=4k\nsize=64k\nfsync=3\nfilename=%s/data\nwrite_iolog=%s\n[r]\nstonewall\nioengine=psync\nread_iolog=%s\n", dir, log, log))
	res := mustRun(t, jobs, Options{})
	w, r := res.Jobs[0], res.Jobs[1]
	for d := jobfile.DirRead; d <= jobfile.DirWrite; d++ {
		if w.Dirs[d].TotalIOs != r.Dirs[d].TotalIOs || w.Dirs[d].IOBytes != r.Dirs[d].IOBytes {
			t.Errorf("%s: job %d I/Os %d bytes, replay %d I/Os %d bytes", d, w.Dirs[d].TotalIOs, w.Dirs[d].IOBytes, r.Dirs[d].TotalIOs, r.Dirs[d].IOBytes)
		}
	}
	if w.SyncIOs == 0 || w.SyncIOs != r.SyncIOs {
		t.Errorf("syncs: job %d, replay %d", w.SyncIOs, r.SyncIOs)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "fio version 3 iolog" || !strings.HasSuffix(lines[1], " "+dir+"/data add") ||
		!strings.HasSuffix(lines[2], " "+dir+"/data open") || !strings.HasSuffix(lines[len(lines)-1], " "+dir+"/data close") {
		t.Errorf("log head/tail:\n%s", b)
	}
	ios := uint64(len(lines) - 4)
	if want := w.Dirs[0].TotalIOs + w.Dirs[1].TotalIOs + w.SyncIOs; ios != want {
		t.Errorf("log has %d I/O lines, the job issued %d", ios, want)
	}
	if !bytes.Contains(b, []byte(" sync ")) {
		t.Errorf("no sync line:\n%s", b)
	}
}

// TestWriteIologZeroAllocsPerIO proves write_iolog= adds no allocation
// per I/O: a run of 16k logged I/Os allocates no more than one of 1k.
func TestWriteIologZeroAllocsPerIO(t *testing.T) {
	dir := t.TempDir()
	for _, depth := range []int{1, 64} {
		allocs := func(n uint64) float64 {
			return testing.AllocsPerRun(3, func() {
				j := nullJob(t, n, depth, true)
				j.IOLog.Write = filepath.Join(dir, "w.log")
				os.Remove(j.IOLog.Write)
				if _, err := Run(context.Background(), []*jobfile.Job{j}, Options{}); err != nil {
					t.Fatal(err)
				}
			})
		}
		small, big := allocs(1<<10), allocs(1<<14)
		for i := 0; i < 2; i++ {
			small, big = min(small, allocs(1<<10)), min(big, allocs(1<<14))
		}
		if big > small+16 {
			t.Errorf("depth %d: %.0f allocs for 16k logged I/Os vs %.0f for 1k: logging allocates", depth, big, small)
		}
		b, err := os.ReadFile(filepath.Join(dir, "w.log"))
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte(" read ")); n != 1<<14 {
			t.Errorf("depth %d: %d read lines, want %d", depth, n, 1<<14)
		}
	}
}

// TestReplayRefusesMountedWrite: a replay whose log writes a block
// device is refused by the mounted-device check (a stand-in here, on an
// unmounted loop device), before anything is opened; a log that only
// reads the device runs.
func TestReplayRefusesMountedWrite(t *testing.T) {
	d := loopdev.New(t, 4<<20)
	before := d.Hash(t)
	mounted := func(p string) error { return errors.New(p + " appears mounted") }
	dir := t.TempDir()
	for _, c := range []struct {
		log     string
		refused bool
	}{
		{"fio version 2 iolog\nDEV add\nDEV open\nDEV read 0 4096\nDEV write 4096 4096\nDEV close\n", true},
		{"fio version 2 iolog\nDEV add\nDEV open\nDEV read 0 4096\nDEV close\n", false},
	} {
		p := filepath.Join(dir, "l.log")
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(c.log, "DEV", d.Path)), 0o644); err != nil {
			t.Fatal(err)
		}
		jobs := parseJobs(t, dir, "[r]\nioengine=psync\nread_iolog="+p+"\n")
		_, err := Run(context.Background(), jobs, Options{CheckMountedWrite: mounted})
		if c.refused != (err != nil && strings.Contains(err.Error(), "appears mounted")) {
			t.Errorf("refused=%v: error %v", c.refused, err)
		}
	}
	if d.Hash(t) != before {
		t.Fatal("the device changed")
	}
}

// TestBlktraceFindsDevice replays a blktrace of reads without
// replay_redirect: the device is found under /dev by its major and minor
// (a loop device here), and the trace's reads are issued there.
func TestBlktraceFindsDevice(t *testing.T) {
	d := loopdev.New(t, 4<<20)
	var st unix.Stat_t
	if err := unix.Stat(d.Path, &st); err != nil {
		t.Fatal(err)
	}
	dev := unix.Major(uint64(st.Rdev))<<20 | unix.Minor(uint64(st.Rdev))
	var trace []byte
	for i := 0; i < 8; i++ {
		trace = append(trace, iolog.EncodeTrace(iolog.Read, uint64(1000+i*1000), uint64(i*8), 4096, dev)...)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "t.bin")
	if err := os.WriteFile(p, trace, 0o644); err != nil {
		t.Fatal(err)
	}
	jobs := parseJobs(t, dir, "[b]\nioengine=psync\nread_iolog="+p+"\n")
	all := mustRun(t, jobs, Options{})
	res := all.Jobs[0]
	if r := res.Dirs[jobfile.DirRead]; r.TotalIOs != 8 || r.IOBytes != 8*4096 {
		t.Errorf("read %d I/Os, %d bytes; want 8, 32768", r.TotalIOs, r.IOBytes)
	}
	if len(all.Disks) == 0 || all.Disks[0].Name != filepath.Base(d.Path) {
		t.Errorf("disk stats %+v: want %s", all.Disks, filepath.Base(d.Path))
	}
}

// TestWriteIologVerifyPhase: write_iolog records the verify phase's
// reads, after closing the file and opening it again, as fio does.
func TestWriteIologVerifyPhase(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "w.log")
	jobs := parseJobs(t, dir, fmt.Sprintf("[w]\nioengine=psync\nrw=randwrite\nbs=4k\nsize=64k\nverify=crc32c\nfilename=%s/data\nwrite_iolog=%s\n", dir, log))
	res := mustRun(t, jobs, Options{}).Jobs[0]
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var acts []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		f := strings.Fields(l)
		acts = append(acts, f[2])
	}
	want := "add open " + strings.Repeat("write ", 16) + "close open " + strings.Repeat("read ", 16) + "close"
	if got := strings.Join(acts, " "); got != want {
		t.Errorf("log actions:\n%s\nwant\n%s", got, want)
	}
	if res.Dirs[jobfile.DirRead].TotalIOs != 16 {
		t.Errorf("%d verify reads", res.Dirs[jobfile.DirRead].TotalIOs)
	}
}

// TestWriteIologLoops: at the end of a loop fio finds every file done
// and closes it, then opens each again before its first I/O.
func TestWriteIologLoops(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "w.log")
	jobs := parseJobs(t, dir, fmt.Sprintf("[w]\nioengine=psync\nrw=read\nbs=4k\nsize=16k\nnrfiles=2\nloops=2\ndirectory=%s\nwrite_iolog=%s\n", dir, log))
	mustRun(t, jobs, Options{})
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var acts []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		f := strings.Fields(l)
		acts = append(acts, f[1][len(f[1])-1:]+":"+f[2])
	}
	want := "0:add 1:add 0:open 0:read 1:open 1:read 0:read 1:read 0:close 1:close 0:open 0:read 1:open 1:read 0:read 1:read 0:close 1:close"
	if got := strings.Join(acts, " "); got != want {
		t.Errorf("log:\n%s\nwant\n%s", got, want)
	}
}

// TestBlktraceTrims replays a blktrace of discards and writes onto a
// loop device: the discards are trims (fio replays them from a
// blktrace), and replay_skip=trim leaves them out.
func TestBlktraceTrims(t *testing.T) {
	d := loopdev.New(t, 8<<20)
	var trace []byte
	for i := 0; i < 10; i++ {
		k := iolog.Trim
		if i%2 == 1 {
			k = iolog.Write
		}
		trace = append(trace, iolog.EncodeTrace(k, uint64(1000+i*1000), uint64(i*64), 4096*uint32(1+i%4), 7<<20|99)...)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "t.bin")
	if err := os.WriteFile(p, trace, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		extra string
		trims uint64
	}{{"", 5}, {"replay_skip=trim\n", 0}} {
		jobs := parseJobs(t, dir, "[b]\nioengine=psync\nread_iolog="+p+"\nreplay_redirect="+d.Path+"\n"+c.extra)
		res := mustRun(t, jobs, Options{}).Jobs[0]
		if tr, w := res.Dirs[jobfile.DirTrim], res.Dirs[jobfile.DirWrite]; tr.TotalIOs != c.trims || w.TotalIOs != 5 {
			t.Errorf("%q: %d trims, %d writes; want %d, 5", c.extra, tr.TotalIOs, w.TotalIOs, c.trims)
		}
	}
}
