package blockdev

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// DiskFor returns the name under /sys/block of the whole disk that holds
// path: the device itself for a block device node, else the device of the
// file system the file lives on. Like fio it walks from a partition up to
// its whole disk. ok is false when there is no such disk (tmpfs, overlay,
// NFS, or a path that does not exist yet).
func DiskFor(path string) (name string, ok bool) {
	return sysfs{root: "/sys"}.diskFor(path)
}

func (s sysfs) diskFor(path string) (string, bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", false
	}
	raw := st.Dev
	if st.Mode&unix.S_IFMT == unix.S_IFBLK {
		raw = st.Rdev
	}
	dir, ok := s.dir(mkDev(raw))
	if !ok {
		return "", false
	}
	if isPartition(dir) {
		dir = filepath.Dir(dir)
	}
	name := filepath.Base(dir)
	if _, err := os.Stat(filepath.Join(s.root, "block", name, "stat")); err != nil {
		return "", false
	}
	return name, true
}

// DiskStat is one reading of /sys/block/NAME/stat (Documentation/block/stat.rst).
type DiskStat struct {
	ReadIOs, ReadMerges, ReadSectors, ReadTicks     uint64
	WriteIOs, WriteMerges, WriteSectors, WriteTicks uint64
	InFlight, IOTicks, TimeInQueue                  uint64
}

// readDiskStat reads /sys/block/NAME/stat.
func (s sysfs) readDiskStat(name string) (DiskStat, error) {
	if name == "" || strings.ContainsRune(name, '/') {
		return DiskStat{}, fmt.Errorf("disk stat: bad disk name %q", name)
	}
	b, err := os.ReadFile(filepath.Join(s.root, "block", name, "stat"))
	if err != nil {
		return DiskStat{}, fmt.Errorf("disk stat: %w", err)
	}
	return parseDiskStat(string(b))
}

// parseDiskStat parses the first 11 fields of a stat file; newer kernels
// append discard and flush fields, which fio ignores too.
func parseDiskStat(s string) (DiskStat, error) {
	f := strings.Fields(s)
	if len(f) < 11 {
		return DiskStat{}, fmt.Errorf("disk stat: %d fields, want at least 11", len(f))
	}
	var v [11]uint64
	for i := range v {
		n, err := strconv.ParseUint(f[i], 10, 64)
		if err != nil {
			return DiskStat{}, fmt.Errorf("disk stat: field %d: %w", i+1, err)
		}
		v[i] = n
	}
	return DiskStat{
		ReadIOs: v[0], ReadMerges: v[1], ReadSectors: v[2], ReadTicks: v[3],
		WriteIOs: v[4], WriteMerges: v[5], WriteSectors: v[6], WriteTicks: v[7],
		InFlight: v[8], IOTicks: v[9], TimeInQueue: v[10],
	}, nil
}

// DiskUtil is fio's disk_util entry for one disk over a run: what the disk
// did between two readings. Index 0 of each pair is reads, 1 writes. The
// run core turns it into the report's type; blockdev knows no report.
type DiskUtil struct {
	Name    string
	IOs     [2]uint64 // I/Os completed
	Sectors [2]uint64 // 512-byte sectors moved
	Merges  [2]uint64 // I/Os merged
	Ticks   [2]uint64 // milliseconds spent
	InQueue uint64    // weighted milliseconds in queue
	Util    float64   // percent of the time the disk was busy, at most 100
}

// DiskDelta turns two readings elapsed apart into fio's disk_util entry:
// the counter deltas, and util = 100 * io_ticks delta / elapsed ms, capped
// at 100 (diskutil.c). A counter that went backwards (device re-created)
// counts as 0.
func DiskDelta(name string, start, end DiskStat, elapsed time.Duration) DiskUtil {
	d := DiskUtil{
		Name:    name,
		IOs:     [2]uint64{sub(end.ReadIOs, start.ReadIOs), sub(end.WriteIOs, start.WriteIOs)},
		Sectors: [2]uint64{sub(end.ReadSectors, start.ReadSectors), sub(end.WriteSectors, start.WriteSectors)},
		Merges:  [2]uint64{sub(end.ReadMerges, start.ReadMerges), sub(end.WriteMerges, start.WriteMerges)},
		Ticks:   [2]uint64{sub(end.ReadTicks, start.ReadTicks), sub(end.WriteTicks, start.WriteTicks)},
		InQueue: sub(end.TimeInQueue, start.TimeInQueue),
	}
	if ms := elapsed.Milliseconds(); ms > 0 {
		d.Util = 100 * float64(sub(end.IOTicks, start.IOTicks)) / float64(ms)
		if d.Util > 100 {
			d.Util = 100
		}
	}
	return d
}

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

// DiskSampler measures one disk over a run: Start reads its stat file and
// the monotonic clock, Stop reads them again and returns the deltas.
type DiskSampler struct {
	name  string
	sys   sysfs
	start DiskStat
	t0    time.Time
}

// StartDiskSampler takes the first reading of /sys/block/NAME/stat.
func StartDiskSampler(name string) (*DiskSampler, error) {
	return sysfs{root: "/sys"}.startSampler(name)
}

func (s sysfs) startSampler(name string) (*DiskSampler, error) {
	st, err := s.readDiskStat(name)
	if err != nil {
		return nil, err
	}
	return &DiskSampler{name: name, sys: s, start: st, t0: time.Now()}, nil
}

// Name returns the disk being sampled.
func (d *DiskSampler) Name() string { return d.name }

// Stop takes the second reading and returns fio's disk_util entry.
func (d *DiskSampler) Stop() (DiskUtil, error) {
	end, err := d.sys.readDiskStat(d.name)
	if err != nil {
		return DiskUtil{}, err
	}
	return DiskDelta(d.name, d.start, end, time.Since(d.t0)), nil
}
