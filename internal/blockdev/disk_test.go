package blockdev

import (
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/loopdev"
)

func TestParseDiskStat(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want DiskStat
		ok   bool
	}{
		// 11 fields, as on old kernels.
		{"classic", "1 2 3 4 5 6 7 8 9 10 11\n", DiskStat{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, true},
		// 17 fields with discard and flush columns, padded like the kernel prints them.
		{"modern", "    8391        0   510658     1593     2048      100    16384      900        0     2660     2493        0        0        0        0        0        0\n",
			DiskStat{8391, 0, 510658, 1593, 2048, 100, 16384, 900, 0, 2660, 2493}, true},
		{"short", "1 2 3", DiskStat{}, false},                     // truncated file
		{"garbage", "1 2 3 4 5 x 7 8 9 10 11", DiskStat{}, false}, // non-number
	}
	for _, c := range cases {
		got, err := parseDiskStat(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%s: got %+v, %v; want %+v, ok=%v", c.name, got, err, c.want, c.ok)
		}
	}
}

func TestDiskDelta(t *testing.T) {
	start := DiskStat{ReadIOs: 10, WriteIOs: 20, ReadSectors: 80, WriteSectors: 160, ReadMerges: 1, WriteMerges: 2, ReadTicks: 30, WriteTicks: 40, IOTicks: 1000, TimeInQueue: 500}
	cases := []struct {
		name    string
		start   DiskStat
		end     DiskStat
		elapsed time.Duration
		want    DiskUtil
	}{
		// Half busy over 2 s.
		{"half", start, DiskStat{ReadIOs: 110, WriteIOs: 70, ReadSectors: 880, WriteSectors: 560, ReadMerges: 3, WriteMerges: 2, ReadTicks: 80, WriteTicks: 90, IOTicks: 2000, TimeInQueue: 800}, 2 * time.Second,
			DiskUtil{Name: "d", IOs: [2]uint64{100, 50}, Sectors: [2]uint64{800, 400}, Merges: [2]uint64{2, 0}, Ticks: [2]uint64{50, 50}, InQueue: 300, Util: 50}},
		// io_ticks ahead of the wall clock (sampling skew) is capped at 100%.
		{"capped", DiskStat{IOTicks: 1000}, DiskStat{IOTicks: 4000}, time.Second, DiskUtil{Name: "d", Util: 100}},
		// Counters that went backwards (device re-created) count as zero.
		{"backwards", start, DiskStat{}, time.Second, DiskUtil{Name: "d"}},
		// Zero elapsed time leaves util at 0 instead of dividing by zero.
		{"instant", DiskStat{IOTicks: 1000}, DiskStat{IOTicks: 1001}, 0, DiskUtil{Name: "d"}},
	}
	for _, c := range cases {
		if got := DiskDelta("d", c.start, c.end, c.elapsed); got != c.want {
			t.Errorf("%s: got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func TestDiskForAndSampler(t *testing.T) {
	dev := loopdev.NewWithOptions(t, 40<<20, loopdev.Options{Partitions: []int64{16 << 20}})
	whole := filepath.Base(dev.Path)

	// The device node and its partition both map to the whole disk.
	for _, p := range []string{dev.Path, dev.Partition(1)} {
		if name, ok := DiskFor(p); !ok || name != whole {
			t.Errorf("DiskFor(%s) = %q, %v; want %q", p, name, ok, whole)
		}
	}
	// A file on a file system on the partition maps to the whole disk too.
	dev.MkfsExt4Partition(t, 1)
	mnt := dev.MountPartition(t, 1)
	file := filepath.Join(mnt, "f")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if name, ok := DiskFor(file); !ok || name != whole {
		t.Errorf("DiskFor(file on %s) = %q, %v; want %q", mnt, name, ok, whole)
	}
	// tmpfs has no disk.
	if name, ok := DiskFor(t.TempDir()); ok && name != "" {
		if _, err := os.Stat("/sys/block/" + name); err != nil {
			t.Errorf("DiskFor(tempdir) = %q, which has no /sys/block entry", name)
		}
	}
	if name, ok := DiskFor("/dev/shm"); ok {
		t.Errorf("DiskFor(/dev/shm) = %q, want no disk", name)
	}

	// Count n synchronous O_DIRECT writes to the second half of the disk,
	// which no partition covers.
	s, err := StartDiskSampler(whole)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(dev.Path, unix.O_WRONLY|unix.O_DIRECT|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	buf := alignedBuf(4096)
	const n = 16
	for i := 0; i < n; i++ {
		if _, err := unix.Pwrite(fd, buf, int64(32<<20+i*2*4096)); err != nil {
			t.Fatal(err)
		}
	}
	unix.Close(fd)
	got, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != whole || got.IOs[1] < n || got.Util < 0 || got.Util > 100 {
		t.Fatalf("disk stats %+v: want name %s, >= %d writes, util in [0,100]", got, whole, n)
	}
}

func TestSize(t *testing.T) {
	dev := loopdev.New(t, 24<<20)
	f, err := os.Open(dev.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, err := Size(int(f.Fd())); err != nil || n != uint64(dev.Size) {
		t.Errorf("Size(%s) = %d, %v; want %d", dev.Path, n, err, dev.Size)
	}
	if lbs, err := LogicalBlockSize(int(f.Fd())); err != nil || lbs < 512 || lbs&(lbs-1) != 0 {
		t.Errorf("LogicalBlockSize = %d, %v; want a power of two >= 512", lbs, err)
	}
	if ok, err := IsBlockDevice(int(f.Fd())); !ok || err != nil {
		t.Errorf("IsBlockDevice = %v, %v", ok, err)
	}

	reg := filepath.Join(t.TempDir(), "r")
	if err := os.WriteFile(reg, make([]byte, 12345), 0o600); err != nil {
		t.Fatal(err)
	}
	rf, err := os.Open(reg)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	if n, err := Size(int(rf.Fd())); err != nil || n != 12345 {
		t.Errorf("Size(regular) = %d, %v; want 12345", n, err)
	}
	if _, err := LogicalBlockSize(int(rf.Fd())); err == nil {
		t.Errorf("LogicalBlockSize(regular file) succeeded, want ENOTTY")
	}
}

// alignedBuf returns a page-aligned buffer of n bytes for O_DIRECT.
func alignedBuf(n int) []byte {
	b := make([]byte, n+4096)
	off := int(4096 - uintptr(unsafe.Pointer(&b[0]))%4096)
	return b[off%4096 : off%4096+n]
}
