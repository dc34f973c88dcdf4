package faultfs

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func openRW(t *testing.T, x *FS) *os.File {
	t.Helper()
	f, err := os.OpenFile(x.Path(), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestPlainIO: with no fault set the file reads back what was written,
// in memory and over a backing file, and the counts add up.
func TestPlainIO(t *testing.T) {
	for _, backed := range []bool{false, true} {
		o := Options{Size: 64 << 10}
		if backed {
			o.Backing = t.TempDir() + "/backing"
		}
		x := MountT(t, o)
		f := openRW(t, x)
		if st, err := f.Stat(); err != nil || st.Size() != 64<<10 {
			t.Fatalf("backed=%v: stat %v size %d", backed, err, st.Size())
		}
		want := bytes.Repeat([]byte("gofio"), 1000)
		if _, err := f.WriteAt(want, 4096); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(want))
		if _, err := f.ReadAt(got, 4096); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("backed=%v: read back %v, equal %v", backed, err, bytes.Equal(got, want))
		}
		c := x.Counts()
		if c.Writes != 1 || c.Reads != 1 || c.WriteBytes != 5000 || c.ReadBytes != 5000 {
			t.Errorf("backed=%v: counts %+v", backed, c)
		}
		if backed {
			b, _ := os.ReadFile(o.Backing)
			if !bytes.Equal(b[4096:4096+5000], want) {
				t.Errorf("backing file does not hold the write")
			}
		}
	}
}

// TestEIOAtOffset: only requests overlapping the bad range fail, and only
// for the operation named.
func TestEIOAtOffset(t *testing.T) {
	x := MountT(t, Options{Size: 64 << 10})
	x.FailAt(Read, 8192, 4096)
	f := openRW(t, x)
	b := make([]byte, 4096)
	if _, err := f.ReadAt(b, 8192); !errors.Is(err, syscall.EIO) {
		t.Errorf("read of the bad block: %v, want EIO", err)
	}
	if _, err := f.ReadAt(b, 4096); err != nil {
		t.Errorf("read of a good block: %v", err)
	}
	if _, err := f.WriteAt(b, 8192); err != nil {
		t.Errorf("write of the read-bad block: %v", err)
	}
	x.FailAt(Write, 0, 1)
	if _, err := f.WriteAt(b, 0); !errors.Is(err, syscall.EIO) {
		t.Errorf("write over the write-bad byte: %v, want EIO", err)
	}
	if c := x.Counts(); c.EIO != 2 {
		t.Errorf("EIO count %d, want 2", c.EIO)
	}
}

// TestDelayEveryNth: every Nth request waits the added latency.
func TestDelayEveryNth(t *testing.T) {
	x := MountT(t, Options{Size: 64 << 10})
	x.Delay(Read, 20*time.Millisecond, 4)
	f := openRW(t, x)
	b := make([]byte, 512)
	var slow int
	for i := 0; i < 8; i++ {
		t0 := time.Now()
		if _, err := f.ReadAt(b, int64(i)*512); err != nil {
			t.Fatal(err)
		}
		if time.Since(t0) >= 20*time.Millisecond {
			slow++
		}
	}
	if c := x.Counts(); c.Delayed != 2 || slow < 2 {
		t.Errorf("delayed %d requests, %d took 20 ms or more; want 2 of 8", c.Delayed, slow)
	}
}

