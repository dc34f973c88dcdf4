// Package faultfs is a fault-injecting FUSE filesystem for tests: it serves
// one regular file, backed by memory or by a real file, whose I/O can be
// made to fail, slow down, stall, come back short, run out of space or
// vanish, per test and while the file is in use.
//
// Every file handle is opened with FOPEN_DIRECT_IO, so each read and write
// of the application reaches the server as its own request (split at the
// mount's max_write): faults apply to the I/O the application issued,
// not to page-cache traffic. The server runs on goroutines of the calling
// process, and the kernel calls back into them, so a test may mount the
// filesystem and run I/O against it from the same process, under io_uring
// (which punts FUSE I/O to its io-wq workers), psync or libaio.
//
// Rules: Mount needs /dev/fuse and either root (mount(2) directly) or
// fusermount3; Available says whether it can work and why not. Unmount
// releases every stalled request first and falls back to a lazy unmount,
// so a test that calls it from t.Cleanup leaves nothing mounted even when
// a request is still in the kernel.
package faultfs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// Op selects which requests a fault applies to.
type Op uint8

// The operations a fault can apply to.
const (
	Read Op = 1 << iota
	Write
	Any = Read | Write
)

func (o Op) String() string {
	switch o {
	case Read:
		return "read"
	case Write:
		return "write"
	}
	return "read/write"
}

// Options says what the mounted file is.
type Options struct {
	// Name is the file's name in the mount; "data" when empty.
	Name string
	// Size is the file's initial size in bytes (memory backing) or, with
	// Backing, the size the backing file is extended to when shorter.
	Size int64
	// Backing is a real file whose contents the file serves; empty keeps
	// the contents in memory.
	Backing string
	// MaxWrite is the largest request the kernel sends (max_write and
	// max_read); 0 is go-fuse's default of 128 KiB.
	MaxWrite int
	// Absent leaves the mount empty until an application creates the
	// file (open with O_CREAT, memory backing only); unlink removes it
	// again, so a test can see an application create and remove it.
	// Without Absent the file is always there and cannot be removed.
	Absent bool
}

// Counts are what the filesystem saw and injected, for a test to check
// its accounting against.
type Counts struct {
	Reads, Writes     uint64 // requests served or failed
	ReadBytes         uint64 // bytes returned by reads
	WriteBytes        uint64 // bytes accepted by writes
	EIO               uint64 // requests failed with EIO at a bad range
	Delayed           uint64 // requests given added latency
	Stalled           uint64 // requests held by a stall
	Short             uint64 // requests answered short
	NoSpace           uint64 // writes failed with ENOSPC (or EDQUOT)
	Vanished          uint64 // requests failed because the file vanished
	StalledNow        int    // requests held right now
	FirstStallOffset  int64  // offset of the first stalled request, -1 when none
	FirstStallLength  int    // its length
	InterruptedStalls uint64 // stalled requests the kernel interrupted
	Creates, Unlinks  uint64 // the file created and removed (Absent)
}

type badRange struct {
	op       Op
	off, end int64
}

// faults is the fault state, guarded by FS.mu.
type faults struct {
	bad        []badRange
	delay      time.Duration
	delayEvery int // every Nth request (counted over reads and writes); <= 1: all
	delayOp    Op
	stallOp    Op
	stallAfter int // requests to let through before stalling
	release    chan struct{}
	shortOp    Op
	shortMax   int           // most bytes a short request moves
	spaceLeft  int64         // bytes writes may still allocate past the end; -1: unlimited
	spaceErr   syscall.Errno // what a write past spaceLeft fails with: ENOSPC, or EDQUOT (QuotaAfter)
	vanished   bool
	vanishErr  syscall.Errno
	seq        int // requests seen by the latency rule
}

// FS is one mounted fault-injecting filesystem.
type FS struct {
	dir    string
	name   string
	server *fuse.Server
	root   *fs.Inode

	mu      sync.Mutex
	f       faults
	c       Counts
	mem     []byte
	backing *os.File
	size    int64
	absent  bool // Options.Absent
	once    sync.Once
	trace   func(op Op, off int64, n int, begin bool) // Trace's, guarded by mu
}

