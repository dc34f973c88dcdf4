package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badDir is the bad-input corpus: one case per NAME.fio job file, or per
// NAME.args command line (one argument a line, @DIR@ standing for this
// directory), with NAME.want holding the substrings the error must
// contain, one a line. *.inc files are includes the cases use.
const badDir = "testdata/bad"

// TestBadInputCorpus runs the gofio binary on every case of the bad-input
// corpus, in an empty working directory, and checks the CLI contract for
// bad input: exit 1, the expected error on stderr, no panic or stack
// trace, and no file created or touched (neither in the working
// directory, where relative job paths point, nor in the corpus, nor the
// /dev name the missing-device cases use).
func TestBadInputCorpus(t *testing.T) {
	abs, err := filepath.Abs(badDir)
	if err != nil {
		t.Fatal(err)
	}
	cases, _ := filepath.Glob(filepath.Join(abs, "*.fio"))
	args, _ := filepath.Glob(filepath.Join(abs, "*.args"))
	cases = append(cases, args...)
	if len(cases) < 30 {
		t.Fatalf("only %d cases in %s", len(cases), badDir)
	}
	corpusBefore := snapshot(t, abs)
	for _, path := range cases {
		name := filepath.Base(path)
		stem := strings.TrimSuffix(strings.TrimSuffix(name, ".fio"), ".args")
		t.Run(stem, func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(filepath.Join(abs, stem+".want"))
			if err != nil {
				t.Fatalf("case %s has no .want file: %v", name, err)
			}
			argv := []string{path}
			if strings.HasSuffix(name, ".args") {
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				argv = strings.Split(strings.TrimRight(strings.ReplaceAll(string(data), "@DIR@", abs), "\n"), "\n")
			}
			cwd := t.TempDir()
			r := execGofio(t, cwd, argv...)
			if r.code != ExitBadInput {
				t.Errorf("gofio %q exited %d, want %d\nstdout: %s\nstderr: %s", argv, r.code, ExitBadInput, r.stdout, r.stderr)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
				if !strings.Contains(r.stderr, line) {
					t.Errorf("stderr lacks %q\nstderr: %s", line, r.stderr)
				}
			}
			for _, line := range strings.Split(strings.TrimRight(r.stderr, "\n"), "\n") {
				if strings.TrimSpace(strings.TrimPrefix(line, "gofio:")) == "" {
					t.Errorf("stderr has an empty error line:\n%s", r.stderr)
				}
			}
			if !strings.HasPrefix(r.stderr, "gofio: ") {
				t.Errorf("stderr does not start with \"gofio: \": %q", r.stderr)
			}
			for _, bad := range []string{"goroutine ", "panic:", "runtime error"} {
				if strings.Contains(r.stderr+r.stdout, bad) {
					t.Errorf("output has %q (a panic or stack trace):\n%s%s", bad, r.stdout, r.stderr)
				}
			}
			if names := listDir(t, cwd); len(names) != 0 {
				t.Errorf("the failed run created %v in its working directory", names)
			}
		})
	}
	t.Cleanup(func() {
		if after := snapshot(t, abs); after != corpusBefore {
			t.Errorf("the corpus changed during the test:\nbefore: %s\nafter:  %s", corpusBefore, after)
		}
		if _, err := os.Lstat("/dev/gofio-does-not-exist"); err == nil {
			t.Errorf("a bad job created /dev/gofio-does-not-exist")
			os.Remove("/dev/gofio-does-not-exist")
		}
	})
}

// snapshot describes every entry under dir (name, size, mode, mtime), so
// that two snapshots differ when anything was created, removed or touched.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for _, name := range listDir(t, dir) {
		st, err := os.Lstat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %v %d %d\n", name, st.Mode(), st.Size(), st.ModTime().UnixNano())
	}
	return b.String()
}
