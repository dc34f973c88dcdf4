package fileops

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// runAll issues one read of 4 KiB per file, twice, and returns the results.
func runAll(t *testing.T, e engines.Engine, n int) []int32 {
	t.Helper()
	var res []int32
	out := make([]engines.Completion, 1)
	buf := make([]byte, 4096)
	for round := 0; round < 2; round++ {
		for i := 0; i < n; i++ {
			if err := e.Queue(0, &engines.Request{Op: engines.OpRead, File: i, Buf: buf}); err != nil {
				t.Fatal(err)
			}
			e.Submit()
			e.Reap(out, 1)
			res = append(res, out[0].Res)
		}
	}
	return res
}

func TestKinds(t *testing.T) {
	dir := t.TempDir()
	paths := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}
	setup := func(statType string) engines.Setup {
		j := &jobfile.Job{}
		j.SetEngineConfig(&Options{StatType: statType})
		return engines.Setup{Job: j, Files: []int{-1, -1}, Paths: paths, Depth: 1}
	}
	exists := func(p string) bool { _, err := os.Lstat(p); return err == nil }
	check := func(name string, k Kind, statType string, want int32, after bool) {
		t.Helper()
		e, err := Opener(k)(setup(statType))
		if err != nil {
			t.Fatal(err)
		}
		res := runAll(t, e, len(paths))
		for i, r := range res {
			w := want
			if i >= len(paths) {
				w = 4096 // later requests on a file do nothing
			}
			if r != w {
				t.Errorf("%s: request %d res %d, want %d", name, i, r, w)
			}
		}
		for _, p := range paths {
			if exists(p) != after {
				t.Errorf("%s: %s exists=%v after the run, want %v", name, p, !after, after)
			}
		}
	}
	check("filestat before create", FileStat, "stat", -int32(unix.ENOENT), false)
	check("filecreate", FileCreate, "", 4096, true)
	check("filestat", FileStat, "stat", 4096, true)
	check("filestat lstat", FileStat, "lstat", 4096, true)
	check("filestat statx", FileStat, "statx", 4096, true)
	check("filedelete", FileDelete, "", 4096, false)
	check("dircreate", DirCreate, "", 4096, true)
	// Mode 0700, as fio's set-up of dirstat and dirdelete makes them;
	// fio 3.42's dircreate passes S_IFDIR as the mode and makes 0000.
	if st, err := os.Stat(paths[0]); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("dircreate: %v, %v; want a directory of mode 0700", st.Mode(), err)
	}
	check("dirstat", DirStat, "statx", 4096, true)
	check("dirdelete", DirDelete, "", 4096, false)
	check("dirstat makes its directories", DirStat, "stat", 4096, true)
}