// Available reports whether a FUSE filesystem can be mounted here, and
// why not: /dev/fuse must open, and mounting needs root or fusermount3.
func Available() error {
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("faultfs: /dev/fuse: %w", err)
	}
	f.Close()
	if os.Geteuid() == 0 {
		return nil
	}
	for _, b := range []string{"fusermount3", "fusermount"} {
		if _, err := exec.LookPath(b); err == nil {
			return nil
		}
	}
	return errors.New("faultfs: not root and no fusermount3 on PATH")
}

// Mount mounts a new filesystem on dir, an existing empty directory, and
// returns it with no fault set. The file is at Path().
func Mount(dir string, o Options) (*FS, error) {
	if o.Absent && o.Backing != "" {
		return nil, errors.New("faultfs: Absent needs memory backing")
	}
	x := &FS{dir: dir, name: o.Name, size: o.Size, absent: o.Absent}
	if o.Absent {
		x.size = 0
	}
	if x.name == "" {
		x.name = "data"
	}
	x.f.spaceLeft = -1
	x.c.FirstStallOffset = -1
	if o.Backing != "" {
		b, err := os.OpenFile(o.Backing, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("faultfs: backing: %w", err)
		}
		st, err := b.Stat()
		if err != nil {
			b.Close()
			return nil, fmt.Errorf("faultfs: backing: %w", err)
		}
		if st.Size() < o.Size {
			if err := b.Truncate(o.Size); err != nil {
				b.Close()
				return nil, fmt.Errorf("faultfs: backing: %w", err)
			}
		} else {
			x.size = st.Size()
		}
		x.backing = b
	} else {
		x.mem = make([]byte, x.size)
	}
	root := &rootNode{fs: x}
	mo := fuse.MountOptions{
		FsName:        "faultfs",
		Name:          "faultfs",
		DirectMount:   os.Geteuid() == 0,
		MaxWrite:      o.MaxWrite,
		DisableXAttrs: true,
	}
	if o.MaxWrite > 0 {
		mo.MaxReadAhead = o.MaxWrite
	}
	zero := time.Duration(0)
	srv, err := fs.Mount(dir, root, &fs.Options{
		MountOptions: mo,
		EntryTimeout: &zero,
		AttrTimeout:  &zero,
	})
	if err != nil {
		if x.backing != nil {
			x.backing.Close()
		}
		return nil, fmt.Errorf("faultfs: mount %s: %w", dir, err)
	}
	x.server = srv
	return x, nil
}

// Path returns the path of the served file.
func (x *FS) Path() string { return filepath.Join(x.dir, x.name) }

// Dir returns the mount point.
func (x *FS) Dir() string { return x.dir }

// Unmount releases every stalled request and unmounts. When the kernel
// still holds the mount busy it detaches it lazily (MNT_DETACH), so the
// mount point is free either way. It is safe to call more than once.
func (x *FS) Unmount() error {
	var err error
	x.once.Do(func() {
		x.Release()
		done := make(chan error, 1)
		go func() { done <- x.server.Unmount() }()
		select {
		case err = <-done:
		case <-time.After(5 * time.Second):
			err = errors.New("unmount timed out")
		}
		if err != nil {
			// A request the server will never answer keeps the mount
			// busy; aborting the connection fails it with ENOTCONN.
			x.abort()
			if lerr := unix.Unmount(x.dir, unix.MNT_DETACH); lerr == nil {
				err = nil
			} else {
				err = fmt.Errorf("faultfs: unmount %s: %w (lazy: %v)", x.dir, err, lerr)
			}
		}
		if x.backing != nil {
			x.backing.Close()
		}
	})
	return err
}

// abort aborts the mount's FUSE connection through fusectl
// (/sys/fs/fuse/connections/N/abort, N the mount's device minor),
// mounting fusectl first when it is not (and unmounting it after); every request still waiting in
// the kernel then fails with ENOTCONN. It is best effort.
func (x *FS) abort() {
	var st unix.Stat_t
	if unix.Stat(x.dir, &st) != nil {
		return
	}
	const ctl = "/sys/fs/fuse/connections"
	p := fmt.Sprintf("%s/%d/abort", ctl, unix.Minor(st.Dev))
	mounted := false
	if _, err := os.Stat(p); err != nil {
		mounted = unix.Mount("fusectl", ctl, "fusectl", 0, "") == nil
	}
	_ = os.WriteFile(p, []byte("1"), 0)
	if mounted {
		// Leave the host as it was: fusectl was mounted only for this.
		_ = unix.Unmount(ctl, 0)
	}
}

