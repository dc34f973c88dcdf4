package zbd

import (
	"slices"
	"strings"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

const (
	kib = 1 << 10
	mib = 1 << 20
)

// newTest returns a device of nz zones of 1 MiB (maxOpen open at most) and
// a job over all of it with 64 KiB blocks.
func newTest(t *testing.T, nz uint64, maxOpen int, c Config) (*Device, *Job) {
	t.Helper()
	d, err := NewDevice("f", nz*mib, mib, 0, maxOpen)
	if err != nil {
		t.Fatal(err)
	}
	for dir := range c.MinBS {
		if c.MinBS[dir] == 0 {
			c.MinBS[dir] = 64 * kib
		}
	}
	j := NewJob(c)
	if err := j.AddFile(d, "f", 0, nz*mib, nz*mib, maxOpen); err != nil {
		t.Fatal(err)
	}
	j.FileReset(0)
	return d, j
}

// issue adjusts and commits one I/O as the generator does.
func issue(j *Job, dir jobfile.Dir, off, n uint64) (uint64, uint64, bool) {
	off, n, ok := j.Adjust(0, 0, dir, off, n)
	if ok {
		j.Commit(0, dir, off, n)
	}
	return off, n, ok
}

// TestWritesAtWritePointer checks that a write lands at its zone's write
// pointer wherever it was drawn, moves the pointer past itself, and that
// a write to a full zone resets it first (one reset, counted).
func TestWritesAtWritePointer(t *testing.T) {
	d, j := newTest(t, 4, 0, Config{Write: true, Random: true})
	for k := uint64(0); k < 16; k++ {
		off, n, ok := issue(j, jobfile.DirWrite, 2*mib+(k*7%16)*64*kib, 64*kib)
		if !ok || off != 2*mib+k*64*kib || n != 64*kib {
			t.Fatalf("write %d went to %d+%d (ok %v), want the write pointer %d", k, off, n, ok, 2*mib+k*64*kib)
		}
	}
	if wp := d.WritePointer(2 * mib); wp != 3*mib || j.Resets != 0 {
		t.Fatalf("full zone: wp %d, resets %d", wp, j.Resets)
	}
	off, _, ok := issue(j, jobfile.DirWrite, 2*mib+512*kib, 64*kib)
	if !ok || off != 2*mib || j.Resets != 1 || d.WritePointer(2*mib) != 2*mib+64*kib {
		t.Errorf("write to a full zone: at %d (ok %v), resets %d, wp %d; want a reset and the zone's start", off, ok, j.Resets, d.WritePointer(2*mib))
	}
	// A write longer than what is left below the zone's capacity is
	// cut to whole blocks; one that cannot fit a block fails the job.
	d2, err := NewDevice("g", 2*mib, mib, 960*kib, 0)
	if err != nil {
		t.Fatal(err)
	}
	j2 := NewJob(Config{Write: true, MinBS: [3]uint64{4 * kib, 4 * kib, 4 * kib}})
	if err := j2.AddFile(d2, "g", 0, 2*mib, 2*mib, 0); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 15; k++ {
		issue(j2, jobfile.DirWrite, 0, 64*kib)
	}
	if _, _, ok := issue(j2, jobfile.DirWrite, 0, 64*kib); !ok || j2.Resets != 1 {
		t.Errorf("write past a 960 KiB capacity: ok %v, resets %d; want a reset", ok, j2.Resets)
	}
}

// TestReadsBelowWritePointer checks reads: with nothing written a read
// finds no zone (the job's I/O ends); a read is moved into a zone with
// data and cut at its write pointer; read_beyond_wp takes any offset.
func TestReadsBelowWritePointer(t *testing.T) {
	_, j := newTest(t, 4, 0, Config{Read: true, Write: true})
	if _, _, ok := issue(j, jobfile.DirRead, 0, 64*kib); ok {
		t.Fatal("read of empty zones accepted")
	}
	if d := j.AdjustDir(0, jobfile.DirRead); d != jobfile.DirWrite {
		t.Errorf("first direction of a mixed job on empty zones: %s, want write", d)
	}
	issue(j, jobfile.DirWrite, mib, 64*kib)
	issue(j, jobfile.DirWrite, mib, 64*kib)
	off, n, ok := issue(j, jobfile.DirRead, 0, 64*kib)
	if !ok || off != mib || n != 64*kib {
		t.Errorf("sequential read from an empty zone: %d+%d (ok %v), want the next zone with data at %d", off, n, ok, mib)
	}
	if off, n, ok = issue(j, jobfile.DirRead, mib, 256*kib); !ok || off != mib || n != 128*kib {
		t.Errorf("read across the write pointer: %d+%d (ok %v), want %d+%d", off, n, ok, mib, 128*kib)
	}
	_, beyond := newTest(t, 4, 0, Config{Read: true, ReadBeyondWP: true})
	if off, n, ok := issue(beyond, jobfile.DirRead, 3*mib, 64*kib); !ok || off != 3*mib || n != 64*kib {
		t.Errorf("read_beyond_wp: %d+%d (ok %v)", off, n, ok)
	}
}

// TestOpenZoneLimits checks max_open_zones and job_max_open_zones: no
// more zones than the limit are open, a write drawn elsewhere goes to an
// open zone, and a zone leaves the list once full.
func TestOpenZoneLimits(t *testing.T) {
	d, j := newTest(t, 8, 2, Config{Write: true, Random: true})
	issue(j, jobfile.DirWrite, 0, 64*kib)
	issue(j, jobfile.DirWrite, 5*mib, 64*kib)
	if o := d.OpenZones(); len(o) != 2 || o[0] != 0 || o[1] != 5 {
		t.Fatalf("open zones %v, want [0 5]", o)
	}
	off, _, ok := issue(j, jobfile.DirWrite, 7*mib, 64*kib)
	if !ok || (off != 64*kib && off != 5*mib+64*kib) {
		t.Errorf("write drawn in a third zone went to %d (ok %v), want an open zone's write pointer", off, ok)
	}
	if o := d.OpenZones(); len(o) != 2 {
		t.Errorf("open zones %v after a write beyond the limit", o)
	}
	for d.WritePointer(0) < mib {
		issue(j, jobfile.DirWrite, 0, 64*kib)
	}
	if o := d.OpenZones(); len(o) != 1 || o[0] != 5 {
		t.Errorf("open zones %v once zone 0 is full, want [5]", o)
	}
	if _, err := NewDevice("f", 8*mib, mib, 0, MaxOpenZones+1); err == nil {
		t.Error("max_open_zones above fio's limit accepted")
	}
	jj := NewJob(Config{Write: true, JobMaxOpen: 1})
	if err := jj.AddFile(d, "f", 0, 8*mib, 8*mib, 0); err != nil {
		t.Fatal(err)
	}
	dd, _ := NewDevice("h", 8*mib, mib, 0, 0)
	if err := NewJob(Config{JobMaxOpen: 1}).AddFile(dd, "h", 0, 8*mib, 8*mib, 0); err == nil || !strings.Contains(err.Error(), "without a global open zones limit") {
		t.Errorf("job_max_open_zones without max_open_zones: %v", err)
	}
}

// TestAsyncClose checks a job on an asynchronous engine: a write that
// fills its zone leaves it open until it completes (End), and a reset
// first waits for the I/O in flight.
func TestAsyncClose(t *testing.T) {
	d, j := newTest(t, 4, 2, Config{Write: true})
	waits := 0
	j.SetQuiesce(func() bool { waits++; return false }, true)
	for k := 0; k < 16; k++ {
		issue(j, jobfile.DirWrite, 0, 64*kib)
	}
	if o := d.OpenZones(); len(o) != 1 || o[0] != 0 {
		t.Fatalf("open zones %v with the last write in flight, want [0]", o)
	}
	j.End(0, jobfile.DirWrite, 15*64*kib, 64*kib, false)
	if o := d.OpenZones(); len(o) != 0 {
		t.Errorf("open zones %v after the last write completed, want none", o)
	}
	issue(j, jobfile.DirWrite, 0, 64*kib)
	if waits == 0 || j.Resets != 1 {
		t.Errorf("reset of a full zone: %d waits, %d resets; want a wait and a reset", waits, j.Resets)
	}
}

// TestResetThreshold checks zone_reset_threshold and
// zone_reset_frequency: once the data written reaches the threshold's
// share of the region, every 1/frequency-th write resets its zone first.
func TestResetThreshold(t *testing.T) {
	_, j := newTest(t, 4, 0, Config{Write: true, ResetThreshold: 0.25, ResetFrequency: 0.5})
	for k := 0; k < 16; k++ { // 1 MiB: the threshold
		issue(j, jobfile.DirWrite, 0, 64*kib)
	}
	if j.Resets != 0 {
		t.Fatalf("%d resets below the threshold", j.Resets)
	}
	for k := 0; k < 8; k++ {
		issue(j, jobfile.DirWrite, 2*mib, 64*kib)
	}
	// Past the threshold (1 MiB of 4) the count of 1/0.5 = 2 writes runs
	// down on each write and resets the written zone on every second
	// one: 4 resets in 8 writes to the zone at 2 MiB, which holds one
	// block after each.
	if j.Resets != 4 {
		t.Errorf("%d resets in 8 writes past the threshold, want 4", j.Resets)
	}
}

// TestDeviceErrors checks fio's refusals of a zone setup: no zone size, a
// zone below 512 bytes, a capacity above the size, a target smaller than
// a zone (a missing file is 0 bytes), and a region that is not a zone.
func TestDeviceErrors(t *testing.T) {
	for _, c := range []struct {
		size, zs, zcap uint64
		want           string
	}{
		{mib, 0, 0, "Specifying the zone size is mandatory"},
		{mib, 256, 0, "at least 512 bytes"},
		{mib, mib, 2 * mib, "larger than zone size"},
		{0, mib, 0, "file/device size 0 is smaller than zone size 1048576"},
	} {
		if _, err := NewDevice("f", c.size, c.zs, c.zcap, 0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c, err, c.want)
		}
	}
	d, _ := NewDevice("f", 16*mib, mib, 0, 0)
	c := Config{}
	base, size, notes, err := c.Align(d, "f", mib, 100*kib, 3*mib, 16*mib)
	if err != nil || base != mib || size != 2*mib || len(notes) != 2 {
		t.Errorf("align 100k+3m: %d+%d %q %v, want 1m+2m", base, size, notes, err)
	}
	if _, _, _, err := c.Align(d, "f", mib, 100*kib, mib, 16*mib); err == nil || !strings.Contains(err.Error(), "io_size must be at least one zone") {
		t.Errorf("align 100k+1m: %v", err)
	}
	seq := Config{SeqReadOnly: true}
	if base, size, _, err := seq.Align(d, "f", mib, 100*kib, mib, 16*mib); err != nil || base != 100*kib || size != mib {
		t.Errorf("rw=read is not aligned: %d+%d %v", base, size, err)
	}
}