// TestStallUntilRelease: a stalled request does not complete until
// Release, and the others after the let-through ones stall too.
func TestStallUntilRelease(t *testing.T) {
	x := MountT(t, Options{Size: 64 << 10})
	x.Stall(Read, 1)
	f := openRW(t, x)
	b := make([]byte, 4096)
	if _, err := f.ReadAt(b, 0); err != nil {
		t.Fatalf("the let-through read: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := f.ReadAt(make([]byte, 4096), 12288)
		done <- err
	}()
	// Wait for the read to reach the server (on a loaded machine the
	// goroutine may take a while to run), failing if it completes.
	for deadline := time.Now().Add(30 * time.Second); x.Counts().StalledNow == 0 && time.Now().Before(deadline); {
		select {
		case err := <-done:
			t.Fatalf("a stalled read completed: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	select {
	case err := <-done:
		t.Fatalf("a stalled read completed: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	c := x.Counts()
	if c.StalledNow != 1 || c.FirstStallOffset != 12288 || c.FirstStallLength != 4096 {
		t.Errorf("counts during the stall: %+v", c)
	}
	x.Release()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("released read: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the read did not complete after Release")
	}
}

// TestShortIO: reads and writes move at most the short size.
func TestShortIO(t *testing.T) {
	x := MountT(t, Options{Size: 64 << 10})
	x.Short(Any, 1000)
	f := openRW(t, x)
	b := bytes.Repeat([]byte{7}, 4096)
	n, err := syscall.Pwrite(int(f.Fd()), b, 0)
	if err != nil || n != 1000 {
		t.Errorf("pwrite: %d, %v; want 1000 bytes", n, err)
	}
	n, err = syscall.Pread(int(f.Fd()), b, 0)
	if err != nil || n != 1000 {
		t.Errorf("pread: %d, %v; want 1000 bytes", n, err)
	}
	if c := x.Counts(); c.Short != 2 {
		t.Errorf("short count %d, want 2", c.Short)
	}
}

// TestNoSpace: writes past the allowance fail ENOSPC, writes inside the
// file go on.
func TestNoSpace(t *testing.T) {
	x := MountT(t, Options{Size: 8192})
	x.NoSpaceAfter(12288)
	f := openRW(t, x)
	b := make([]byte, 4096)
	for i, want := range []error{nil, nil, nil, syscall.ENOSPC, syscall.ENOSPC} {
		_, err := f.WriteAt(b, int64(i%2)*4096)
		if !errors.Is(err, want) && !(want == nil && err == nil) {
			t.Errorf("write %d: %v, want %v", i, err, want)
		}
	}
	if c := x.Counts(); c.NoSpace != 2 || c.WriteBytes != 12288 {
		t.Errorf("counts %+v; want 2 ENOSPC after 12 KiB", c)
	}
}

// TestVanish: the name goes away and open handles fail.
func TestVanish(t *testing.T) {
	x := MountT(t, Options{Size: 8192})
	f := openRW(t, x)
	x.Vanish(0)
	if _, err := f.ReadAt(make([]byte, 512), 0); !errors.Is(err, syscall.ENODEV) {
		t.Errorf("read after vanish: %v, want ENODEV", err)
	}
	if _, err := os.Stat(x.Path()); !os.IsNotExist(err) {
		t.Errorf("stat after vanish: %v, want not-exist", err)
	}
}

// TestUnmountWithStalledRequest: Unmount releases a stall and leaves the
// mount point unmounted.
func TestUnmountWithStalledRequest(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	x, err := Mount(dir, Options{Size: 8192})
	if err != nil {
		t.Fatal(err)
	}
	x.Stall(Read, 0)
	f, err := os.Open(x.Path())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		f.ReadAt(make([]byte, 512), 0)
		close(done)
	}()
	time.Sleep(50 * time.Millisecond)
	if err := x.Unmount(); err != nil {
		t.Fatal(err)
	}
	<-done
	f.Close()
	m, _ := os.ReadFile("/proc/self/mountinfo")
	if strings.Contains(string(m), " "+dir+" ") {
		t.Errorf("%s still mounted", dir)
	}
}

// TestAbsentCreateUnlink: an Absent mount is empty; O_CREAT creates the
// file, writes go through, unlink removes it and its data, and any other
// name cannot be created.
func TestAbsentCreateUnlink(t *testing.T) {
	x := MountT(t, Options{Absent: true})
	if _, err := os.Stat(x.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stat before create: %v, want not exist", err)
	}
	f, err := os.OpenFile(x.Path(), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(make([]byte, 8192), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if st, err := os.Stat(x.Path()); err != nil || st.Size() != 8192 {
		t.Fatalf("stat after write: %v, %v; want 8192 bytes", st, err)
	}
	if err := os.Remove(x.Path()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(x.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stat after unlink: %v, want not exist", err)
	}
	if _, err := os.Create(x.Dir() + "/other"); err == nil {
		t.Error("created a file of another name")
	}
	if c := x.Counts(); c.Creates != 1 || c.Unlinks != 1 || c.WriteBytes != 8192 {
		t.Errorf("counts %+v; want 1 create, 1 unlink, 8 KiB written", c)
	}
}
