package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/null"
	"github.com/gofio/gofio/engines/psync"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// writeOnlyAttr is a sysfs attribute with a store method only: opening
// it for reading fails with EACCES, even for root.
const writeOnlyAttr = "/sys/bus/cpu/drivers_probe"

// needEACCES skips the test where path does not refuse a read-only open
// with EACCES.
func needEACCES(t *testing.T, path string) {
	t.Helper()
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
		t.Skipf("%s opens for reading here", path)
	}
	if !errors.Is(err, unix.EACCES) {
		t.Skipf("%s: %v, not EACCES", path, err)
	}
}

// TestSetupFailureEndsOnlyItsJob: a job whose target cannot be opened or
// examined, or whose engine cannot be set up, at its start is reported
// with fio's error number and verror text and a warning naming job,
// option and path; the jobs before it, beside it and after it run, and
// Run returns no error (the exit status counts the failed job).
func TestSetupFailureEndsOnlyItsJob(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.dat")
	tests := []struct {
		name      string
		setup     func(t *testing.T, bad *jobfile.Job) // makes bad fail
		sameGroup bool                                 // bad shares the first job's group
		errno     unix.Errno
		text      string // JobResult.ErrorText
		warn      string // the warning line, without "gofio: "
	}{
		// A write-only sysfs attribute: open(O_RDONLY) fails at the
		// job's start (fio: err=13, func=open(...)).
		{
			name: "eacces",
			setup: func(t *testing.T, bad *jobfile.Job) {
				needEACCES(t, writeOnlyAttr)
				bad.Filenames, bad.Size = []string{writeOnlyAttr}, 0
			},
			errno: unix.EACCES,
			text:  "func=open(" + writeOnlyAttr + "), error=Permission denied",
			warn:  "job bad: filename=" + writeOnlyAttr + ": open: permission denied",
		},
		// The same with direct=1: the O_DIRECT check before the run
		// cannot open it either, and defers the failure to the job.
		{
			name: "eacces-direct",
			setup: func(t *testing.T, bad *jobfile.Job) {
				needEACCES(t, writeOnlyAttr)
				bad.Filenames, bad.Size, bad.Direct = []string{writeOnlyAttr}, 0, true
			},
			errno: unix.EACCES,
			text:  "func=open(" + writeOnlyAttr + "), error=Permission denied",
			warn:  "job bad: filename=" + writeOnlyAttr + ": open: permission denied",
		},
		// A file that existed when the run started is removed while
		// the first group runs: ENOENT, and it is not created again.
		{
			name: "vanished",
			setup: func(t *testing.T, bad *jobfile.Job) {
				stampedFile(t, victim, 64<<10)
				bad.Filenames, bad.Size = []string{victim}, 0
			},
			errno: unix.ENOENT,
			text:  "func=open(" + victim + "), error=No such file or directory",
			warn:  "job bad: filename=" + victim + ": open: no such file or directory",
		},
		// The engine fails to set up (io_uring_setup's ENOMEM, say),
		// beside a healthy job of the same group.
		{
			name: "engine",
			setup: func(t *testing.T, bad *jobfile.Job) {
				bad.IOEngine = "broken"
			},
			sameGroup: true,
			errno:     unix.ENOMEM,
			text:      "func=engine init, error=Cannot allocate memory",
			warn:      "job bad: ioengine=broken: init: broken engine: cannot allocate memory",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := testJob(dir, "first", jobfile.RWRead, "remover")
			bad := testJob(dir, "bad", jobfile.RWRead, "psync")
			bad.Stonewall = !tt.sameGroup
			last := testJob(dir, "last", jobfile.RWRead, "null")
			last.Stonewall = true
			tt.setup(t, bad)
			var removed sync.Once
			engs := map[string]engines.Opener{
				"psync": psync.Open,
				"null":  null.Open,
				// remover is psync that removes the victim file
				// when it opens.
				"remover": func(s engines.Setup) (engines.Engine, error) {
					removed.Do(func() { os.Remove(victim) })
					return psync.Open(s)
				},
				"broken": func(engines.Setup) (engines.Engine, error) {
					return nil, fmt.Errorf("broken engine: %w", unix.ENOMEM)
				},
			}
			var warn syncBuf
			var progs []*report.Progress
			res, err := Run(context.Background(), []*jobfile.Job{first, bad, last}, Options{
				Engines:    engs,
				Warn:       &warn,
				OnProgress: func(ps []*report.Progress) { progs = ps },
			})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if len(res.Jobs) != 3 {
				t.Fatalf("%d jobs in the result, want all 3", len(res.Jobs))
			}
			for i, want := range []string{"first", "bad", "last"} {
				if res.Jobs[i].Name != want {
					t.Errorf("job %d is %q, want %q", i, res.Jobs[i].Name, want)
				}
			}
			for _, r := range []*report.JobResult{res.Jobs[0], res.Jobs[2]} {
				if r.Error != 0 || r.Dirs[0].TotalIOs != 16 {
					t.Errorf("job %s: err=%d (%s), %d reads; want 0 and 16", r.Name, r.Error, r.ErrorText, r.Dirs[0].TotalIOs)
				}
			}
			b := res.Jobs[1]
			if b.Error != int(tt.errno) || b.ErrorText != tt.text {
				t.Errorf("bad job: err=%d %q; want %d %q", b.Error, b.ErrorText, tt.errno, tt.text)
			}
			if b.Dirs[0].TotalIOs != 0 || b.Dirs[0].IOBytes != 0 {
				t.Errorf("bad job issued %d reads", b.Dirs[0].TotalIOs)
			}
			if !strings.Contains(warn.String(), "gofio: "+tt.warn+"\n") {
				t.Errorf("warnings %q lack %q", warn.String(), tt.warn)
			}
			if st := progs[1].State.Load(); st != 'X' {
				t.Errorf("bad job's state %q, want 'X'", st)
			}
			if _, err := os.Stat(victim); tt.name == "vanished" && !os.IsNotExist(err) {
				t.Errorf("the vanished file was created again (%v)", err)
			}
		})
	}
}

