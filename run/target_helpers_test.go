package run

import (
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/iouring"
	"github.com/gofio/gofio/engines/psync"
)

// modeLog records the access mode (O_RDONLY, O_WRONLY, O_RDWR) of every
// file descriptor the run core hands an engine.
type modeLog struct {
	mu    sync.Mutex
	modes []int
}

// wrap returns open, recording the access modes of s.Files first.
func (m *modeLog) wrap(open engines.Opener) engines.Opener {
	return func(s engines.Setup) (engines.Engine, error) {
		for _, fd := range s.Files {
			fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
			if err != nil {
				return nil, err
			}
			m.mu.Lock()
			m.modes = append(m.modes, fl&unix.O_ACCMODE)
			m.mu.Unlock()
		}
		return open(s)
	}
}

func (m *modeLog) all(mode int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, v := range m.modes {
		if v != mode {
			return false
		}
	}
	return len(m.modes) > 0
}

// recordingEngines are psync and io_uring with their fds' modes recorded.
func recordingEngines(m *modeLog) map[string]engines.Opener {
	return map[string]engines.Opener{"psync": m.wrap(psync.Open), "io_uring": m.wrap(iouring.Open)}
}

// hashFile returns the SHA-256 of a file's content.
func hashFile(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// fsImmutableFL is FS_IMMUTABLE_FL of linux/fs.h, which x/sys/unix lacks.
const fsImmutableFL = 0x00000010

// setImmutable sets or clears FS_IMMUTABLE_FL (chattr +i) on path: even
// root cannot open an immutable file for writing. It skips the test where
// the filesystem or the capability is missing.
func setImmutable(t *testing.T, path string, on bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err != nil {
		t.Skipf("FS_IOC_GETFLAGS on %s: %v", path, err)
	}
	if on {
		flags |= fsImmutableFL
	} else {
		flags &^= fsImmutableFL
	}
	if err := unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags)); err != nil {
		if on {
			t.Skipf("chattr +i %s: %v", path, err)
		}
		t.Errorf("chattr -i %s: %v", path, err)
	}
}

// mountTmpfs mounts a tmpfs of size bytes on a new directory and unmounts
// it when the test ends. It skips where mounting is not allowed.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tmpfs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		if errors.Is(err, unix.EPERM) {
			t.Skipf("mount tmpfs: %v", err)
		}
		t.Fatalf("mount tmpfs on %s: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil {
			_ = unix.Unmount(dir, unix.MNT_DETACH)
		}
	})
	return dir
}

// uringOK skips the test where io_uring cannot be set up.
func uringOK(t *testing.T) {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "probe")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e, err := iouring.Open(engines.Setup{Job: testJob("", "probe", "read", "io_uring"), Files: []int{int(f.Fd())}, Depth: 1, Bufs: [][]byte{make([]byte, 4096)}})
	if err != nil {
		t.Skipf("io_uring unavailable: %v", err)
	}
	e.Close()
}