// Counts returns what the filesystem has seen so far.
func (x *FS) Counts() Counts {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.c
}

// FailAt makes every op request overlapping [off, off+length) fail with
// EIO, as a bad sector does.
func (x *FS) FailAt(op Op, off, length int64) {
	x.mu.Lock()
	x.f.bad = append(x.f.bad, badRange{op: op, off: off, end: off + length})
	x.mu.Unlock()
}

// Delay adds d to every every-th op request (counted over the requests
// the rule sees, from 1); every <= 1 delays all of them.
func (x *FS) Delay(op Op, d time.Duration, every int) {
	x.mu.Lock()
	x.f.delay, x.f.delayEvery, x.f.delayOp, x.f.seq = d, every, op, 0
	x.mu.Unlock()
}

// Trace calls fn, under the filesystem's lock, when a read or write
// request arrives (begin true, before any fault applies) and when it has
// been served or failed (begin false), with the offset and length the
// application asked for: the order in which the server saw the I/O. nil
// stops tracing.
func (x *FS) Trace(fn func(op Op, off int64, n int, begin bool)) {
	x.mu.Lock()
	x.trace = fn
	x.mu.Unlock()
}

// traced is request's end for Trace.
func (x *FS) traced(op Op, off int64, n int) {
	x.mu.Lock()
	if x.trace != nil {
		x.trace(op, off, n, false)
	}
	x.mu.Unlock()
}

// Stall holds every op request after the first after ones until Release
// (or Unmount): the I/O never completes on its own.
func (x *FS) Stall(op Op, after int) {
	x.mu.Lock()
	x.f.stallOp, x.f.stallAfter = op, after
	if x.f.release == nil {
		x.f.release = make(chan struct{})
	}
	x.mu.Unlock()
}

// Release ends the stall and lets every held request go on.
func (x *FS) Release() {
	x.mu.Lock()
	x.f.stallOp = 0
	if x.f.release != nil {
		close(x.f.release)
		x.f.release = nil
	}
	x.mu.Unlock()
}

// Short makes every op request move at most max bytes (at least 1).
func (x *FS) Short(op Op, max int) {
	x.mu.Lock()
	x.f.shortOp, x.f.shortMax = op, max
	x.mu.Unlock()
}

// NoSpaceAfter lets writes store n more bytes; a write that needs more
// fails with ENOSPC, as on a full thin-provisioned device, and so does
// growing the file by truncate or fallocate past what is left.
func (x *FS) NoSpaceAfter(n int64) {
	x.mu.Lock()
	x.f.spaceLeft, x.f.spaceErr = n, syscall.ENOSPC
	x.mu.Unlock()
}

// QuotaAfter is NoSpaceAfter with EDQUOT, as when a disk quota runs out.
func (x *FS) QuotaAfter(n int64) {
	x.mu.Lock()
	x.f.spaceLeft, x.f.spaceErr = n, syscall.EDQUOT
	x.mu.Unlock()
}

// Vanish removes the file: its name is gone and every request on a handle
// still open fails with errno (ENODEV when 0), as when a disk is pulled.
func (x *FS) Vanish(errno syscall.Errno) {
	if errno == 0 {
		errno = syscall.ENODEV
	}
	x.mu.Lock()
	x.f.vanished, x.f.vanishErr = true, errno
	x.mu.Unlock()
	x.root.RmChild(x.name)
	// Tell the kernel the name is gone; ENOENT means it never cached it.
	_ = x.root.NotifyEntry(x.name)
}

