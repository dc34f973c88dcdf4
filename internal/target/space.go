package target

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/jobfile"
)

// spaceFile is one regular file the run will create or extend: the most
// any job needs of it, and the job and target that need the most.
type spaceFile struct {
	job  *jobfile.Job
	t    *Target
	need uint64 // the end of the largest region on it
	cur  uint64 // its size before the run (0 when it does not exist)
}

// spaceFS is what the run will lay out on one filesystem.
type spaceFS struct {
	dir     string // the nearest existing directory of its first file
	missing uint64 // bytes to add over all its files
	files   []*spaceFile
}

// Planned is one job's targets as planned, for CheckSpace. Later says the
// job lays nothing out now or has its targets planned when its group
// starts (a replay, create_serialize=0): it is not counted.
type Planned struct {
	Job     *jobfile.Job
	Targets []*Target
	Later   bool
}

// CheckSpace refuses the run, before anything is written, when the
// regular files its jobs will create or extend do not fit the free space
// of their filesystems: for each file the bytes missing between its size
// now and the end of the largest region on it, summed per filesystem and
// compared with what statfs reports available (df's Avail). A file shared
// by several jobs counts once. Exempt are jobs with space_check=0 (fio
// never checks), fill_device jobs (meant to fill the filesystem), jobs
// under --readonly (they lay nothing out, layoutJob refuses), replays
// and diskless engines (they lay nothing out), block and character
// devices, and filesystems that report no size (f_blocks 0: FUSE without
// statfs, pseudo filesystems). A job whose targets are planned when its
// group starts (create_serialize=0) is not counted.
func CheckSpace(plans []Planned) error {
	files := map[string]*spaceFile{}
	var order []string
	for _, jr := range plans {
		j := jr.Job
		if j.NoSpaceCheck || j.FillDevice || j.ReadOnly || diskless(j) || jr.Later {
			continue
		}
		for _, t := range jr.Targets {
			if t.Block || t.Char {
				continue
			}
			need := t.Region.Base + t.Region.Size
			cur := uint64(0)
			if t.Exists {
				cur = t.CurSize
			}
			f, ok := files[t.Path]
			if !ok {
				files[t.Path] = &spaceFile{job: j, t: t, need: need, cur: cur}
				order = append(order, t.Path)
				continue
			}
			if need > f.need {
				f.job, f.t, f.need = j, t, need
			}
		}
	}
	byDev := map[uint64]*spaceFS{}
	var devs []uint64
	for _, p := range order {
		f := files[p]
		if f.need <= f.cur {
			continue
		}
		dir, st, err := existingDir(filepath.Dir(p))
		if err != nil {
			// What cannot be examined now fails its job when it is laid
			// out, with the error of the call that fails.
			continue
		}
		fs, ok := byDev[st.Dev]
		if !ok {
			if abs, err := filepath.Abs(dir); err == nil {
				dir = abs
			}
			fs = &spaceFS{dir: dir}
			byDev[st.Dev] = fs
			devs = append(devs, st.Dev)
		}
		fs.missing += f.need - f.cur
		fs.files = append(fs.files, f)
	}
	for _, d := range devs {
		fs := byDev[d]
		var sf unix.Statfs_t
		if err := unix.Statfs(fs.dir, &sf); err != nil || sf.Blocks == 0 {
			continue
		}
		unit := uint64(sf.Frsize)
		if unit == 0 {
			unit = uint64(sf.Bsize)
		}
		free := sf.Bavail * unit
		if fs.missing <= free {
			continue
		}
		return spaceError(fs, free)
	}
	return nil
}

// spaceError says which file does not fit: the one missing the most
// bytes, with the option that sized it, the total the run would add on
// that filesystem and its free space.
func spaceError(fs *spaceFS, free uint64) error {
	big := fs.files[0]
	for _, f := range fs.files[1:] {
		if f.need-f.cur > big.need-big.cur {
			big = f
		}
	}
	what := "laying it out"
	if big.cur > 0 {
		what = "extending it from " + iecBytes(big.cur)
	}
	all := ""
	if n := len(fs.files); n > 1 {
		all = fmt.Sprintf("; the run's %d files there need %s in all", n, iecBytes(fs.missing))
	}
	return BadTarget(big.job, big.t, "%s to %s (%s) needs %s, but %s has %s free%s; space_check=0 lays it out anyway, as fio does",
		what, iecBytes(big.need), sizeOption(big.job), iecBytes(big.need-big.cur), fs.dir, iecBytes(free), all)
}

// sizeOption names the options that set the end of job j's regions:
// filesize= or size= (split over nrfiles), and offset= when set.
func sizeOption(j *jobfile.Job) string {
	var s string
	switch {
	case j.FileSizeMin > 0 && j.FileSizeMax > j.FileSizeMin:
		s = "filesize=" + iecBytes(j.FileSizeMin) + "-" + iecBytes(j.FileSizeMax)
	case j.FileSizeMin > 0:
		s = "filesize=" + iecBytes(j.FileSizeMin)
	case j.Size > 0 && len(Names(j)) > 1:
		s = fmt.Sprintf("size=%s over %d files", iecBytes(j.Size), len(Names(j)))
	case j.Size > 0:
		s = "size=" + iecBytes(j.Size)
	default:
		s = fmt.Sprintf("size=%d%%", j.SizePercent)
	}
	if j.Offset > 0 {
		s += ", offset=" + iecBytes(j.Offset)
	}
	return s
}

// existingDir returns dir, or its nearest ancestor that exists (the
// layout creates the rest), and its stat.
func existingDir(dir string) (string, *unix.Stat_t, error) {
	for {
		var st unix.Stat_t
		err := unix.Stat(dir, &st)
		if err == nil {
			return dir, &st, nil
		}
		parent := filepath.Dir(dir)
		if !errors.Is(err, unix.ENOENT) || parent == dir {
			return "", nil, &os.PathError{Op: "stat", Path: dir, Err: err}
		}
		dir = parent
	}
}

// iecBytes writes n bytes with an IEC unit and at most three significant
// digits below 1000: "64 MiB", "1.5 GiB", "100 TiB", "512 B".
func iecBytes(n uint64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	f, i := float64(n), 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 || f >= 100 {
		return strconv.FormatFloat(f, 'f', 0, 64) + " " + units[i]
	}
	return strconv.FormatFloat(f, 'g', 3, 64) + " " + units[i]
}
