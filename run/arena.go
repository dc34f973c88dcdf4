package run

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// arena is one anonymous mapping cut into per-slot buffers. The mapping is
// page-aligned (as O_DIRECT and registered buffers need) and never moved by
// the garbage collector.
type arena struct {
	mem  []byte
	bufs [][]byte
}

// newArena maps n buffers of size bytes each. Every buffer starts on a
// multiple of its size rounded up to 512 bytes, so 4 KiB buffers are
// page-aligned.
func newArena(n int, size uint64) (*arena, error) {
	stride := (size + 511) &^ 511
	if stride >= 4096 {
		stride = (stride + 4095) &^ 4095
	}
	total := stride * uint64(n)
	total = (total + 4095) &^ 4095
	mem, err := unix.Mmap(-1, 0, int(total), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("map %d buffers of %d bytes: %w", n, size, err)
	}
	a := &arena{mem: mem, bufs: make([][]byte, n)}
	for i := range a.bufs {
		off := uint64(i) * stride
		a.bufs[i] = mem[off : off+size : off+size]
	}
	return a, nil
}

// close unmaps the arena. The buffers must no longer be in flight.
func (a *arena) close() error {
	if a == nil || a.mem == nil {
		return nil
	}
	err := unix.Munmap(a.mem)
	a.mem, a.bufs = nil, nil
	return err
}