// TestInputErrorRunsNothing: bad input in any job is refused before any
// job starts: no Result, no layout line, and the valid job before it
// neither created nor wrote its file.
func TestInputErrorRunsNothing(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		set  func(j *jobfile.Job)
		want string
	}{
		// A directory as filename=, named with job and option.
		{"dir", func(j *jobfile.Job) { j.Filenames = []string{dir} }, "job bad: filename=" + dir + ": is a directory"},
		// A missing file with no size=.
		{"nosize", func(j *jobfile.Job) { j.Size = 0 }, "job bad: filename=" + filepath.Join(dir, "bad.dat") + ": does not exist and no size= was given"},
		// blockalign larger than the region: found when planning, not
		// at the job's start.
		{"blockalign", func(j *jobfile.Job) { j.BlockAlign = [jobfile.NumDirs]uint64{128 << 10, 128 << 10, 128 << 10} }, "size too small"},
		// An engine gofio does not have.
		{"engine", func(j *jobfile.Job) { j.IOEngine = "rdma" }, "ioengine=rdma is not available"},
	}
	for _, tt := range tests {
		good := testJob(dir, "good", jobfile.RWWrite, "psync")
		bad := testJob(dir, "bad", jobfile.RWRead, "psync")
		bad.Stonewall = true
		tt.set(bad)
		var info syncBuf
		res, err := Run(context.Background(), []*jobfile.Job{good, bad}, Options{Info: &info})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
		if res != nil {
			t.Errorf("%s: a Result came back with a refused job", tt.name)
		}
		if _, err := os.Stat(good.Filenames[0]); !os.IsNotExist(err) {
			t.Errorf("%s: the good job's file exists (%v)", tt.name, err)
		}
		if info.String() != "" {
			t.Errorf("%s: info %q, want nothing", tt.name, info.String())
		}
	}
}

