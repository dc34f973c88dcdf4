package run

import (
	"testing"

	"github.com/gofio/gofio/jobfile"
)

func TestSmoke(t *testing.T) {
	dir := t.TempDir()
	for _, eng := range []string{"null", "psync"} {
		for _, rw := range []jobfile.RW{jobfile.RWRead, jobfile.RWWrite, jobfile.RWRandRead, jobfile.RWRandWrite, jobfile.RWReadWrite, jobfile.RWRandRW} {
			j := testJob(dir, "smoke-"+eng+"-"+string(rw), rw, eng)
			setDepth(j, 4)
			res := mustRun(t, []*jobfile.Job{j}, Options{})
			r := res.Jobs[0]
			ios := r.Dirs[0].TotalIOs + r.Dirs[1].TotalIOs
			by := r.Dirs[0].IOBytes + r.Dirs[1].IOBytes
			t.Logf("%s %s: ios=%d bytes=%d clat=%v", eng, rw, ios, by, r.Dirs[0].Clat.N+r.Dirs[1].Clat.N)
			if ios != 16 || by != 64<<10 {
				t.Errorf("%s %s: ios=%d bytes=%d, want 16 and 65536", eng, rw, ios, by)
			}
		}
	}
}
