package blockdev

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSetScheduler follows fio's set_ioscheduler on a fake sysfs: a
// scheduler file that takes the name and shows it in brackets, one that
// reads back without it (EINVAL, "iosched_switch"), one that only says
// none (not tunable, no error) and a disk without the file (not
// supported, no error).
func TestSetScheduler(t *testing.T) {
	root := t.TempDir()
	mk := func(disk, content string) {
		d := filepath.Join(root, "block", disk, "queue")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "scheduler"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A regular file keeps what is written over its start: "kyber"
	// written over "kyber [kyber]\n" reads back the same.
	mk("taken", "kyber [kyber]\n")
	mk("refused", "[none] mq-deadline\n")
	mk("none", "none\n")
	s := sysfs{root: root}
	if msg, err := s.setScheduler("taken", "kyber"); err != nil || msg != "" {
		t.Errorf("taken: %q, %v", msg, err)
	}
	msg, err := s.setScheduler("refused", "bfq")
	var se *SchedError
	if msg != "fio: unable to set io scheduler to bfq\n" || !errors.As(err, &se) || se.Fn != "iosched_switch" || !errors.Is(err, unix.EINVAL) {
		t.Errorf("refused: %q, %v", msg, err)
	}
	if msg, err := s.setScheduler("none", "none"); err != nil || msg != "fio: io scheduler is not tunable\n" {
		t.Errorf("none: %q, %v", msg, err)
	}
	if msg, err := s.setScheduler("absent", "bfq"); err != nil || msg != "fio: os or kernel doesn't support IO scheduler switching\n" {
		t.Errorf("absent: %q, %v", msg, err)
	}
}
