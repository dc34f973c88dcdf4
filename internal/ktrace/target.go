package ktrace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// kdev is a device number as the kernel's tracepoints print it
// (MAJOR << 20 | MINOR), not as stat returns it.
func kdev(major, minor uint32) uint32 { return major<<20 | minor }

// Target is the block device under a job's file: the device its bios are
// queued on (a partition's, or the disk's) and the disk its requests are
// issued to.
type Target struct {
	Path      string
	BioDev    uint32 // kernel dev_t
	Disk      uint32 // kernel dev_t
	DiskName  string
	Partition bool
}

// targetOf finds the block device under path (a block device node, or a
// file on a file system that lives on one), reading sysfs under sysfsRoot
// ("/sys").
func targetOf(path, sysfsRoot string) (Target, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return Target{}, unavailable("target %s: %v", path, err)
	}
	raw := st.Dev
	if st.Mode&unix.S_IFMT == unix.S_IFBLK {
		raw = st.Rdev
	}
	major, minor := unix.Major(raw), unix.Minor(raw)
	if major == 0 {
		return Target{}, unavailable("target %s is not a block device and its file system has none (device 0:%d)", path, minor)
	}
	dir := filepath.Join(sysfsRoot, "dev/block", fmt.Sprintf("%d:%d", major, minor))
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return Target{}, unavailable("target %s is on device %d:%d, which is not a block device", path, major, minor)
	}
	t := Target{Path: path, BioDev: kdev(major, minor), Disk: kdev(major, minor), DiskName: filepath.Base(real)}
	disk := real
	if _, err := os.Stat(filepath.Join(real, "partition")); err == nil {
		t.Partition = true
		disk = filepath.Dir(real)
		b, err := os.ReadFile(filepath.Join(disk, "dev"))
		if err != nil {
			return Target{}, unavailable("target %s: the disk of partition %s: %v", path, filepath.Base(real), err)
		}
		var ma, mi uint32
		if _, err := fmt.Sscanf(strings.TrimSpace(string(b)), "%d:%d", &ma, &mi); err != nil {
			return Target{}, unavailable("target %s: the disk of partition %s: %q", path, filepath.Base(real), b)
		}
		t.Disk, t.DiskName = kdev(ma, mi), filepath.Base(disk)
	}
	if ents, err := os.ReadDir(filepath.Join(disk, "slaves")); err == nil && len(ents) > 0 {
		return Target{}, unavailable("target %s is on %s, a device stacked on %s (device mapper or md): its bios are remapped, and gofio joins only a disk's own", path, t.DiskName, ents[0].Name())
	}
	if _, err := os.Stat(filepath.Join(disk, "mq")); err != nil {
		return Target{}, unavailable("target %s is on %s, which does not use blk-mq requests", path, t.DiskName)
	}
	return t, nil
}