// TestSetupSequential checks setup_zbd_zone_mode: a sequential writer at
// the capacity end of a zone jumps to the next zone, and with zoneskip a
// sequential job done with a zone moves its region on by the zone size
// plus the skip, wrapping to its start past the end of the file.
func TestSetupSequential(t *testing.T) {
	d, err := NewDevice("f", 4*mib, mib, 768*kib, 0)
	if err != nil {
		t.Fatal(err)
	}
	j := NewJob(Config{Write: true, MinBS: [3]uint64{64 * kib, 64 * kib, 64 * kib}})
	if err := j.AddFile(d, "f", 0, 4*mib, 4*mib, 0); err != nil {
		t.Fatal(err)
	}
	last, base, zb := uint64(768*kib), uint64(0), uint64(0)
	j.Setup(0, jobfile.DirWrite, &last, &base, 0, &zb)
	if last != mib {
		t.Errorf("at the capacity end of zone 0: next at %d, want %d", last, mib)
	}
	d2, _ := NewDevice("g", 4*mib, mib, 0, 0)
	k := NewJob(Config{Write: true, ZoneSkip: mib, MinBS: [3]uint64{64 * kib, 64 * kib, 64 * kib}})
	if err := k.AddFile(d2, "g", 0, 4*mib, 4*mib, 0); err != nil {
		t.Fatal(err)
	}
	last, base, zb = mib, 0, mib
	k.Setup(0, jobfile.DirWrite, &last, &base, 0, &zb)
	if base != 2*mib || last != 2*mib || zb != 0 {
		t.Errorf("zoneskip=1m after zone 0: base %d, next %d, zone bytes %d; want 2m, 2m, 0", base, last, zb)
	}
	last, zb = 3*mib, mib
	k.Setup(0, jobfile.DirWrite, &last, &base, 0, &zb)
	if base != 0 || last != 0 {
		t.Errorf("zoneskip past the end: base %d, next %d; want the start, 0", base, last)
	}
}

