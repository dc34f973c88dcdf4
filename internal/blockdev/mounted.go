package blockdev

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrInUse is matched (errors.Is) by every refusal from CheckMountedWrite.
var ErrInUse = errors.New("block device in use")

// InUseError says why writing to a block device was refused.
type InUseError struct {
	Path       string // the target as the job named it
	Device     string // the device found in use, e.g. /dev/loop0p1
	Relation   string // "" when Device is the target, else e.g. "its partition loop0p1"
	MountPoint string // where Device is mounted; "" for swap and busy
	Swap       bool   // Device is an active swap area
	Busy       bool   // the kernel refused an exclusive open (EBUSY)
}

// Error reads like fio's refusal, naming what is mounted and where.
func (e *InUseError) Error() string {
	const tail = ", and 'allow_mounted_write' isn't set; refusing to write"
	via := ""
	if e.Relation != "" {
		via = e.Relation + ", " + e.Device + ", "
	}
	switch {
	case e.Swap:
		return fmt.Sprintf("%s appears in use as swap (%sactive in /proc/swaps)%s", e.Path, via, tail)
	case e.Busy:
		return fmt.Sprintf("%s appears in use (the kernel refused an exclusive open: device busy; mounted in another namespace, swap, dm, md or an exclusive opener)%s", e.Path, tail)
	case via != "":
		return fmt.Sprintf("%s appears mounted (%sis mounted as %s)%s", e.Path, via, e.MountPoint, tail)
	default:
		return fmt.Sprintf("%s appears mounted (as %s)%s", e.Path, e.MountPoint, tail)
	}
}

// Is makes errors.Is(err, ErrInUse) true.
func (e *InUseError) Is(target error) bool { return target == ErrInUse }

// CheckMountedWrite decides whether gofio may write to path without
// allow_mounted_write. It returns nil for anything that is not a block
// device (regular files, missing files that will be laid out, character
// devices). For a block device (symlinks resolved) it returns an
// *InUseError when, per /proc/self/mountinfo and /proc/swaps, the device
// itself is mounted or swap (fio's check), or when a related device is:
// a partition of it (when it is a whole disk), its whole disk (when it is a
// partition), a device-mapper/md holder stacked on any of those, or a slave
// it is built on. Last, it probes the device with a read-only O_EXCL open,
// which the kernel refuses while anything holds the device exclusively
// (a mount in another namespace, swap, dm, md); that open never writes.
func CheckMountedWrite(path string) error {
	return defaultChecker.check(path)
}

// checker holds the files CheckMountedWrite reads, so tests can feed fakes.
type checker struct {
	mountinfo string
	swaps     string
	sys       sysfs
	probe     bool // do the O_EXCL open probe
}

var defaultChecker = checker{
	mountinfo: "/proc/self/mountinfo",
	swaps:     "/proc/swaps",
	sys:       sysfs{root: "/sys"},
	probe:     true,
}

func (c checker) check(path string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("check mounted %s: %w", path, err)
	}
	var st unix.Stat_t
	if err := unix.Stat(real, &st); err != nil {
		return fmt.Errorf("check mounted %s: %w", path, &os.PathError{Op: "stat", Path: real, Err: err})
	}
	if st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return nil
	}
	rel := c.sys.related(mkDev(st.Rdev))
	if err := c.checkMounts(path, rel); err != nil {
		return err
	}
	if err := c.checkSwaps(path, rel); err != nil {
		return err
	}
	if c.probe {
		fd, err := unix.Open(real, unix.O_RDONLY|unix.O_EXCL|unix.O_CLOEXEC, 0)
		if err == nil {
			unix.Close(fd)
		} else if errors.Is(err, unix.EBUSY) {
			return &InUseError{Path: path, Device: real, Busy: true}
		}
		// Other errors (EACCES, ...) are left to the open that follows.
	}
	return nil
}

// checkMounts scans mountinfo for a mount whose device (field 3, or the
// mount source when it is a /dev node, which covers btrfs's anonymous
// device numbers) is in rel.
func (c checker) checkMounts(path string, rel map[devNum]string) error {
	f, err := os.Open(c.mountinfo)
	if err != nil {
		return fmt.Errorf("check mounted %s: %w", path, err)
	}
	defer f.Close()
	return scanMountinfo(f, func(m mountEntry) error {
		note, hit := rel[m.dev]
		if !hit && strings.HasPrefix(m.source, "/dev/") {
			if d, ok := statDev(m.source); ok {
				note, hit = rel[d]
			}
		}
		if !hit {
			return nil
		}
		return &InUseError{Path: path, Device: m.source, Relation: note, MountPoint: m.point}
	})
}

// checkSwaps scans /proc/swaps for an active swap area on a device in rel.
func (c checker) checkSwaps(path string, rel map[devNum]string) error {
	f, err := os.Open(c.swaps)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil // kernel without swap support
		}
		return fmt.Errorf("check swap %s: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	first := true
	for sc.Scan() {
		if first { // header line
			first = false
			continue
		}
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || fields[1] != "partition" {
			continue
		}
		name := unescapeOctal(fields[0])
		d, ok := statDev(name)
		if !ok {
			continue
		}
		if note, hit := rel[d]; hit {
			return &InUseError{Path: path, Device: name, Relation: note, Swap: true}
		}
	}
	return sc.Err()
}

// mountEntry is the part of a mountinfo line the check needs.
type mountEntry struct {
	dev    devNum
	point  string
	source string
}

// scanMountinfo calls fn for each parsable line of a mountinfo file and
// stops at fn's first error.
func scanMountinfo(r io.Reader, fn func(mountEntry) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// id parent maj:min root point opts [optional...] - fstype source superopts
		if len(fields) < 7 {
			continue
		}
		d, ok := parseDevNum(fields[2])
		if !ok {
			continue
		}
		m := mountEntry{dev: d, point: unescapeOctal(fields[4])}
		for i := 6; i < len(fields); i++ {
			if fields[i] == "-" {
				if i+2 < len(fields) {
					m.source = unescapeOctal(fields[i+2])
				}
				break
			}
		}
		if err := fn(m); err != nil {
			return err
		}
	}
	return sc.Err()
}

// statDev returns the device number of a block device node.
func statDev(path string) (devNum, bool) {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return devNum{}, false
	}
	return mkDev(st.Rdev), true
}

// unescapeOctal undoes the \ooo escapes the kernel uses for space, tab,
// newline and backslash in mountinfo and /proc/swaps.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }
