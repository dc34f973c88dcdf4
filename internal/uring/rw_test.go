package uring

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// rwMode says how a round trip issues its I/O.
type rwMode int

const (
	modePlain rwMode = iota // READ/WRITE
	modeVec                 // READV/WRITEV
	modeFixed               // READ_FIXED/WRITE_FIXED with registered buffers
	modeFiles               // READ/WRITE with a registered file
)

// roundTrip writes blocks of bs bytes at every block of a size-byte file,
// fsyncs, reads them back into other buffers and compares.
func roundTrip(t *testing.T, fd int, size, bs int, mode rwMode) {
	t.Helper()
	const depth = 8
	r := newTestRing(t, depth, nil)
	wbuf := alignedBuf(t, depth*bs)
	rbuf := alignedBuf(t, depth*bs)
	slot := func(b []byte, i int) []byte { return b[i*bs : (i+1)*bs] }
	if mode == modeFixed {
		bufs := make([][]byte, 0, 2*depth)
		for i := 0; i < depth; i++ {
			bufs = append(bufs, slot(wbuf, i))
		}
		for i := 0; i < depth; i++ {
			bufs = append(bufs, slot(rbuf, i))
		}
		if err := r.RegisterBufferSlices(bufs); err != nil {
			t.Fatal(err)
		}
	}
	sqeFd := fd
	if mode == modeFiles {
		if err := r.RegisterFiles([]int32{-1, int32(fd)}); err != nil {
			t.Fatal(err)
		}
		sqeFd = 1
	}
	iov := make([]unix.Iovec, depth)
	issue := func(write bool, i int, off uint64) {
		sqe := r.GetSQE()
		if sqe == nil {
			t.Fatal("SQ full")
		}
		b := slot(rbuf, i)
		if write {
			b = slot(wbuf, i)
		}
		switch mode {
		case modeVec:
			iov[i].Base = &b[0]
			iov[i].SetLen(len(b))
			if write {
				sqe.PrepareWritev(sqeFd, iov[i:i+1], off)
			} else {
				sqe.PrepareReadv(sqeFd, iov[i:i+1], off)
			}
		case modeFixed:
			if write {
				sqe.PrepareWriteFixed(sqeFd, b, off, i)
			} else {
				sqe.PrepareReadFixed(sqeFd, b, off, depth+i)
			}
		default:
			if write {
				sqe.PrepareWrite(sqeFd, b, off)
			} else {
				sqe.PrepareRead(sqeFd, b, off)
			}
		}
		if mode == modeFiles {
			sqe.SetFlags(SqeFixedFile)
		}
		sqe.SetData64(uint64(i))
	}
	complete := func(n int) {
		out := make([]CompletionQueueEvent, n)
		got := 0
		for got < n {
			if _, err := r.WaitCQENr(uint32(n - got)); err != nil {
				t.Fatal(err)
			}
			got += r.CopyCQEs(out[got:])
		}
		for _, c := range out {
			if c.Res != int32(bs) {
				t.Fatalf("slot %d: res %d, want %d", c.UserData, c.Res, bs)
			}
		}
	}
	for base := 0; base < size; base += depth * bs {
		n := min(depth, (size-base)/bs)
		for i := 0; i < n; i++ {
			fill(slot(wbuf, i), byte(base/bs+i))
			issue(true, i, uint64(base+i*bs))
		}
		if _, err := r.Submit(); err != nil {
			t.Fatal(err)
		}
		complete(n)
	}
	sqe := r.GetSQE()
	sqe.PrepareFsync(sqeFd, FsyncDatasync)
	if mode == modeFiles {
		sqe.SetFlags(SqeFixedFile)
	}
	if _, err := r.SubmitAndWait(1); err != nil {
		t.Fatal(err)
	}
	if c := waitOne(t, r); c.Res != 0 {
		t.Fatalf("fdatasync res %d", c.Res)
	}
	want := make([]byte, bs)
	for base := 0; base < size; base += depth * bs {
		n := min(depth, (size-base)/bs)
		for i := 0; i < n; i++ {
			clear(slot(rbuf, i))
			issue(false, i, uint64(base+i*bs))
		}
		if _, err := r.Submit(); err != nil {
			t.Fatal(err)
		}
		complete(n)
		for i := 0; i < n; i++ {
			fill(want, byte(base/bs+i))
			if !bytes.Equal(slot(rbuf, i), want) {
				t.Fatalf("block %d read back wrong", base/bs+i)
			}
		}
	}
}