// TestWriteRemainder checks fio 3.42's write_zone_remainder: with 48 KiB
// blocks a 1 MiB zone takes 21 of them, and its last 16 KiB go in one
// shorter write, after which the zone is full and the next write resets
// it; without the option the zone is full with 16 KiB left, as fio 3.33.
func TestWriteRemainder(t *testing.T) {
	for _, remainder := range []bool{false, true} {
		c := Config{Write: true, WriteRemainder: remainder, MinBS: [jobfile.NumDirs]uint64{48 * kib, 48 * kib, 48 * kib}}
		_, j := newTest(t, 1, 0, c)
		var lens []uint64
		for k := 0; k < 23; k++ {
			off, n, ok := issue(j, jobfile.DirWrite, 0, 48*kib)
			if !ok {
				t.Fatalf("remainder %v: write %d refused", remainder, k)
			}
			if k >= 21 {
				lens = append(lens, off, n)
			}
		}
		want := []uint64{0, 48 * kib, 48 * kib, 48 * kib} // reset at the 22nd write, without the option
		if remainder {
			want = []uint64{1008 * kib, 16 * kib, 0, 48 * kib} // the 16 KiB remainder, then the reset
		}
		if !slices.Equal(lens, want) || j.Resets != 1 {
			t.Errorf("remainder %v: writes 22 and 23 (offset, length) %v, resets %d; want %v and 1", remainder, lens, j.Resets, want)
		}
	}
}

// TestCheckJob checks fio 3.42's refusals of recover_zbd_write_error: a
// writing job needs continue_on_error, and not verify on an asynchronous
// engine.
func TestCheckJob(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rw=write"}, "works only when continue_on_error is set"},
		{[]string{"--rw=write", "--continue_on_error=all", "--ioengine=io_uring", "--verify=crc32c"}, "async IO engines does not support verify"},
		{[]string{"--rw=write", "--continue_on_error=all", "--verify=crc32c"}, ""},
		{[]string{"--rw=read"}, ""},
	} {
		jobs, err := jobfile.Parse(jobfile.Input{CmdLine: append([]string{"--name=j", "--size=1m", "--zonemode=zbd", "--zonesize=1m", "--recover_zbd_write_error=1"}, c.args...)})
		if err != nil {
			t.Fatal(err)
		}
		err = CheckJob(jobs[0])
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
