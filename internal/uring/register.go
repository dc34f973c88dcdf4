package uring

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// RegisterBuffers registers iovecs as fixed buffers, numbered by their
// index (buf_index of READ_FIXED/WRITE_FIXED). The memory must be anonymous
// and stay mapped until UnregisterBuffers or QueueExit. ENOMEM (pages are
// charged to RLIMIT_MEMLOCK without CAP_IPC_LOCK) and EFAULT (a buffer over
// 1 GiB) come back with an explanation.
func (r *Ring) RegisterBuffers(iovecs []unix.Iovec) error {
	if len(iovecs) == 0 {
		return errors.New("io_uring: register buffers: no buffers")
	}
	if len(iovecs) > MaxRegBuffers {
		return fmt.Errorf("io_uring: register buffers: %d buffers, the kernel allows at most %d: %w",
			len(iovecs), MaxRegBuffers, unix.EINVAL)
	}
	_, err := sysRegister(r.fd, registerBuffers, unsafe.Pointer(&iovecs[0]), uint32(len(iovecs)))
	runtime.KeepAlive(iovecs)
	if err != nil {
		return explainRegisterBuffers(iovecs, err)
	}
	r.bufsReg = true
	return nil
}

// RegisterBufferSlices registers each slice of bufs as one fixed buffer.
func (r *Ring) RegisterBufferSlices(bufs [][]byte) error {
	iov := make([]unix.Iovec, len(bufs))
	for i, b := range bufs {
		if len(b) > 0 {
			iov[i].Base = &b[0]
			iov[i].SetLen(len(b))
		}
	}
	return r.RegisterBuffers(iov)
}

// explainRegisterBuffers turns the kernel's errno into words.
func explainRegisterBuffers(iovecs []unix.Iovec, err error) error {
	var total uint64
	for i, v := range iovecs {
		total += v.Len
		if errors.Is(err, unix.EFAULT) && v.Len > MaxRegBufferLen {
			return fmt.Errorf("io_uring: register buffers: buffer %d is %d bytes, over the kernel's 1 GiB limit per registered buffer: %w",
				i, v.Len, err)
		}
	}
	if errors.Is(err, unix.ENOMEM) {
		var lim unix.Rlimit
		unix.Getrlimit(unix.RLIMIT_MEMLOCK, &lim)
		return fmt.Errorf("io_uring: register buffers: %d bytes must be pinned, which is charged to RLIMIT_MEMLOCK (soft %s) without CAP_IPC_LOCK; raise it with ulimit -l or run with CAP_IPC_LOCK: %w",
			total, rlimitString(lim.Cur), err)
	}
	if errors.Is(err, unix.EBUSY) {
		return fmt.Errorf("io_uring: register buffers: buffers are already registered: %w", err)
	}
	return fmt.Errorf("io_uring: register %d buffers (%d bytes): %w", len(iovecs), total, err)
}

func rlimitString(v uint64) string {
	if v == unix.RLIM_INFINITY {
		return "unlimited"
	}
	return fmt.Sprintf("%d bytes", v)
}

// UnregisterBuffers drops the registered buffers.
func (r *Ring) UnregisterBuffers() error {
	r.bufsReg = false
	return r.registerNoArg(unregisterBuffers, "io_uring: unregister buffers")
}

// RegisterFiles registers fds (the kernel reads __s32 values; -1 leaves a
// slot empty). With SqeFixedFile an SQE's fd is then an index into fds.
func (r *Ring) RegisterFiles(fds []int32) error {
	if len(fds) == 0 {
		return errors.New("io_uring: register files: no files")
	}
	_, err := sysRegister(r.fd, registerFiles, unsafe.Pointer(&fds[0]), uint32(len(fds)))
	runtime.KeepAlive(fds)
	if err != nil {
		return fmt.Errorf("io_uring: register %d files: %w", len(fds), err)
	}
	r.filesReg = true
	return nil
}

// UnregisterFiles drops the registered files.
func (r *Ring) UnregisterFiles() error {
	r.filesReg = false
	return r.registerNoArg(unregisterFiles, "io_uring: unregister files")
}

