package ktrace

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/loopdev"
)

// TestLoadRefused hands the programs a layout the verifier must refuse (a
// field beyond the largest trace record) and checks that the refusal is
// an Unavailable that says so, with nothing left attached. Root only.
func TestLoadRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("loading BPF programs needs root; skipping")
	}
	dev := loopdev.New(t, 16<<20)
	format := strings.Replace(mustRead(t, "testdata/linux-6.18/events/io_uring/io_uring_submit_req/format"),
		"field:void * req;\toffset:16;", "field:void * req;\toffset:65536;", 1)
	if !strings.Contains(format, "offset:65536") {
		t.Fatal("the saved layout changed: req is no longer at offset 16")
	}
	tr, err := Open(Config{TracefsOnly: true, Targets: []string{dev.Path}, Tids: []int{os.Getpid()},
		Mountinfo: mountinfoFor(t, fakeTracefs(t, "io_uring_submit_req", format))})
	if err == nil {
		tr.Close()
		t.Fatal("Open succeeded")
	}
	var u *Unavailable
	if !errors.As(err, &u) || !strings.HasPrefix(u.Reason, "BPF load refused for submit_req") {
		t.Fatalf("got %v", err)
	}
}

// TestTargetDevices finds a loop device's disk from its node, and from a
// file on a partition's file system: the bios' device is the partition,
// the requests' the disk. Root only.
func TestTargetDevices(t *testing.T) {
	dev := loopdev.NewWithOptions(t, 64<<20, loopdev.Options{Partitions: []int64{32 << 20}})
	tg, err := targetOf(dev.Path, "/sys")
	if err != nil {
		t.Fatal(err)
	}
	if tg.Partition || tg.BioDev != tg.Disk {
		t.Fatalf("disk node: %+v", tg)
	}
	dev.MkfsExt4Partition(t, 1)
	mnt := dev.MountPartition(t, 1)
	f := mnt + "/f"
	if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tp, err := targetOf(f, "/sys")
	if err != nil {
		t.Fatal(err)
	}
	if !tp.Partition || tp.Disk != tg.Disk || tp.BioDev == tp.Disk {
		t.Fatalf("file on a partition: %+v (disk %+v)", tp, tg)
	}
}
