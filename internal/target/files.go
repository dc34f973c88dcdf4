package target

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines/uringcmd"
	"github.com/gofio/gofio/internal/fiorand"
	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/internal/sprandom"
	"github.com/gofio/gofio/jobfile"
)

// Target is one file or block device a job works on.
type Target struct {
	Path  string
	Label string // the option and path, for messages: "filename=/x"
	Block bool
	// Char is a character device (fio's FIO_TYPE_CHAR, e.g. /dev/null):
	// never laid out, sized by size= alone, with no page cache to drop.
	Char    bool
	Exists  bool   // existed before the run
	CurSize uint64 // size before the run (device size for block devices)
	// RealSize is fio's real_file_size when it sets the job up: what is
	// there once the jobs before it laid the file out (sizeTargets).
	RealSize uint64
	Region   iogen.Region
	Created  bool // gofio created it (unlink may remove it)
	FD       int
}

// Names returns the files of job j, as fio's add_file names them: the
// filename= list inside the first directory= entry (fio adds those files
// once, when it parses the option, and every numjobs clone shares them),
// or fio's generated names ($jobname.$jobnum.$filenum by default) inside
// the directory= entry handed to this clone round-robin. fio puts even an
// absolute filename= inside directory= (directory=/d filename=/dev/sdb is
// the regular file /d/dev/sdb), and so does gofio.
func Names(j *jobfile.Job) []string {
	if len(j.Filenames) > 0 {
		out := make([]string, len(j.Filenames))
		for i, f := range j.Filenames {
			out[i] = f
			if len(j.Directory) > 0 {
				out[i] = filepath.Join(j.Directory[0], f)
			}
		}
		return out
	}
	dir := jobDir(j)
	join := func(name string) string {
		if dir == "" {
			return name
		}
		return filepath.Join(dir, name)
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

// jobDir returns the directory= entry of this clone's generated files, or
// "".
func jobDir(j *jobfile.Job) string {
	if len(j.Directory) == 0 {
		return ""
	}
	return j.Directory[j.SubjobNumber%len(j.Directory)]
}

// Label names the option a target of job j comes from, with its
// path: "filename=/x" for a filename= entry, "directory=/d: file
// /d/job.0.0" or "file job.0.0" for a generated name.
func Label(j *jobfile.Job, path string) string {
	switch {
	case len(j.Filenames) > 0:
		return "filename=" + path
	case jobDir(j) != "":
		return "directory=" + jobDir(j) + ": file " + path
	}
	return "file " + path
}

// Fail returns the job error of a failed operation on target t of job
// jobName: op is the operation in words, fn fio's func= name, and def the
// errno when err carries none.
func Fail(jobName string, t *Target, op, fn string, def unix.Errno, err error) *joberr.Error {
	return joberr.Of(jobName, t.Label, op, fn, def, err)
}

// BadTarget returns an input error about target t of job j, in the shape
// of every target error: "job NAME: filename=PATH: what".
func BadTarget(j *jobfile.Job, t *Target, format string, args ...any) error {
	return fmt.Errorf("job %s: %s: "+format, append([]any{j.Name, t.Label}, args...)...)
}

// blkGetSize64 returns the size of the block device open as fd.
func blkGetSize64(fd int) (uint64, error) {
	var sz uint64
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.BLKGETSIZE64, uintptr(unsafe.Pointer(&sz))); e != 0 {
		return 0, e
	}
	return sz, nil
}

// Plan resolves the files of job j and their regions without
// writing anything, so that bad input is refused before any I/O. An
// error is bad input, except a *joberr.Error: a target that exists but cannot
// be examined (stat, open or size a device), which ends only this job
// when its group starts. mounted is Options.CheckMountedWrite; thread is
// the job's fio thread number, whose seeds draw filesize= ranges.
// laidOut holds the size each path will have after the jobs before this
// one laid it out; Plan adds this job's.
func Plan(j *jobfile.Job, thread int, mounted func(string) error, laidOut map[string]uint64) ([]*Target, error) {
	names := Names(j)
	if diskless(j) {
		return disklessTargets(j, names)
	}
	if j.Engine().NVMePassthrough {
		if err := checkNVMeTargets(j, names); err != nil {
			return nil, err
		}
	}
	ts, err := statTargets(j, names, mounted)
	if err != nil {
		return nil, err
	}
	if err := sizeTargets(j, ts, thread, laidOut); err != nil {
		return nil, err
	}
	return ts, nil
}

// checkNVMeTargets checks the targets of an NVMe passthrough engine's job
// (io_uring_cmd) as fio 3.33 does before the job starts: one that is not
// an NVMe generic character device fails the job, with fio's message; a
// real namespace refuses the run, since gofio does not build the commands.
func checkNVMeTargets(j *jobfile.Job, names []string) error {
	nsids := make([]int, len(names))
	for i, name := range names {
		nsid, err := uringcmd.Namespace(name)
		if err != nil {
			return &joberr.Error{Job: j.Name, Where: Label(j, name), Op: "ioengine=" + j.IOEngine,
				Fn: "fio_nvme_get_info", Errno: unix.Errno(joberr.ErrnoOf(err, unix.EINVAL)), Err: err}
		}
		nsids[i] = nsid
	}
	if len(names) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %s is NVMe namespace %d: %w", j.Name, Label(j, names[0]), nsids[0], uringcmd.ErrNoCommands)
}

// disklessTargets plans the targets of a diskless engine's job: like fio's
// FIO_DISKLESSIO engines, null, filecreate and the directory engines touch
// no file before their I/O, and each target is sized from size= or
// filesize= alone.
func disklessTargets(j *jobfile.Job, names []string) ([]*Target, error) {
	ts := make([]*Target, len(names))
	perFile := uint64(0)
	switch {
	case j.Size > 0:
		perFile = j.Size / uint64(len(names))
	case sizedByFile(j) && j.FileSizeMin > 0:
		perFile = j.FileSizeMin
	case sizedByFile(j):
		perFile = j.MinBS()
	case j.FileSizeMin > 0 && j.FileSizeMax <= j.FileSizeMin:
		// fio sizes the job from filesize= when size= is not given.
		perFile = j.FileSizeMin
	default:
		return nil, fmt.Errorf("%s: ioengine=%s needs size=", j.Name, j.IOEngine)
	}
	for i, name := range names {
		sz := perFile
		if m := j.MinBS(); sz < m {
			return nil, fmt.Errorf("%s: size too small, must not be less than minimum block size: %d < %d", j.Name, sz, m)
		}
		ts[i] = &Target{Path: name, Label: Label(j, name), FD: -1, Region: iogen.Region{Base: j.Offset, Size: sz, End: j.Offset + sz}}
	}
	return ts, nil
}

// statTargets looks at each named target as it is: a directory or an
// unknown kind is refused, a block device is sized and, for a job that
// writes or trims, checked for being mounted (mounted), a missing file
// needs allow_file_create. A stat or size error is returned after every
// target was looked at.
func statTargets(j *jobfile.Job, names []string, mounted func(string) error) ([]*Target, error) {
	// A trim destroys data as a write does: both need
	// allow_mounted_write=1 on a mounted device (fio checks writes only).
	writes := j.RW.HasWrite() || j.RW.HasTrim()
	ts := make([]*Target, len(names))
	var deferred *joberr.Error
	for i, name := range names {
		t := &Target{Path: name, Label: Label(j, name), FD: -1}
		ts[i] = t
		st, err := os.Stat(name)
		switch {
		case err == nil && st.IsDir():
			return nil, BadTarget(j, t, "is a directory; use directory= for a place to create files")
		case err == nil && st.Mode()&os.ModeDevice != 0 && st.Mode()&os.ModeCharDevice == 0:
			t.Block, t.Exists = true, true
			if je := SizeDevice(j, t); je != nil {
				if deferred == nil {
					deferred = je
				}
				continue
			}
			if writes && !j.AllowMountedWrite {
				if err := mounted(name); err != nil {
					return nil, BadTarget(j, t, "%w", err)
				}
			}
		case err == nil && st.Mode().IsRegular():
			t.Exists, t.CurSize = true, uint64(st.Size())
		case err == nil && st.Mode()&os.ModeCharDevice != 0:
			t.Char, t.Exists = true, true
		case err == nil:
			return nil, BadTarget(j, t, "is neither a regular file, a block device nor a character device")
		case errors.Is(err, os.ErrNotExist):
			if j.NoFileCreate {
				return nil, BadTarget(j, t, "does not exist and allow_file_create=0")
			}
		default:
			if deferred == nil {
				deferred = Fail(j.Name, t, "stat", "stat("+name+")", unix.EIO, err)
			}
		}
		if msg := fileTypeMismatch(j.FileType, t); msg != "" {
			return nil, BadTarget(j, t, "%s", msg)
		}
	}
	if deferred != nil {
		return nil, deferred
	}
	return ts, nil
}

// fileTypeMismatch says why target t is not of the kind filetype= names
// ("file", "block" or "char"; "" takes any): fio trusts filetype= and sets
// the file up as that kind without stat(2), gofio stats it anyway and
// refuses a target of another kind rather than run it as the wrong one.
func fileTypeMismatch(want string, t *Target) string {
	have := "file"
	switch {
	case t.Block:
		have = "block"
	case t.Char:
		have = "char"
	}
	switch {
	case want == "" || want == have:
		return ""
	case !t.Exists:
		return fmt.Sprintf("does not exist, and filetype=%s does not create it", want)
	}
	return fmt.Sprintf("is of type %s, not filetype=%s", have, want)
}

// sizeTargets places each target's region: where the job's I/O starts
// (offset=, file_append) and how much of the target it covers (filesize=,
// size=, fill_device, size=N%, or the target's own size), and records in
// laidOut (nil: not recorded) how far the layout will extend each file for
// the jobs after it.
func sizeTargets(j *jobfile.Job, ts []*Target, thread int, laidOut map[string]uint64) error {
	// Sizes: size= is split over the files; without it each file's own
	// size is used. filesize= sizes each file (a range draws each size
	// with fio's file-size generator), and size= then only caps the bytes
	// the job moves (BytesPerPass).
	var sizeRand fiorand.Frand
	if j.FileSizeMax > j.FileSizeMin {
		fs := fiorand.NewSeeds(j, thread)
		sizeRand = fiorand.NewFrand(fs.Seed[fiorand.SeedFileSize], fs.Use64)
	}
	for _, t := range ts {
		r := &t.Region
		// fio's real_file_size when it places the job: what is there
		// after the jobs before it laid the file out, 0 for a file
		// nobody laid out yet.
		realSize := laidOut[t.Path]
		if t.Exists && t.CurSize > realSize {
			realSize = t.CurSize
		}
		t.RealSize = realSize
		r.Base = startOffset(j, realSize)
		if j.FileAppend && !t.Block && !t.Char {
			// fio's get_start_offset: file_append starts a regular
			// file's I/O at its end.
			r.Base = realSize
		}
		switch {
		case j.FileSizeMin > 0:
			want := t.CurSize
			if !t.Exists || t.CurSize < j.FileSizeMin || t.CurSize > max(j.FileSizeMax, j.FileSizeMin) {
				want = fileSize(j, &sizeRand)
			}
			if r.Base > want {
				return BadTarget(j, t, "offset=%d is beyond its filesize=%d", r.Base, want)
			}
			r.Size = want - r.Base
		case j.Size > 0:
			r.Size = j.Size / uint64(len(ts))
		case t.Char:
			// fio cannot size a character device and runs no I/O on it.
			return BadTarget(j, t, "is a character device, which has no size: give size=")
		case j.FillDevice && t.Block:
			r.Size = t.CurSize - min(r.Base, t.CurSize)
		case j.FillDevice:
			// fio's size=-1: the job writes until the filesystem is full.
			r.Size = fillDeviceSize / uint64(len(ts))
		case j.SizePercent > 0 && t.Exists:
			r.Size = t.CurSize * uint64(j.SizePercent) / 100
		case t.Exists && t.CurSize > r.Base:
			r.Size = t.CurSize - r.Base
		case t.Exists:
			return BadTarget(j, t, "offset=%d is beyond its end (%d bytes)", r.Base, t.CurSize)
		case realSize > r.Base:
			// Laid out by a job before this one, as fio finds it when
			// it sets this job up.
			r.Size = realSize - r.Base
		default:
			return BadTarget(j, t, "does not exist and no size= was given to lay it out")
		}
		if m := j.MinBS(); r.Size < m {
			return fmt.Errorf("%s: size too small, must not be less than minimum block size: %d < %d", j.Name, r.Size, m)
		}
		if t.Block && r.Base+r.Size > t.CurSize {
			return BadTarget(j, t, "offset=%d + size=%d is beyond the end of the device (%d bytes)", r.Base, r.Size, t.CurSize)
		}
		r.End = r.Base + r.Size
		if t.CurSize > r.End {
			r.End = t.CurSize
		}
		// fill_device lays nothing out (its size is no file's size).
		if laidOut != nil && !j.FillDevice && r.End > laidOut[t.Path] {
			laidOut[t.Path] = r.End
		}
	}
	return nil
}

// SizeDevice reads the size of block device t through a read-only open;
// a device that cannot be opened or sized (no medium, EACCES) fails the
// job, not the run.
func SizeDevice(j *jobfile.Job, t *Target) *joberr.Error {
	fd, err := unix.Open(t.Path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return Fail(j.Name, t, "open", "open("+t.Path+")", unix.EIO, err)
	}
	defer unix.Close(fd)
	t.CurSize, err = blkGetSize64(fd)
	if err != nil {
		return Fail(j.Name, t, "BLKGETSIZE64", "ioctl(BLKGETSIZE64)", unix.EIO, err)
	}
	return nil
}

// PassBytes returns the bytes of one pass over the targets: the sum of
// their regions' sizes.
func PassBytes(ts []*Target) uint64 {
	var n uint64
	for _, t := range ts {
		n += t.Region.Size
	}
	return n
}

// IOSize is fio's o->io_size for job j on its targets: io_size=, or with
// sprandom the file's physical size, its over-provisioning included, to
// which fio's sprandom_init sets it; 0 for neither.
func IOSize(j *jobfile.Job, ts []*Target) uint64 {
	if j.SPRandom.On && len(ts) == 1 {
		r := ts[0].Region
		return sprandom.PhysicalSize(j.SPRandom.OP, min(r.Size, r.End), j.BS[jobfile.DirWrite])
	}
	return j.IOSize
}

// BytesPerPass returns the bytes one pass of job j moves over its targets:
// io_size= when set, else one pass over their regions, capped at size=
// (which with filesize= can be less than the files hold), as fio's
// setup_files sets o->size; with sprandom, the file's physical size.
// fillDeviceSize is the size of a fill_device job without size= (fio's
// size=-1), split over its files: far more than any filesystem holds, and
// small enough that loops= times it does not overflow.
const fillDeviceSize = 1 << 52

func BytesPerPass(j *jobfile.Job, ts []*Target) uint64 {
	if s := IOSize(j, ts); s > 0 {
		return s
	}
	if n := PassBytes(ts); j.Size == 0 || j.Size > n {
		return n
	}
	return j.Size
}

// diskless reports whether the job's engine works without files: fio's
// FIO_DISKLESSIO engines, as jobfile's engine table marks them.
func diskless(j *jobfile.Job) bool { return j.Engine().Diskless }

// sizedByFile reports whether a diskless job without size= sizes each of
// its files by filesize= or one block, as fio's get_file_size does for the
// engines that work on names (filecreate, the dir engines) or on nothing
// (cpuio): every diskless engine but null.
func sizedByFile(j *jobfile.Job) bool { return j.Engine().SizedByFile }

// Fadvise is posix_fadvise(2); the run core passes its own, which its
// tests replace.
type Fadvise func(fd int, off, n int64, advice int) error

// Open opens t with the job's flags, for the directions rw the job issues
// (a replay's come from its log), and checks its O_DIRECT alignment
// again, now that a created file exists. Every failure ends only this
// job. fadvise gives fadvise_hint and invalidate=1 their advice;
// hintFailed is called when a fadvise_hint fails.
func Open(j *jobfile.Job, t *Target, rw jobfile.RW, fadvise Fadvise, hintFailed func()) *joberr.Error {
	if diskless(j) {
		return nil
	}
	flags, direct := OpenFlags(j, t, rw)
	fd, err := unix.Open(t.Path, flags, 0o600)
	if err != nil {
		return Fail(j.Name, t, "open", "open("+t.Path+")", unix.EIO, err)
	}
	t.FD = fd
	if flags&unix.O_CREAT != 0 && !t.Exists {
		t.Created = true
	}
	if direct {
		a, err := dioAlign(fd, t.Block)
		if err != nil {
			return Fail(j.Name, t, "O_DIRECT alignment", "statx", unix.EIO, err)
		}
		if err := directProblem(j, t, a); err != nil {
			return &joberr.Error{Job: j.Name, Where: t.Label, Fn: "open(" + t.Path + ")", Errno: unix.EINVAL, Err: err}
		}
	}
	if j.Invalidate && !t.Block && !t.Char {
		DropPageCache(fadvise, fd)
	}
	if !t.Char {
		fadviseHint(j, t, fd, fadvise, hintFailed)
		if je := setWriteHint(j, t, fd); je != nil {
			return je
		}
	}
	if t.Region.End < t.CurSize {
		t.Region.End = t.CurSize
	}
	return nil
}

// OAtomic is what fio 3.33 opens an atomic=1 job's files with besides
// O_DIRECT: its own O_ATOMIC (os/os-linux.h, for a kernel patch that never
// merged), a flag bit Linux's open(2) ignores.
const OAtomic = 0o40000000

// OpenFlags returns the open(2) flags of target t for a job issuing the
// directions rw, as fio's generic_open_file builds them, and whether they
// hold O_DIRECT. A file gofio did not lay out is created (mode 0600, as
// fio's) when a replay writes it or the job has create_on_open, never
// under --readonly.
func OpenFlags(j *jobfile.Job, t *Target, rw jobfile.RW) (flags int, direct bool) {
	flags = unix.O_CLOEXEC
	writes := rw.HasWrite()
	if writes || rw.HasTrim() || j.Engine().OpensRW {
		flags |= unix.O_RDWR
	} else {
		flags |= unix.O_RDONLY
	}
	// fio's generic_open_file gives a job that trims neither O_DIRECT
	// nor sync='s flags: a trimwrite job's writes are buffered.
	direct = j.Direct && !rw.HasTrim()
	if direct {
		flags |= unix.O_DIRECT
	}
	if j.Atomic && !rw.HasTrim() {
		flags |= OAtomic
	}
	switch j.Sync { // fio's sync=: synchronous writes
	case "sync":
		flags |= unix.O_SYNC
	case "dsync":
		flags |= unix.O_DSYNC
	}
	if rw.HasTrim() {
		flags &^= unix.O_SYNC | unix.O_DSYNC
	}
	if !j.ReadOnly && ((writes && !t.Exists && !t.Block) || (j.CreateOnOpen && !j.NoFileCreate && !t.Block && !t.Char)) {
		// A replay's file that the log writes (fio's O_CREAT), or a
		// create_on_open job's file (fio's file_setup); under
		// --readonly, where fio's create_on_open still creates an empty
		// file, none.
		flags |= unix.O_CREAT
	}
	return flags, direct
}

// CheckUnlinkEachLoop refuses unlink_each_loop where a loop's new files
// cannot take the old ones' place: engines that hold a file by more than
// its descriptor number (mmap's mapping, io_uring's registered files).
func CheckUnlinkEachLoop(j *jobfile.Job) error {
	switch {
	case !j.UnlinkEachLoop || j.TimeBased || j.Loops < 2:
		return nil
	case j.RegisterFiles:
		return fmt.Errorf("%s: unlink_each_loop with registered files (registerfiles, sqthread_poll): gofio cannot swap a registered file for the next loop's new one", j.Name)
	case j.Engine().Maps:
		return fmt.Errorf("%s: unlink_each_loop with ioengine=mmap: gofio cannot swap a mapped file for the next loop's new one", j.Name)
	}
	return nil
}

// DropPageCache asks the kernel to drop the file's cached pages (fio's
// invalidate=1) through fadvise (Options.fadvise). Dirty pages are only
// written back, as with fio.
func DropPageCache(fadvise func(fd int, off, n int64, advice int) error, fd int) {
	_ = fadvise(fd, 0, 0, unix.FADV_DONTNEED)
}

// fileSize returns the size filesize= gives a file that does not exist or
// is outside the range: the size, or for a range fio's draw (the low end
// plus a uniform share of the range, rounded down to the smallest block
// size), as fio's get_rand_file_size.
func fileSize(j *jobfile.Job, r *fiorand.Frand) uint64 {
	if j.FileSizeMax <= j.FileSizeMin {
		return j.FileSizeMin
	}
	v := uint64(float64(j.FileSizeMax-j.FileSizeMin)*r.Frac()) + j.FileSizeMin
	if m := j.MinBS(); m > 0 {
		v -= v % m
	}
	return v
}

// startOffset is fio's get_start_offset for a file of realSize bytes:
// offset= plus, for clone k of numjobs, k times offset_increment (both
// already in j.Offset when given in bytes), where offset=N% and
// offset_increment=N% are percentages of realSize; an offset with a
// percentage in it is rounded up to offset_align, or without it to the
// smallest block size.
func startOffset(j *jobfile.Job, realSize uint64) uint64 {
	off := j.Offset
	align := false
	if j.OffsetPercent > 0 {
		off += realSize * uint64(j.OffsetPercent) / 100
		align = true
	}
	if j.OffsetIncrementPercent > 0 {
		off += uint64(j.SubjobNumber) * (uint64(j.OffsetIncrementPercent) * realSize / 100)
		align = true
	}
	a := j.MinBS()
	if j.OffsetAlignSet {
		a = j.OffsetAlign
	}
	if align && a > 0 && off%a != 0 {
		off += a - off%a
	}
	return off
}

// fadviseHint is fio's fadvise_hint at each open of a file or block
// device: POSIX_FADV_RANDOM or SEQUENTIAL over the job's region, by the
// job's pattern (fadvise_hint=1, the default) or as named. A failure is
// reported through hintFailed (once per run, as fio's "fadvise hint
// failed"), and the job goes on.
func fadviseHint(j *jobfile.Job, t *Target, fd int, fadvise Fadvise, hintFailed func()) {
	var advice int
	switch j.FadviseHint {
	case "1":
		advice = unix.FADV_SEQUENTIAL
		if j.RW.IsRandom() {
			advice = unix.FADV_RANDOM
		}
	case "random":
		advice = unix.FADV_RANDOM
	case "sequential":
		advice = unix.FADV_SEQUENTIAL
	default:
		return
	}
	if err := fadvise(fd, int64(t.Region.Base), int64(t.Region.Size), advice); err != nil {
		hintFailed()
	}
}

// The fcntl commands of write_hint (Linux's F_LINUX_SPECIFIC_BASE + 12
// and + 14).
const (
	fSetRWHint     = 1036
	fSetFileRWHint = 1038
)

// setWriteHint sets write_hint's lifetime on a file or block device as it
// opens, as fio's td_io_open_file: on the open file with direct=1
// (F_SET_FILE_RW_HINT, which Linux 5.17 and later refuse with EINVAL),
// else on the inode (F_SET_RW_HINT). A refusal ends the job, as in fio.
func setWriteHint(j *jobfile.Job, t *Target, fd int) *joberr.Error {
	if j.WriteHint == 0 {
		return nil
	}
	hint := uint64(j.WriteHint)
	cmd := fSetRWHint
	if j.Direct {
		cmd = fSetFileRWHint
	}
	if _, _, e := unix.Syscall(unix.SYS_FCNTL, uintptr(fd), uintptr(cmd), uintptr(unsafe.Pointer(&hint))); e != 0 {
		return Fail(j.Name, t, "write_hint", "fcntl write hint", unix.EINVAL, e)
	}
	return nil
}

// PreRead is fio's pre_read_files: each regular file's and block device's
// region is read once, from its start, in pieces of the largest read
// block size, before the job's I/O, so that it starts from the page
// cache. A read that comes back short ends the job with EIO, func=pre_read.
// The buffer is page-aligned, so that an O_DIRECT file reads too.
func PreRead(j *jobfile.Job, ts []*Target) *joberr.Error {
	if diskless(j) {
		return nil
	}
	bs := max(j.BSMax(jobfile.DirRead), 1)
	buf, err := unix.Mmap(-1, 0, int(bs), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return &joberr.Error{Job: j.Name, Op: "pre_read", Fn: "malloc", Errno: unix.ENOMEM, Err: err}
	}
	defer unix.Munmap(buf)
	for _, t := range ts {
		if t.Char || t.FD < 0 {
			continue
		}
		for off, end := t.Region.Base, t.Region.Base+t.Region.Size; off < end; {
			n := min(bs, end-off)
			got, err := unix.Pread(t.FD, buf[:n], int64(off))
			if err == nil && uint64(got) != n {
				err = fmt.Errorf("read %d of %d bytes", got, n)
			}
			if err != nil {
				// fio's td_verror(td, EIO, "pre_read"), whatever failed.
				return &joberr.Error{Job: j.Name, Where: t.Label, Op: fmt.Sprintf("pre_read at offset %d", off), Fn: "pre_read", Errno: unix.EIO, Err: err}
			}
			off += n
		}
	}
	return nil
}

// SyncFilesystems calls syncfs(2) once for each filesystem under the
// open targets (end_syncfs), as fio's fio_syncfs syncs each mount of the
// job's files once.
func SyncFilesystems(targets []*Target) error {
	seen := map[uint64]bool{}
	for _, t := range targets {
		if t.FD < 0 {
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstat(t.FD, &st); err != nil {
			return fmt.Errorf("fstat %s: %w", t.Path, err)
		}
		if seen[st.Dev] {
			continue
		}
		seen[st.Dev] = true
		if err := unix.Syncfs(t.FD); err != nil {
			return fmt.Errorf("syncfs %s: %w", t.Path, err)
		}
	}
	return nil
}