// RegisterIOWQMaxWorkers sets the io-wq limits {bounded, unbounded}; 0
// leaves a limit as it is. It returns the previous limits, so {0, 0}
// queries them.
func (r *Ring) RegisterIOWQMaxWorkers(vals [2]uint32) ([2]uint32, error) {
	v := new([2]uint32)
	*v = vals
	_, err := sysRegister(r.fd, registerIOWQMaxWorkers, unsafe.Pointer(v), 2)
	if err != nil {
		return [2]uint32{}, fmt.Errorf("io_uring: register IOWQ_MAX_WORKERS %v: %w", vals, err)
	}
	return *v, nil
}

// RegisterIOWQAff restricts the ring's io-wq workers to the CPUs in set.
func (r *Ring) RegisterIOWQAff(set *unix.CPUSet) error {
	_, err := sysRegister(r.fd, registerIOWQAff, unsafe.Pointer(set), uint32(unsafe.Sizeof(*set)))
	if err != nil {
		return fmt.Errorf("io_uring: register IOWQ_AFF: %w", err)
	}
	return nil
}

// UnregisterIOWQAff drops the io-wq CPU restriction.
func (r *Ring) UnregisterIOWQAff() error {
	return r.registerNoArg(unregisterIOWQAff, "io_uring: unregister IOWQ_AFF")
}

// registerNoArg runs io_uring_register's opcode op, which takes no
// argument, its error wrapped as what.
func (r *Ring) registerNoArg(op uint32, what string) error {
	if _, err := sysRegister(r.fd, op, nil, 0); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// GetProbeRing asks the kernel which opcodes it supports (5.6+).
func (r *Ring) GetProbeRing() (*Probe, error) {
	p := new(Probe)
	_, err := sysRegister(r.fd, registerProbe, unsafe.Pointer(p), uint32(len(p.Ops)))
	if err != nil {
		return nil, fmt.Errorf("io_uring: register PROBE: %w", err)
	}
	return p, nil
}

// GetProbe sets up a small ring, probes it and tears it down.
func GetProbe() (*Probe, error) {
	r := NewRing()
	if err := r.QueueInit(2, 0); err != nil {
		return nil, err
	}
	defer r.QueueExit()
	return r.GetProbeRing()
}

// rsrcUpdate is struct io_uring_rsrc_update.
type rsrcUpdate struct {
	Offset uint32
	Resv   uint32
	Data   uint64
}

// RegisterRingFd registers the ring fd in the calling thread's table
// (RING_FDS, 5.18), so later enters pass an index and skip the fd lookup.
// The index is valid only on this OS thread: lock the goroutine to it.
func (r *Ring) RegisterRingFd() error {
	if r.intFlags&intFlagRegRing != 0 {
		return errors.New("io_uring: ring fd already registered")
	}
	u := &rsrcUpdate{Offset: ^uint32(0), Data: uint64(r.fd)}
	n, err := sysRegister(r.fd, registerRingFds, unsafe.Pointer(u), 1)
	if err != nil {
		return fmt.Errorf("io_uring: register RING_FDS: %w", err)
	}
	if n != 1 {
		return fmt.Errorf("io_uring: register RING_FDS registered %d rings", n)
	}
	r.enterFd = int(u.Offset)
	r.enterFlags = EnterRegisteredRing
	r.intFlags |= intFlagRegRing
	return nil
}

// UnregisterRingFd removes the ring from the calling thread's table.
func (r *Ring) UnregisterRingFd() error {
	if r.intFlags&intFlagRegRing == 0 {
		return nil
	}
	u := &rsrcUpdate{Offset: uint32(r.enterFd)}
	_, err := sysRegister(r.fd, unregisterRingFds, unsafe.Pointer(u), 1)
	if err != nil {
		return fmt.Errorf("io_uring: unregister RING_FDS: %w", err)
	}
	r.enterFd = r.fd
	r.enterFlags = 0
	r.intFlags &^= intFlagRegRing
	return nil
}
