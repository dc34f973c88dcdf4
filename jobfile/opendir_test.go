package jobfile

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestOpenDir checks opendir= as fio's add_dir_files: every regular file
// under the directory, subdirectories included, ahead of filename='s,
// symbolic links, FIFOs and empty folders left out; nrfiles and openfiles
// follow; fio's count line goes to the warnings.
func TestOpenDir(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a", "s/b", "s/d/c"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	jobs, err := Parse(Input{CmdLine: []string{"--name=j", "--opendir=" + dir, "--filename=extra", "--numjobs=2"}, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{dir + "/a", dir + "/s/b", dir + "/s/d/c"}
	for _, j := range jobs {
		got := j.Filenames
		if len(got) != 4 || got[3] != "extra" || !slices.Equal(sorted(got[:3]), want) {
			t.Errorf("files %q, want %q in directory order, then extra", got, want)
		}
		if j.NrFiles != 4 || j.OpenFiles != 4 {
			t.Errorf("nrfiles %d openfiles %d, want 4", j.NrFiles, j.OpenFiles)
		}
	}
	if w := warn.String(); w != "fio: opendir added 4 files\n" {
		t.Errorf("warnings %q, want fio's count line once", w)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestOpenDirRefused checks opendir='s errors: a missing directory (fio:
// func=opendir, failed parsing) and one without regular files, which fio
// runs as a job with no files (DIFFERENCES.md).
func TestOpenDirRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "e"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ opt, want string }{
		{dir + "/nosuch", "opendir=" + dir + "/nosuch: opendir(" + dir + "/nosuch): no such file or directory"},
		{dir + "/e", "no regular file in the directory or below it"},
	} {
		_, err := Parse(Input{CmdLine: []string{"--name=j", "--opendir=" + c.opt}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("opendir=%s: %v, want %q", c.opt, err, c.want)
		}
	}
}
