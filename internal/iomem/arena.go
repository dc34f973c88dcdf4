package iomem

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/jobfile"
)

// Arena is one mapping cut into per-slot buffers: anonymous by default,
// or what mem= asks for (a SysV shared memory segment, huge pages, a
// shared or file-backed mapping). It is page-aligned (as O_DIRECT and
// registered buffers need) and never moved by the garbage collector.
type Arena struct {
	Mem  []byte   // the whole mapping
	Bufs [][]byte // one buffer per slot
	// shm is the segment's id with mem=shm or shmhuge, else -1.
	shm int
	// file is mem=mmap:PATH's file, removed at close unless it existed
	// before (keep).
	file string
	keep bool
}

// Error is an allocation that failed in the call Fn (fio's func= of
// the job's error: "mmap", "shmget", ...).
type Error struct {
	Fn  string // fio's func= of the failure
	err error
}

func (e *Error) Error() string { return e.Fn + ": " + e.err.Error() }
func (e *Error) Unwrap() error { return e.err }

// New maps n buffers of size bytes each, as mem= (fio's
// allocate_io_mem) asks, with hugepage-size for the huge kinds. Every
// buffer starts on a multiple of its size rounded up to 512 bytes, so
// 4 KiB buffers are page-aligned.
func New(n int, size uint64, j *jobfile.Job) (*Arena, error) {
	stride := (size + 511) &^ 511
	if stride >= 4096 {
		stride = (stride + 4095) &^ 4095
	}
	total := stride * uint64(n)
	total = (total + 4095) &^ 4095
	a := &Arena{Bufs: make([][]byte, n), shm: -1}
	huge := j.Mem == "mmaphuge" || j.Mem == "shmhuge"
	if huge && j.HugepageSize > 0 {
		// fio's alloc_mem_shm and alloc_mem_mmap round up to it.
		total = (total + j.HugepageSize - 1) / j.HugepageSize * j.HugepageSize
	}
	var err error
	switch {
	case j.Mem == "shm" || j.Mem == "shmhuge":
		err = a.mapShm(total, huge)
	case j.MemFile != "":
		err = a.mapFile(total, j)
	default:
		flags := unix.MAP_PRIVATE | unix.MAP_ANONYMOUS | unix.MAP_POPULATE
		switch j.Mem {
		case "mmapshared":
			flags = unix.MAP_SHARED | unix.MAP_ANONYMOUS | unix.MAP_POPULATE
		case "mmaphuge":
			flags |= unix.MAP_HUGETLB
		}
		if a.Mem, err = unix.Mmap(-1, 0, int(total), unix.PROT_READ|unix.PROT_WRITE, flags); err != nil {
			err = &Error{"mmap", err}
		}
	}
	if err != nil {
		hint := ""
		if huge && errors.Is(err, unix.ENOMEM) {
			// fio: "no huge pages available, do you need to allocate some?"
			hint = " (no huge pages available: see HugePages_Free in /proc/meminfo, /proc/sys/vm/nr_hugepages)"
		}
		return nil, fmt.Errorf("map %d buffers of %d bytes (mem=%s): %w%s", n, size, j.Mem, err, hint)
	}
	for i := range a.Bufs {
		off := uint64(i) * stride
		a.Bufs[i] = a.Mem[off : off+size : off+size]
	}
	return a, nil
}

// shmHugeTLB is Linux's SHM_HUGETLB shmget flag.
const shmHugeTLB = 0o4000

// mapShm attaches a new private SysV segment of total bytes (with
// SHM_HUGETLB when huge), as fio's alloc_mem_shm; it is marked for
// removal at once, so that it goes when the process does.
func (a *Arena) mapShm(total uint64, huge bool) error {
	flags := unix.IPC_CREAT | 0o600
	if huge {
		flags |= shmHugeTLB
	}
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, int(total), flags)
	if err != nil {
		return &Error{"shmget", err}
	}
	mem, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		_, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil)
		return &Error{"shmat", err}
	}
	_, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	a.Mem, a.shm = mem, id
	return nil
}

// mapFile maps mem=mmap:PATH (or mmapshared:, mmaphuge:), as fio's
// alloc_mem_mmap: the file is created (mode 0644) and, for plain mmap,
// sized to total and mapped privately; the others are mapped shared as
// they are. A file gofio created is removed again at close.
func (a *Arena) mapFile(total uint64, j *jobfile.Job) error {
	_, statErr := os.Stat(j.MemFile)
	a.file, a.keep = j.MemFile, statErr == nil
	fd, err := unix.Open(j.MemFile, unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return &Error{"open mmap file", err}
	}
	defer unix.Close(fd)
	flags := unix.MAP_SHARED
	if j.Mem == "mmap" {
		if err := unix.Ftruncate(fd, int64(total)); err != nil {
			a.removeFile()
			return &Error{"truncate mmap file", err}
		}
		flags = unix.MAP_PRIVATE
	}
	if a.Mem, err = unix.Mmap(fd, 0, int(total), unix.PROT_READ|unix.PROT_WRITE, flags); err != nil {
		a.removeFile()
		return &Error{"mmap", err}
	}
	return nil
}

// removeFile removes mem=mmap:PATH's file unless it existed before.
func (a *Arena) removeFile() {
	if a.file != "" && !a.keep {
		_ = os.Remove(a.file)
	}
}

// Close unmaps the Arena (detaches its segment) and removes a mapped file
// gofio created. The buffers must no longer be in flight.
func (a *Arena) Close() error {
	if a == nil || a.Mem == nil {
		return nil
	}
	var err error
	if a.shm >= 0 {
		err = unix.SysvShmDetach(a.Mem)
	} else {
		err = unix.Munmap(a.Mem)
	}
	a.removeFile()
	a.Mem, a.Bufs = nil, nil
	return err
}
