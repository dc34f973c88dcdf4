package run

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"gofio/internal/blockdev"
	"gofio/jobfile"
)

// target is one file or block device a job works on.
type target struct {
	path    string
	block   bool
	exists  bool   // existed before the run
	curSize uint64 // size before the run (device size for block devices)
	region  region
	created bool // gofio created it (unlink may remove it)
	fd      int
}

// fileNames returns the files of job j: the filename= list, or fio's
// generated names ($jobname.$jobnum.$filenum by default), in the
// directory= entry handed to this clone round-robin.
func fileNames(j *jobfile.Job) []string {
	dir := ""
	if len(j.Directory) > 0 {
		dir = j.Directory[j.SubjobNumber%len(j.Directory)]
	}
	join := func(name string) string {
		if dir == "" || filepath.IsAbs(name) {
			return name
		}
		return filepath.Join(dir, name)
	}
	if len(j.Filenames) > 0 {
		out := make([]string, len(j.Filenames))
		for i, f := range j.Filenames {
			out[i] = join(f)
		}
		return out
	}
	n := j.NrFiles
	if n <= 0 {
		n = 1
	}
	format := j.FilenameFormat
	if format == "" {
		format = "$jobname.$jobnum.$filenum"
	}
	out := make([]string, n)
	for i := range out {
		name := strings.NewReplacer(
			"$jobname", j.Name,
			"$jobnum", strconv.Itoa(j.SubjobNumber),
			"$filenum", strconv.Itoa(i),
		).Replace(format)
		out[i] = join(name)
	}
	return out
}

// blkGetSize64 returns the size of the block device open as fd.
func blkGetSize64(fd int) (uint64, error) {
	var sz uint64
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.BLKGETSIZE64, uintptr(unsafe.Pointer(&sz))); e != 0 {
		return 0, e
	}
	return sz, nil
}

// planTargets resolves the files of job j and their regions without
// writing anything, so that bad input is refused before any I/O.
func planTargets(j *jobfile.Job) ([]*target, error) {
	names := fileNames(j)
	writes := j.RW.HasWrite()
	ts := make([]*target, len(names))
	if diskless(j) {
		// Like fio's FIO_DISKLESSIO engines, null touches no file.
		if j.Size == 0 {
			return nil, fmt.Errorf("%s: ioengine=%s needs size=", j.Name, j.IOEngine)
		}
		for i, name := range names {
			sz := j.Size / uint64(len(names))
			if m := jobMinBS(j); sz < m {
				return nil, fmt.Errorf("%s: size too small, must not be less than minimum block size: %d < %d", j.Name, sz, m)
			}
			ts[i] = &target{path: name, fd: -1, region: region{base: j.Offset, size: sz, end: j.Offset + sz}}
		}
		return ts, nil
	}
	for i, name := range names {
		t := &target{path: name, fd: -1}
		st, err := os.Stat(name)
		switch {
		case err == nil && st.IsDir():
			return nil, fmt.Errorf("%s: filename %q is a directory", j.Name, name)
		case err == nil && st.Mode()&os.ModeDevice != 0 && st.Mode()&os.ModeCharDevice == 0:
			t.block, t.exists = true, true
			fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				return nil, fmt.Errorf("%s: open %s: %w", j.Name, name, err)
			}
			t.curSize, err = blkGetSize64(fd)
			unix.Close(fd)
			if err != nil {
				return nil, fmt.Errorf("%s: BLKGETSIZE64 %s: %w", j.Name, name, err)
			}
			if writes && !j.AllowMountedWrite {
				if err := CheckMountedWrite(name); err != nil {
					return nil, fmt.Errorf("%s: %w", j.Name, err)
				}
			}
		case err == nil && st.Mode().IsRegular():
			t.exists, t.curSize = true, uint64(st.Size())
		case err == nil:
			return nil, fmt.Errorf("%s: %s is neither a regular file nor a block device", j.Name, name)
		case errors.Is(err, os.ErrNotExist):
		default:
			return nil, fmt.Errorf("%s: %w", j.Name, err)
		}
		ts[i] = t
	}
	// Sizes: size= is split over the files; without it each file's own
	// size is used.
	for _, t := range ts {
		r := &t.region
		r.base = j.Offset
		if j.OffsetPercent > 0 && t.exists {
			r.base = t.curSize * uint64(j.OffsetPercent) / 100
			if a := minBS(j, jobfile.DirRead); a > 0 {
				r.base -= r.base % a
			}
		}
		switch {
		case j.FileSizeMin > 0:
			r.size = j.FileSizeMin
		case j.Size > 0:
			r.size = j.Size / uint64(len(ts))
		case j.SizePercent > 0 && t.exists:
			r.size = t.curSize * uint64(j.SizePercent) / 100
		case t.exists && t.curSize > r.base:
			r.size = t.curSize - r.base
		case t.exists:
			return nil, fmt.Errorf("%s: offset=%d is beyond the end of %s (%d bytes)", j.Name, r.base, t.path, t.curSize)
		default:
			return nil, fmt.Errorf("%s: %s does not exist and no size= was given to lay it out", j.Name, t.path)
		}
		if m := jobMinBS(j); r.size < m {
			return nil, fmt.Errorf("%s: size too small, must not be less than minimum block size: %d < %d", j.Name, r.size, m)
		}
		if t.block && r.base+r.size > t.curSize {
			return nil, fmt.Errorf("%s: offset=%d + size=%d is beyond the end of %s (%d bytes)", j.Name, r.base, r.size, t.path, t.curSize)
		}
		r.end = r.base + r.size
		if t.curSize > r.end {
			r.end = t.curSize
		}
	}
	return ts, nil
}

