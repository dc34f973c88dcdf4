package run

import (
	"path/filepath"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

// TestIOSizeBeyondSize checks fio's keep_running for io_size= beyond what
// one pass over the file moves: passes start over until io_size bytes are
// done; loops= passes all run (each up to io_size), and a rest smaller
// than the largest block starts none (each case as fio 3.33 counts it).
func TestIOSizeBeyondSize(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		opts string
		want uint64
	}{
		{"rw=randwrite\nio_size=3m\n", 3 << 20},
		{"rw=write\nio_size=2560k\n", 2560 << 10},
		{"rw=randwrite\nio_size=2m\nloops=3\n", 3 << 20}, // every loop runs, as in fio
		{"rw=write\nio_size=1m\nloops=3\n", 3 << 20},
		{"rw=read\nio_size=1060k\n", 1 << 20}, // 36 KiB left: less than a block
	} {
		jobs := parseJobs(t, dir, "[j]\nioengine=psync\nbs=64k\nsize=1m\nfilename="+filepath.Join(dir, "f")+"\n"+c.opts)
		res := mustRun(t, jobs, Options{})
		ds := res.Jobs[0].Dirs
		if got := ds[jobfile.DirRead].IOBytes + ds[jobfile.DirWrite].IOBytes; got != c.want {
			t.Errorf("%q: %d bytes, want %d", c.opts, got, c.want)
		}
	}
}
