package run

import (
	"os"
	"testing"

	"github.com/gofio/gofio/jobfile"
)

func TestIOUringEngine(t *testing.T) {
	dir := "/dev/shm"
	if _, err := os.Stat(dir); err != nil {
		dir = t.TempDir()
	}
	for _, prio := range []bool{true, false} {
		for _, rw := range []jobfile.RW{jobfile.RWRandRead, jobfile.RWWrite} {
			j := testJob(dir, "gofio-run-uring-test", rw, "io_uring")
			j.Size = 1 << 20
			j.TWPriority = prio
			j.Unlink = true
			setDepth(j, 16)
			res, err := runOnce(j)
			if err != nil {
				t.Skipf("io_uring unavailable here: %v", err)
			}
			r := res.Jobs[0]
			d := &r.Dirs[0]
			if rw == jobfile.RWWrite {
				d = &r.Dirs[1]
			}
			if r.Error != 0 {
				t.Fatalf("%s priority=%v: err=%d %s", rw, prio, r.Error, r.ErrorText)
			}
			if d.TotalIOs != 256 || d.IOBytes != 1<<20 || d.Clat.N != 256 || d.Clat.Max > d.Lat.Max {
				t.Errorf("%s priority=%v: ios=%d bytes=%d clat=%+v lat=%+v", rw, prio, d.TotalIOs, d.IOBytes, d.Clat, d.Lat)
			}
		}
	}
	os.Remove(dir + "/gofio-run-uring-test.dat")
}