// request applies the faults to one request of op at [off, off+n) and
// returns how many bytes it may move, or an errno. It sleeps for added
// latency and blocks for a stall, outside the lock.
func (x *FS) request(ctx context.Context, op Op, off int64, n int) (int, syscall.Errno) {
	x.mu.Lock()
	if x.trace != nil {
		x.trace(op, off, n, true)
	}
	if op == Read {
		x.c.Reads++
	} else {
		x.c.Writes++
	}
	f := &x.f
	if f.vanished {
		x.c.Vanished++
		x.mu.Unlock()
		return 0, f.vanishErr
	}
	for _, b := range f.bad {
		if b.op&op != 0 && off < b.end && off+int64(n) > b.off {
			x.c.EIO++
			x.mu.Unlock()
			return 0, syscall.EIO
		}
	}
	var delay time.Duration
	if f.delayOp&op != 0 && f.delay > 0 {
		f.seq++
		if f.delayEvery <= 1 || f.seq%f.delayEvery == 0 {
			delay = f.delay
			x.c.Delayed++
		}
	}
	var release chan struct{}
	if f.stallOp&op != 0 {
		if f.stallAfter > 0 {
			f.stallAfter--
		} else {
			release = f.release
			x.c.Stalled++
			x.c.StalledNow++
			if x.c.FirstStallOffset < 0 {
				x.c.FirstStallOffset, x.c.FirstStallLength = off, n
			}
		}
	}
	if f.shortOp&op != 0 && f.shortMax > 0 && n > f.shortMax {
		n = f.shortMax
		x.c.Short++
	}
	x.mu.Unlock()
	if delay > 0 {
		time.Sleep(delay)
	}
	if release != nil {
		// A stall ignores interrupts, as a hung device does: only
		// Release (or Unmount) ends it.
		<-release
		x.mu.Lock()
		x.c.StalledNow--
		if ctx.Err() != nil {
			x.c.InterruptedStalls++
		}
		x.mu.Unlock()
	}
	return n, 0
}

func (x *FS) read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	defer x.traced(Read, off, len(dest))
	n, errno := x.request(ctx, Read, off, len(dest))
	if errno != 0 {
		return nil, errno
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if off >= x.size {
		return fuse.ReadResultData(nil), 0
	}
	if end := x.size - off; int64(n) > end {
		n = int(end)
	}
	if x.backing != nil {
		got, err := x.backing.ReadAt(dest[:n], off)
		if err != nil && got < n {
			return nil, syscall.EIO
		}
	} else {
		copy(dest[:n], x.mem[off:])
	}
	x.c.ReadBytes += uint64(n)
	return fuse.ReadResultData(dest[:n]), 0
}

func (x *FS) write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	defer x.traced(Write, off, len(data))
	n, errno := x.request(ctx, Write, off, len(data))
	if errno != 0 {
		return 0, errno
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.f.spaceLeft >= 0 {
		if int64(n) > x.f.spaceLeft {
			x.c.NoSpace++
			return 0, x.f.spaceErr
		}
		x.f.spaceLeft -= int64(n)
	}
	if err := x.store(data[:n], off); err != nil {
		return 0, syscall.EIO
	}
	x.c.WriteBytes += uint64(n)
	return uint32(n), 0
}

// store writes p at off, growing the file; x.mu is held.
func (x *FS) store(p []byte, off int64) error {
	end := off + int64(len(p))
	if x.backing != nil {
		if _, err := x.backing.WriteAt(p, off); err != nil {
			return err
		}
	} else {
		if end > int64(len(x.mem)) {
			x.mem = append(x.mem, make([]byte, end-int64(len(x.mem)))...)
		}
		copy(x.mem[off:], p)
	}
	if end > x.size {
		x.size = end
	}
	return nil
}

// truncate sets the file's size; x.mu is held.
func (x *FS) truncate(size int64) syscall.Errno {
	if grow := size - x.size; grow > 0 && x.f.spaceLeft >= 0 {
		if grow > x.f.spaceLeft {
			x.c.NoSpace++
			return x.f.spaceErr
		}
		x.f.spaceLeft -= grow
	}
	if x.backing != nil {
		if err := x.backing.Truncate(size); err != nil {
			return syscall.EIO
		}
	} else if size <= int64(len(x.mem)) {
		clear(x.mem[size:])
		x.mem = x.mem[:size]
	} else {
		x.mem = append(x.mem, make([]byte, size-int64(len(x.mem)))...)
	}
	x.size = size
	return 0
}

// rootNode is the mount's directory holding the one file.
type rootNode struct {
	fs.Inode
	fs *FS
}

var (
	_ fs.NodeOnAdder  = (*rootNode)(nil)
	_ fs.NodeCreater  = (*rootNode)(nil)
	_ fs.NodeUnlinker = (*rootNode)(nil)
	_ fs.NodeStatfser = (*rootNode)(nil)
)

func (r *rootNode) OnAdd(ctx context.Context) {
	r.fs.root = &r.Inode
	if r.fs.absent {
		return
	}
	ch := r.NewPersistentInode(ctx, &fileNode{fs: r.fs}, fs.StableAttr{Mode: syscall.S_IFREG, Ino: 2})
	r.AddChild(r.fs.name, ch, true)
}

