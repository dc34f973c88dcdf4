package blockdev

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/loopdev"
)

func TestCheckMountedWriteNonBlock(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "file")
	if err := os.WriteFile(reg, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		reg,                           // regular file
		filepath.Join(dir, "missing"), // will be laid out later
		dir,                           // directory: the open fails later, not here
		"/dev/null",                   // character device
	} {
		if err := CheckMountedWrite(p); err != nil {
			t.Errorf("CheckMountedWrite(%s) = %v, want nil", p, err)
		}
	}
}

func TestScanMountinfo(t *testing.T) {
	const info = `22 1 0:21 / /proc rw,nosuid shared:5 - proc proc rw
29 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw
40 29 7:0 / /mnt/with\040space rw master:1 shared:7 - ext4 /dev/loop0 rw
41 29 0:45 /sub /mnt/btrfs rw - btrfs /dev/vdb rw,space_cache
short line
`
	want := []mountEntry{
		{devNum{0, 21}, "/proc", "proc"},                // no optional-field confusion
		{devNum{259, 2}, "/", "/dev/nvme0n1p2"},         // root
		{devNum{7, 0}, "/mnt/with space", "/dev/loop0"}, // octal escape, two optional fields
		{devNum{0, 45}, "/mnt/btrfs", "/dev/vdb"},       // anonymous dev, source kept
	}
	var got []mountEntry
	err := scanMountinfo(strings.NewReader(info), func(m mountEntry) error {
		got = append(got, m)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

func TestUnescapeOctal(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`/plain`, `/plain`},
		{`/a\040b`, `/a b`},        // space
		{`/a\011b\012`, "/a\tb\n"}, // tab, newline
		{`/a\134b`, `/a\b`},        // backslash
		{`/a\09`, `/a\09`},         // not octal: kept
		{`/end\04`, `/end\04`},     // truncated escape: kept
	} {
		if got := unescapeOctal(c.in); got != c.want {
			t.Errorf("unescapeOctal(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// fakeFiles writes a mountinfo and a swaps file for a checker.
func fakeChecker(t *testing.T, mountinfo, swaps string) checker {
	t.Helper()
	dir := t.TempDir()
	mi := filepath.Join(dir, "mountinfo")
	sw := filepath.Join(dir, "swaps")
	if err := os.WriteFile(mi, []byte(mountinfo), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sw, []byte(swaps), 0o600); err != nil {
		t.Fatal(err)
	}
	return checker{mountinfo: mi, swaps: sw, sys: sysfs{root: "/sys"}}
}

func devOfPath(t *testing.T, p string) devNum {
	t.Helper()
	d, ok := statDev(p)
	if !ok {
		t.Fatalf("%s is not a block device", p)
	}
	return d
}

// TestMountedExt4Refused mounts ext4 on a loop device and checks that the
// device is refused (by path and through a symlink), that not a byte of it
// changed, and that it is allowed again after the unmount.
func TestMountedExt4Refused(t *testing.T) {
	dev := loopdev.New(t, 32<<20)
	dev.MkfsExt4(t)
	if err := CheckMountedWrite(dev.Path); err != nil {
		t.Fatalf("unmounted fresh ext4: CheckMountedWrite = %v, want nil", err)
	}
	mnt := dev.Mount(t)
	unix.Sync()
	before := dev.Hash(t)

	link := filepath.Join(t.TempDir(), "disk")
	if err := os.Symlink(dev.Path, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dev.Path, link} {
		err := CheckMountedWrite(p)
		var iu *InUseError
		if !errors.As(err, &iu) || !errors.Is(err, ErrInUse) {
			t.Fatalf("CheckMountedWrite(%s) = %v, want *InUseError", p, err)
		}
		want := fmt.Sprintf("%s appears mounted (as %s), and 'allow_mounted_write' isn't set; refusing to write", p, mnt)
		if err.Error() != want {
			t.Errorf("message:\n got %q\nwant %q", err.Error(), want)
		}
	}
	if after := dev.Hash(t); after != before {
		t.Fatalf("device bytes changed while mounted: %x -> %x", before, after)
	}

	dev.Unmount(t, mnt)
	if err := CheckMountedWrite(dev.Path); err != nil {
		t.Fatalf("after unmount: CheckMountedWrite = %v, want nil", err)
	}
}

// TestPartitionedDisk checks the whole-disk and partition relations on a
// loop device with two partitions, the first one mounted.
func TestPartitionedDisk(t *testing.T) {
	dev := loopdev.NewWithOptions(t, 40<<20, loopdev.Options{Partitions: []int64{16 << 20, 16 << 20}})
	p1, p2 := dev.Partition(1), dev.Partition(2)
	dev.MkfsExt4Partition(t, 1)
	mnt := dev.MountPartition(t, 1)

	cases := []struct {
		path    string
		refused bool
		substr  string
	}{
		{p1, true, "appears mounted (as " + mnt + ")"},                                                       // the mounted partition itself
		{dev.Path, true, "(its partition " + filepath.Base(p1) + ", " + p1 + ", is mounted as " + mnt + ")"}, // its whole disk
		{p2, false, ""}, // a sibling partition is fine
	}
	for _, c := range cases {
		err := CheckMountedWrite(c.path)
		if !c.refused {
			if err != nil {
				t.Errorf("CheckMountedWrite(%s) = %v, want nil", c.path, err)
			}
			continue
		}
		if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), c.substr) {
			t.Errorf("CheckMountedWrite(%s) = %v, want refusal containing %q", c.path, err, c.substr)
		}
	}

	// A partition of a mounted whole disk: the kernel cannot mount a disk
	// and its partitions at once, so feed mountinfo that says the whole
	// disk is mounted.
	whole := devOfPath(t, dev.Path)
	c := fakeChecker(t, fmt.Sprintf("50 1 %s / /mnt/whole rw - ext4 %s rw\n", whole, dev.Path), "Filename Type Size Used Priority\n")
	err := c.check(p2)
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "its whole disk "+filepath.Base(dev.Path)) {
		t.Fatalf("partition of mounted whole disk: %v", err)
	}
}

// TestSwapRefused feeds a /proc/swaps that lists a loop device (turning on
// real swap would change the host) and checks the refusal.
func TestSwapRefused(t *testing.T) {
	dev := loopdev.New(t, 8<<20)
	swaps := "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n" +
		dev.Path + "                               partition\t8188\t\t0\t\t-2\n"
	c := fakeChecker(t, "", swaps)
	err := c.check(dev.Path)
	var iu *InUseError
	if !errors.As(err, &iu) || !iu.Swap {
		t.Fatalf("check = %v, want swap refusal", err)
	}
	if !strings.Contains(err.Error(), "in use as swap") {
		t.Errorf("message %q does not say swap", err)
	}
	// A swap file (not a partition) on some file system is not this device.
	c = fakeChecker(t, "", "Filename Type Size Used Priority\n/swapfile file 8188 0 -2\n")
	if err := c.check(dev.Path); err != nil {
		t.Fatalf("swap file: %v", err)
	}
}

// TestExclusiveProbe checks that a device held with O_EXCL (as a mount in
// another namespace would hold it) is refused even when mountinfo is empty.
func TestExclusiveProbe(t *testing.T) {
	dev := loopdev.New(t, 8<<20)
	c := fakeChecker(t, "", "Filename Type Size Used Priority\n")
	c.probe = true
	if err := c.check(dev.Path); err != nil {
		t.Fatalf("free device: %v", err)
	}
	fd, err := unix.Open(dev.Path, unix.O_RDONLY|unix.O_EXCL|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	err = c.check(dev.Path)
	var iu *InUseError
	if !errors.As(err, &iu) || !iu.Busy {
		t.Fatalf("held device: %v, want busy refusal", err)
	}
}
