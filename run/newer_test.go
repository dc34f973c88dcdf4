package run

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofio/gofio/internal/target"
	"github.com/gofio/gofio/jobfile"
)

// TestCommNamesJobThread checks comm=: while the job runs one of the
// process's threads carries the name, cut to the kernel's 15 bytes, and
// no thread keeps it after the job (the thread is named back).
func TestCommNamesJobThread(t *testing.T) {
	jobs := parseJobs(t, t.TempDir(), "[j]\nioengine=null\nsize=1g\ntime_based\nruntime=400ms\ncomm=gofio-comm-test-long\n")
	const want = "gofio-comm-test" // the first 15 bytes
	var seen atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for end := time.Now().Add(3 * time.Second); time.Now().Before(end) && !seen.Load(); time.Sleep(10 * time.Millisecond) {
			seen.Store(slices.Contains(threadNames(t), want))
		}
	}()
	mustRun(t, jobs, Options{})
	<-done
	if !seen.Load() {
		t.Errorf("no thread named %q while the job ran", want)
	}
	// The job's goroutine names its thread back just after Run has the
	// job's result.
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end) && slices.Contains(threadNames(t), want); {
		time.Sleep(10 * time.Millisecond)
	}
	if slices.Contains(threadNames(t), want) {
		t.Errorf("a thread is still named %q after the job", want)
	}
}

// threadNames returns the comm of each of the process's threads.
func threadNames(t *testing.T) []string {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join("/proc/self/task", task.Name(), "comm"))
		if err == nil {
			names = append(names, strings.TrimSpace(string(b)))
		}
	}
	return names
}

// TestThinkCyclesStall checks thinkcycles: every I/O waits for the spin,
// so 8 I/Os with 1e8 iterations each take at least 100 ms (at
// most a few iterations per nanosecond on any CPU).
func TestThinkCyclesStall(t *testing.T) {
	dir := t.TempDir()
	run := func(cycles string) time.Duration {
		jobs := parseJobs(t, dir, "[j]\nioengine=null\nsize=32k\nthinkcycles="+cycles+"\n")
		start := time.Now()
		res := mustRun(t, jobs, Options{})
		if n := res.Jobs[0].Dirs[jobfile.DirRead].TotalIOs; n != 8 {
			t.Fatalf("thinkcycles=%s: %d I/Os, want 8", cycles, n)
		}
		return time.Since(start)
	}
	if d := run("100000000"); d < 100*time.Millisecond {
		t.Errorf("thinkcycles=1e8: 8 I/Os in %v, want at least 100ms of spinning", d)
	}
}

// TestEndSyncfs checks end_syncfs=1: a writing job's files are synced
// by filesystem at its end without error, and the counts are those of
// the same job without it (fio counts no sync I/O for it either).
func TestEndSyncfs(t *testing.T) {
	dir := t.TempDir()
	res := mustRun(t, parseJobs(t, dir, "[j]\nrw=write\nsize=64k\nnrfiles=2\nend_syncfs=1\ndirectory="+dir+"\n"), Options{})
	j := res.Jobs[0]
	if w := j.Dirs[jobfile.DirWrite].TotalIOs; w != 16 || j.SyncIOs != 0 {
		t.Errorf("%d writes and %d syncs, want 16 and 0", w, j.SyncIOs)
	}
	a, b := &target.Target{Path: filepath.Join(dir, "a"), FD: -1}, &target.Target{Path: filepath.Join(dir, "b"), FD: -1}
	for _, tg := range []*target.Target{a, b} {
		f, err := os.Create(tg.Path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		tg.FD = int(f.Fd())
	}
	if err := target.SyncFilesystems([]*target.Target{a, b, {Path: "closed", FD: -1}}); err != nil {
		t.Errorf("syncFilesystems: %v", err)
	}
}

// TestFileTypeChecked checks filetype=: a target of the kind it names
// runs, one of another kind or a missing one it cannot create is refused
// before any I/O with the target named.
func TestFileTypeChecked(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, parseJobs(t, dir, "[j]\nrw=write\nsize=16k\nfilename="+filepath.Join(dir, "f.dat")+"\nfiletype=file\n"), Options{})
	if _, err := os.Stat(filepath.Join(dir, "f.dat")); err != nil {
		t.Fatalf("filetype=file did not create its file: %v", err)
	}
	for _, c := range []struct{ body, want string }{
		{"filename=" + filepath.Join(dir, "f.dat") + "\nfiletype=block\n", "is of type file, not filetype=block"},
		{"filename=/dev/null\nfiletype=file\n", "is of type char, not filetype=file"},
		{"filename=" + filepath.Join(dir, "missing") + "\nfiletype=char\n", "does not exist"},
	} {
		_, err := Run(t.Context(), parseJobs(t, dir, "[j]\nsize=16k\n"+c.body), Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error saying %q", c.body, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); err == nil {
		t.Error("filetype=char created its missing file")
	}
}