// Create creates the file of an Absent filesystem, empty; any other name,
// or the file of one that is not Absent, is refused with EACCES.
func (r *rootNode) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	x := r.fs
	if !x.absent || name != x.name {
		return nil, nil, 0, syscall.EACCES
	}
	x.mu.Lock()
	x.mem, x.size = nil, 0
	x.c.Creates++
	x.mu.Unlock()
	n := &fileNode{fs: x}
	ch := r.NewPersistentInode(ctx, n, fs.StableAttr{Mode: syscall.S_IFREG, Ino: 2})
	var a fuse.AttrOut
	n.Getattr(ctx, nil, &a)
	out.Attr = a.Attr
	return ch, nil, fuse.FOPEN_DIRECT_IO, 0
}

// Unlink removes the file of an Absent filesystem and drops its data;
// that of one that is not Absent cannot be removed (EPERM).
func (r *rootNode) Unlink(ctx context.Context, name string) syscall.Errno {
	x := r.fs
	if !x.absent || name != x.name {
		return syscall.EPERM
	}
	x.mu.Lock()
	x.mem, x.size = nil, 0
	x.c.Unlinks++
	x.mu.Unlock()
	return 0
}

// Statfs reports no size (f_blocks 0), as a FUSE filesystem without
// statfs does: the filesystem has no fixed capacity.
func (r *rootNode) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	out.Bsize, out.Frsize, out.NameLen = 4096, 4096, 255
	return 0
}

// fileNode is the served file.
type fileNode struct {
	fs.Inode
	fs *FS
}

var (
	_ fs.NodeOpener    = (*fileNode)(nil)
	_ fs.NodeReader    = (*fileNode)(nil)
	_ fs.NodeWriter    = (*fileNode)(nil)
	_ fs.NodeGetattrer = (*fileNode)(nil)
	_ fs.NodeSetattrer = (*fileNode)(nil)
	_ fs.NodeFsyncer   = (*fileNode)(nil)
	_ fs.NodeFlusher   = (*fileNode)(nil)
	_ fs.NodeAllocater = (*fileNode)(nil)
)

func (n *fileNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	n.fs.mu.Lock()
	defer n.fs.mu.Unlock()
	if n.fs.f.vanished {
		return nil, 0, syscall.ENOENT
	}
	if flags&syscall.O_TRUNC != 0 {
		if e := n.fs.truncate(0); e != 0 {
			return nil, 0, e
		}
	}
	return nil, fuse.FOPEN_DIRECT_IO, 0
}

func (n *fileNode) Read(ctx context.Context, _ fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	return n.fs.read(ctx, dest, off)
}

func (n *fileNode) Write(ctx context.Context, _ fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	return n.fs.write(ctx, data, off)
}

func (n *fileNode) Getattr(ctx context.Context, _ fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.fs.mu.Lock()
	defer n.fs.mu.Unlock()
	out.Mode = syscall.S_IFREG | 0o644
	out.Size = uint64(n.fs.size)
	out.Blocks = (out.Size + 511) / 512
	out.Blksize = 4096
	out.Nlink = 1
	return 0
}

func (n *fileNode) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if size, ok := in.GetSize(); ok {
		n.fs.mu.Lock()
		e := n.fs.truncate(int64(size))
		n.fs.mu.Unlock()
		if e != 0 {
			return e
		}
	}
	return n.Getattr(ctx, fh, out)
}

func (n *fileNode) Allocate(ctx context.Context, _ fs.FileHandle, off, size uint64, mode uint32) syscall.Errno {
	if mode != 0 {
		return syscall.EOPNOTSUPP
	}
	n.fs.mu.Lock()
	defer n.fs.mu.Unlock()
	if end := int64(off + size); end > n.fs.size {
		return n.fs.truncate(end)
	}
	return 0
}

func (n *fileNode) Fsync(ctx context.Context, _ fs.FileHandle, flags uint32) syscall.Errno {
	n.fs.mu.Lock()
	defer n.fs.mu.Unlock()
	if n.fs.f.vanished {
		return n.fs.f.vanishErr
	}
	if n.fs.backing != nil {
		if err := n.fs.backing.Sync(); err != nil {
			return syscall.EIO
		}
	}
	return 0
}

func (n *fileNode) Flush(ctx context.Context, _ fs.FileHandle) syscall.Errno { return 0 }
