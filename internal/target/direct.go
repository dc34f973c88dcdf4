package target

// This file holds O_DIRECT's alignment rules: the alignment a target
// needs, and the refusal of a job whose block sizes or offsets break it.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gofio/gofio/internal/blockdev"
	"github.com/gofio/gofio/jobfile"
	"golang.org/x/sys/unix"
)

// dioAlign returns the O_DIRECT alignment of the open fd: the logical
// block size of a block device, or statx's dio_offset_align for a file (0
// when the filesystem has no O_DIRECT). A filesystem that does not report
// STATX_DIOALIGN (tmpfs, which takes any alignment, among them) gets 512,
// the sector size every device accepts, so that a job that passes here
// also runs on a real disk.
func dioAlign(fd int, block bool) (uint64, error) {
	if block {
		v, err := blockdev.LogicalBlockSize(fd)
		if err != nil {
			return 0, err
		}
		return uint64(v), nil
	}
	var stx unix.Statx_t
	if err := unix.Statx(fd, "", unix.AT_EMPTY_PATH, unix.STATX_DIOALIGN, &stx); err != nil {
		return 0, fmt.Errorf("statx: %w", err)
	}
	if stx.Mask&unix.STATX_DIOALIGN == 0 {
		return 512, nil
	}
	return uint64(stx.Dio_offset_align), nil
}

// newFileAlign returns the O_DIRECT alignment a file not yet created in
// dir will have, without creating it: statx of an unnamed O_TMPFILE in
// dir (never linked into the directory, gone on close), or, where the
// filesystem has no O_TMPFILE, the logical block size of the disk under
// dir, or 512.
func newFileAlign(dir string) uint64 {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err == nil {
		a, err := dioAlign(fd, false)
		unix.Close(fd)
		if err == nil {
			return a
		}
	}
	if disk, ok := blockdev.DiskFor(dir); ok {
		b, err := os.ReadFile(filepath.Join("/sys/block", disk, "queue", "logical_block_size"))
		if err == nil {
			if v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 {
				return v
			}
		}
	}
	return 512
}

// checkDirect refuses a direct=1 job whose sizes or offsets are not
// multiples of the target's O_DIRECT alignment.
func checkDirect(j *jobfile.Job, t *Target, align uint64) error {
	if err := directProblem(j, t, align); err != nil {
		return BadTarget(j, t, "%w", err)
	}
	return nil
}

// directProblem says what keeps job j from O_DIRECT on t, or nil.
func directProblem(j *jobfile.Job, t *Target, align uint64) error {
	if align == 0 {
		return errors.New("direct=1: the filesystem does not support O_DIRECT; try direct=0")
	}
	check := func(what string, v uint64) error {
		if v%align != 0 {
			return fmt.Errorf("direct=1 needs %s=%d to be a multiple of the %d-byte O_DIRECT alignment", what, v, align)
		}
		return nil
	}
	for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
		vals := []struct {
			name string
			v    uint64
		}{{"bs", j.BS[d]}, {"bsrange", j.BSRangeMin[d]}, {"bsrange", j.BSRangeMax[d]}, {"blockalign", j.BlockAlign[d]}}
		for _, e := range j.BSSplit[d] {
			vals = append(vals, struct {
				name string
				v    uint64
			}{"bssplit", e.BS})
		}
		for _, x := range vals {
			if err := check(x.name, x.v); err != nil {
				return err
			}
		}
	}
	return check("offset", t.Region.Base)
}
