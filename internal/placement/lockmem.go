package placement

import (
	"fmt"
	"io"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/jobfile"
)

// PinMemory is fio's fio_pin_memory for lockmem=: it maps the job's
// lockmem bytes and mlocks them for the length of the job, at most the
// machine's memory less 128 MiB (saying so on info, as fio). It returns
// the mapping for UnpinMemory, nil without lockmem, or the failed call's
// error: fio then skips the job's I/O without an error.
func PinMemory(j *jobfile.Job, info io.Writer) ([]byte, error) {
	n := j.LockMem
	if n == 0 {
		return nil, nil
	}
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) == nil {
		if phys := uint64(si.Totalram) * uint64(si.Unit); phys > 0 && n+128<<20 > phys {
			n = phys - 128<<20
			if info != nil {
				fmt.Fprintf(info, "fio: limiting mlocked memory to %dMiB\n", n>>20)
			}
		}
	}
	mem, err := unix.Mmap(-1, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("lockmem=%d: malloc locked mem: %w", n, err)
	}
	if err := unix.Mlock(mem); err != nil {
		_ = unix.Munmap(mem)
		return nil, fmt.Errorf("lockmem=%d: mlock: %w", n, err)
	}
	return mem, nil
}

// UnpinMemory unlocks and unmaps what PinMemory locked.
func UnpinMemory(mem []byte) {
	if mem == nil {
		return
	}
	_ = unix.Munlock(mem)
	_ = unix.Munmap(mem)
}