// TestReadWriteTmpfs covers buffered and O_DIRECT I/O on tmpfs with each
// way of issuing it.
func TestReadWriteTmpfs(t *testing.T) {
	tests := []struct {
		name   string
		direct bool
		mode   rwMode
	}{
		{"buffered/plain", false, modePlain},
		{"buffered/vectored", false, modeVec},
		{"direct/plain", true, modePlain},            // O_DIRECT, READ/WRITE
		{"direct/vectored", true, modeVec},           // O_DIRECT, READV/WRITEV
		{"direct/fixedbufs", true, modeFixed},        // registered buffers
		{"direct/registerfiles", true, modeFiles},    // registered file index
		{"buffered/registerfiles", false, modeFiles}, // fixed file, page cache
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			flags := 0
			if tt.direct {
				flags = unix.O_DIRECT
			}
			f := shmFile(t, 256<<10, flags)
			roundTrip(t, int(f.Fd()), 256<<10, 4096, tt.mode)
		})
	}
}

// TestReadWriteLoopDevice creates a loop device over a tmpfs file, runs the
// round trip on it with O_DIRECT and with fixed buffers, and detaches it.
func TestReadWriteLoopDevice(t *testing.T) {
	backing := shmFile(t, 4<<20, 0)
	out, err := exec.Command("losetup", "--find", "--show", backing.Name()).CombinedOutput()
	if err != nil {
		t.Skipf("losetup failed, no loop device test: %v: %s", err, strings.TrimSpace(string(out)))
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() {
		if out, err := exec.Command("losetup", "-d", dev).CombinedOutput(); err != nil {
			t.Errorf("losetup -d %s: %v: %s", dev, err, out)
		}
	})
	for _, mode := range []rwMode{modePlain, modeFixed} {
		f, err := os.OpenFile(dev, os.O_RDWR|unix.O_DIRECT, 0)
		if err != nil {
			t.Fatalf("open %s: %v", filepath.Base(dev), err)
		}
		roundTrip(t, int(f.Fd()), 1<<20, 4096, mode)
		f.Close()
	}
}

// TestFixedBufferOutOfRange checks a READ_FIXED outside its registered
// buffer fails in the CQE with -EFAULT.
func TestFixedBufferOutOfRange(t *testing.T) {
	r := newTestRing(t, 2, nil)
	f := shmFile(t, 1<<20, 0)
	buf := alignedBuf(t, 8192)
	if err := r.RegisterBufferSlices([][]byte{buf[:4096]}); err != nil {
		t.Fatal(err)
	}
	r.GetSQE().PrepareReadFixed(int(f.Fd()), buf[4096:], 0, 0)
	if _, err := r.SubmitAndWait(1); err != nil {
		t.Fatal(err)
	}
	if c := waitOne(t, r); c.Res != -int32(unix.EFAULT) {
		t.Fatalf("res %d, want -EFAULT", c.Res)
	}
}

// TestRegisterBuffersErrors checks the explained errors: over 1 GiB and too
// many buffers.
func TestRegisterBuffersErrors(t *testing.T) {
	r := newTestRing(t, 2, nil)
	buf := alignedBuf(t, 4096)
	iov := []unix.Iovec{{Base: &buf[0]}}
	iov[0].SetLen(MaxRegBufferLen + 1) // validated before the memory is touched
	err := r.RegisterBuffers(iov)
	if !errors.Is(err, unix.EFAULT) || !strings.Contains(err.Error(), "1 GiB") {
		t.Fatalf("over 1 GiB: %v", err)
	}
	err = r.RegisterBuffers(make([]unix.Iovec, MaxRegBuffers+1))
	if !errors.Is(err, unix.EINVAL) {
		t.Fatalf("too many buffers: %v", err)
	}
}

// TestRegisterBuffersMemlock runs a child without CAP_IPC_LOCK (setpriv)
// that registers more than RLIMIT_MEMLOCK and checks the ENOMEM message.
func TestRegisterBuffersMemlock(t *testing.T) {
	if os.Getenv("GOFIO_MEMLOCK_CHILD") == "1" {
		r := newTestRing(t, 2, nil)
		lim := unix.Rlimit{Cur: 1 << 20, Max: 1 << 20}
		if err := unix.Setrlimit(unix.RLIMIT_MEMLOCK, &lim); err != nil {
			t.Fatal(err)
		}
		buf := alignedBuf(t, 4<<20)
		err := r.RegisterBufferSlices([][]byte{buf})
		if !errors.Is(err, unix.ENOMEM) || !strings.Contains(err.Error(), "RLIMIT_MEMLOCK") {
			t.Fatalf("register over memlock: %v", err)
		}
		return
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv not installed: cannot drop CAP_IPC_LOCK")
	}
	if os.Geteuid() != 0 {
		t.Skip("not root: setpriv cannot change the bounding set")
	}
	cmd := exec.Command(setpriv, "--bounding-set=-ipc_lock", "--inh-caps=-ipc_lock", "--",
		os.Args[0], "-test.run=^TestRegisterBuffersMemlock$", "-test.v")
	cmd.Env = append(os.Environ(), "GOFIO_MEMLOCK_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("child without CAP_IPC_LOCK: %v\n%s", err, out)
	}
}
