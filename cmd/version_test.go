package cmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionNamesCommit builds gofio in a fresh shallow clone of this
// repository, as "go install ." from a clone does, and checks that
// --version names the clone's commit and go list -m the module path.
func TestVersionNamesCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gofio in a clone")
	}
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	if out, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(out) > 0 {
		t.Log("uncommitted changes are not in the clone; it builds HEAD")
	}
	dir := filepath.Join(t.TempDir(), "gofio")
	if out, err := exec.Command("git", "clone", "--quiet", "--depth=1", "file://"+strings.TrimSpace(string(root)), dir).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	head, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	commit := strings.TrimSpace(string(head))
	bin := filepath.Join(t.TempDir(), "gofio")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	v := strings.TrimSpace(string(out))
	if !strings.HasPrefix(v, "gofio-") || !strings.Contains(v, commit[:12]) {
		t.Errorf("--version = %q, want gofio- and commit %s", v, commit[:12])
	}
	if strings.Contains(v, "dirty") {
		t.Errorf("--version = %q: a fresh clone is not dirty", v)
	}
	list := exec.Command("go", "list", "-m")
	list.Dir = dir
	mod, err := list.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(mod)); got != "github.com/gofio/gofio" {
		t.Errorf("go list -m = %q, want github.com/gofio/gofio", got)
	}
	long, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"commit:       " + commit, "go:", "kernel:       Linux", "io_uring:"} {
		if !bytes.Contains(long, []byte(w)) {
			t.Errorf("gofio version lacks %q:\n%s", w, long)
		}
	}
	_ = os.Remove(bin)
}