// TestOpenFilesProgress: Progress.OpenFiles (the status line's f=) counts
// a running job's files, the null engine's too (as fio does), and drops
// to zero when it ends; a job whose target failed never counts any.
func TestOpenFilesProgress(t *testing.T) {
	dir := t.TempDir()
	files := t.TempDir()
	three := testJob(dir, "three", jobfile.RWWrite, "psync")
	three.Filenames = []string{filepath.Join(files, "a"), filepath.Join(files, "b"), filepath.Join(files, "c")}
	three.Size = 3 * 16 << 10
	nulls := testJob(dir, "nulls", jobfile.RWRead, "null")
	nulls.Filenames, nulls.NrFiles = nil, 2
	var progs []*report.Progress
	var mu sync.Mutex
	seen := map[string]int32{}
	record := func(open engines.Opener) engines.Opener {
		return func(s engines.Setup) (engines.Engine, error) {
			for i, j := range []*jobfile.Job{three, nulls} {
				if s.Job == j {
					mu.Lock()
					seen[j.Name] = progs[i].OpenFiles.Load()
					mu.Unlock()
				}
			}
			return open(s)
		}
	}
	res, err := Run(context.Background(), []*jobfile.Job{three, nulls}, Options{
		Engines:    map[string]engines.Opener{"psync": record(psync.Open), "null": record(null.Open)},
		OnProgress: func(ps []*report.Progress) { progs = ps },
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Jobs {
		if r.Error != 0 {
			t.Fatalf("job %s: err=%d %s", r.Name, r.Error, r.ErrorText)
		}
	}
	if seen["three"] != 3 || seen["nulls"] != 2 {
		t.Errorf("open files while running: %v; want three=3 nulls=2", seen)
	}
	for i, p := range progs {
		if n := p.OpenFiles.Load(); n != 0 {
			t.Errorf("job %d: %d open files after the run", i, n)
		}
	}
	// A job whose file cannot be created (a component of its path is a
	// regular file) ends with ENOTDIR and never counts a file. (A missing
	// directory is created, as fio creates it.)
	notDir := filepath.Join(dir, "plain")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := testJob(dir, "bad", jobfile.RWRead, "psync")
	bad.Filenames = []string{filepath.Join(notDir, "x")}
	var bprogs []*report.Progress
	res, err = Run(context.Background(), []*jobfile.Job{bad}, Options{OnProgress: func(ps []*report.Progress) { bprogs = ps }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Jobs[0].Error != int(unix.ENOTDIR) || bprogs[0].OpenFiles.Load() != 0 {
		t.Errorf("bad job: err=%d, %d open files; want ENOTDIR and 0", res.Jobs[0].Error, bprogs[0].OpenFiles.Load())
	}
}

// TestLayoutLine: the "Laying out IO file" line is fio 3.33's, word for
// word: one line per job for the files it must create or extend, their
// regions' ends summed in whole MiB, rounded down. Every row was checked
// against fio 3.33.
func TestLayoutLine(t *testing.T) {
	tests := []struct {
		name  string
		set   func(t *testing.T, dir string, j *jobfile.Job)
		rw    jobfile.RW
		want  string
		files int // files the job must leave behind
	}{
		// One 64 MiB file for a write job (a sparse extension).
		{"one", func(t *testing.T, dir string, j *jobfile.Job) { j.Size = 64 << 20 }, jobfile.RWWrite,
			"one: Laying out IO file (1 file / 64MiB)\n", 1},
		// Three generated files: "files", "total".
		{"three", func(t *testing.T, dir string, j *jobfile.Job) {
			j.Filenames, j.Directory, j.NrFiles, j.Size = nil, []string{dir}, 3, 3<<20
		}, jobfile.RWWrite, "three: Laying out IO files (3 files / total 3MiB)\n", 3},
		// A read job's 64 KiB file is 0MiB in fio's words.
		{"small", func(t *testing.T, dir string, j *jobfile.Job) {}, jobfile.RWRead,
			"small: Laying out IO file (1 file / 0MiB)\n", 1},
		// offset= counts: the file must reach offset+size.
		{"offset", func(t *testing.T, dir string, j *jobfile.Job) { j.Size, j.Offset = 2<<20, 3<<20 }, jobfile.RWWrite,
			"offset: Laying out IO file (1 file / 5MiB)\n", 1},
		// Of two files only the missing one is laid out: 1.5 MiB is
		// 1MiB.
		{"partial", func(t *testing.T, dir string, j *jobfile.Job) {
			a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
			stampedFile(t, a, 3<<19)
			j.Filenames, j.Size = []string{a, b}, 3<<20
		}, jobfile.RWWrite, "partial: Laying out IO file (1 file / 1MiB)\n", 2},
		// A file already long enough: no line.
		{"existing", func(t *testing.T, dir string, j *jobfile.Job) { stampedFile(t, j.Filenames[0], 128<<10) }, jobfile.RWRead,
			"", 1},
		// The null engine lays nothing out.
		{"null", func(t *testing.T, dir string, j *jobfile.Job) { j.IOEngine = "null" }, jobfile.RWRead,
			"", 0},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		j := testJob(dir, tt.name, tt.rw, "psync")
		j.NumberIOs = 1 // the layout is what is checked, not the I/O
		tt.set(t, dir, j)
		var info syncBuf
		mustRun(t, []*jobfile.Job{j}, Options{Info: &info})
		if info.String() != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, info.String(), tt.want)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != tt.files {
			t.Errorf("%s: %d files in the directory, want %d", tt.name, len(ents), tt.files)
		}
	}
}

// TestLayoutCreatesDirectories: a file to lay out whose directories are
// missing gets them, as fio's create_work_dirs does.
func TestLayoutCreatesDirectories(t *testing.T) {
	dir := t.TempDir()
	j := testJob(dir, "mk", jobfile.RWRead, "psync")
	path := filepath.Join(dir, "new", "sub", "f.dat")
	j.Filenames = []string{path}
	res := mustRun(t, []*jobfile.Job{j}, Options{})
	if res.Jobs[0].Error != 0 {
		t.Fatalf("job error %d: %s", res.Jobs[0].Error, res.Jobs[0].ErrorText)
	}
	st, err := os.Stat(path)
	if err != nil || uint64(st.Size()) < j.Size {
		t.Fatalf("laid out file: %v, %v", st, err)
	}
	if st, err := os.Stat(filepath.Join(dir, "new")); err != nil || !st.IsDir() {
		t.Errorf("created directory: %v, %v", st, err)
	}
}

// TestCheckJobRefusesUnrunOptions checks that a job setting an option gofio
// parses but does not run is refused, naming the option.
func TestCheckJobRefusesUnrunOptions(t *testing.T) {
	j := testJob(t.TempDir(), "unrun", jobfile.RWRead, "null")
	if err := checkJob(j); err != nil {
		t.Fatal(err)
	}
	j.Unrun = map[string]string{"dedupe_global": "1"}
	if err := checkJob(j); err == nil || !strings.Contains(err.Error(), "dedupe_global=1: gofio parses") {
		t.Fatalf("err = %v, want a refusal naming dedupe_global=1", err)
	}
}