// jobMinBS returns the smallest block size over the directions the job
// issues.
func jobMinBS(j *jobfile.Job) uint64 {
	var m uint64
	for _, d := range []jobfile.Dir{jobfile.DirRead, jobfile.DirWrite} {
		if (d == jobfile.DirRead && !j.RW.HasRead()) || (d == jobfile.DirWrite && !j.RW.HasWrite()) {
			continue
		}
		if v := minBS(j, d); v > 0 && (m == 0 || v < m) {
			m = v
		}
	}
	return m
}

// diskless reports whether the job's engine works without files (null).
func diskless(j *jobfile.Job) bool { return j.IOEngine == "null" }

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
func checkDirect(j *jobfile.Job, t *target, align uint64) error {
	if align == 0 {
		return fmt.Errorf("%s: direct=1: the filesystem of %s does not support O_DIRECT; try direct=0", j.Name, t.path)
	}
	check := func(what string, v uint64) error {
		if v%align != 0 {
			return fmt.Errorf("%s: direct=1 needs %s=%d to be a multiple of the %d-byte O_DIRECT alignment of %s", j.Name, what, v, align, t.path)
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
	return check("offset", t.region.base)
}

// layout creates or extends the file so that the job's region exists. A
// reading job gets the missing part filled with data; a writing job gets a
// sparse extension. Nothing is ever truncated.
func layout(j *jobfile.Job, t *target, fill []byte, info io.Writer) error {
	if t.block || diskless(j) {
		return nil
	}
	need := t.region.base + t.region.size
	if t.exists && t.curSize >= need {
		return nil
	}
	if info != nil {
		fmt.Fprintf(info, "%s: Laying out IO file (1 file / %s)\n", j.Name, sizeString(need))
	}
	fd, err := unix.Open(t.path, unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return fmt.Errorf("%s: lay out %s: %w", j.Name, t.path, err)
	}
	defer unix.Close(fd)
	if !t.exists {
		t.created = true
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("%s: lay out %s: %w", j.Name, t.path, err)
	}
	cur := uint64(st.Size)
	if cur >= need {
		return nil
	}
	if !j.RW.HasRead() {
		if err := unix.Ftruncate(fd, int64(need)); err != nil {
			return fmt.Errorf("%s: extend %s to %d bytes: %w", j.Name, t.path, need, err)
		}
		t.curSize = need
		return nil
	}
	for off := cur; off < need; {
		n := uint64(len(fill))
		if need-off < n {
			n = need - off
		}
		w, err := unix.Pwrite(fd, fill[:n], int64(off))
		if err != nil {
			return fmt.Errorf("%s: lay out %s at offset %d: %w", j.Name, t.path, off, err)
		}
		off += uint64(w)
	}
	if err := unix.Fsync(fd); err != nil {
		return fmt.Errorf("%s: lay out %s: fsync: %w", j.Name, t.path, err)
	}
	t.curSize = need
	return nil
}

// openTarget opens t with the job's flags and checks O_DIRECT alignment.
func openTarget(j *jobfile.Job, t *target) error {
	if diskless(j) {
		return nil
	}
	flags := unix.O_CLOEXEC
	if j.RW.HasWrite() {
		flags |= unix.O_RDWR
	} else {
		flags |= unix.O_RDONLY
	}
	if j.Direct {
		flags |= unix.O_DIRECT
	}
	fd, err := unix.Open(t.path, flags, 0)
	if err != nil {
		return fmt.Errorf("%s: open %s: %w", j.Name, t.path, err)
	}
	t.fd = fd
	if j.Direct {
		a, err := dioAlign(fd, t.block)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", j.Name, t.path, err)
		}
		if err := checkDirect(j, t, a); err != nil {
			return err
		}
	}
	if j.Invalidate && !t.block {
		dropPageCache(fd)
	}
	if t.region.end < t.curSize {
		t.region.end = t.curSize
	}
	return nil
}

// dropPageCache asks the kernel to drop the file's cached pages (fio's
// invalidate=1). Dirty pages are only written back, as with fio.
func dropPageCache(fd int) {
	_ = fadvise(fd, 0, 0, unix.FADV_DONTNEED)
}

// fadvise is unix.Fadvise; a variable so tests can count the drops.
var fadvise = unix.Fadvise

// dropPageCache drops the page cache of every buffered regular file of
// the job, at the start of a new pass.
func (l *loop) dropPageCache() {
	for _, t := range l.files {
		if !t.block && t.fd > 0 {
			dropPageCache(t.fd)
		}
	}
}

// sizeString prints a byte count the way fio's layout line does: the
// largest binary unit that divides it (16MiB, 4KiB, 1000B).
func sizeString(n uint64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for n >= 1024 && n%1024 == 0 && i < len(units)-1 {
		n /= 1024
		i++
	}
	return strconv.FormatUint(n, 10) + units[i]
}
