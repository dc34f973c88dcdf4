package run

import (
	"os"
	"path/filepath"
	"testing"

	"gofio/jobfile"
	"gofio/report"
)

// TestSQPollClatSane runs the same depth-1 O_DIRECT random read on
// /dev/shm with and without sqthread_poll. fio 3.33 reports clat as the
// time since it started under SQPOLL; gofio stamps every SQE it publishes,
// so clat <= lat holds for every sample, slat is omitted (as in fio 3.36),
// and the median clat stays within 2x of the run without SQPOLL. The
// median, not the mean, is compared, and the comparison gets three tries,
// because the machine is shared.
func TestSQPollClatSane(t *testing.T) {
	uringOK(t)
	dir, err := os.MkdirTemp("/dev/shm", "gofio-sqpoll-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })

	runP50 := func(sqpoll bool) (uint64, *sampleCheck) {
		j := testJob(dir, "sq", jobfile.RWRandRead, "io_uring")
		j.Filenames = []string{filepath.Join(dir, "sq.dat")}
		j.Size = 8 << 20
		j.Loops = 4
		j.Direct = true
		j.SQThreadPoll = sqpoll
		j.RegisterFiles = sqpoll
		check := &sampleCheck{}
		res := mustRun(t, []*jobfile.Job{j}, Options{sample: check.add})
		d := &res.Jobs[0].Dirs[jobfile.DirRead]
		if sqpoll && d.Slat.N != 0 {
			t.Errorf("sqthread_poll: %d slat samples, want none (slat is omitted as in fio 3.36)", d.Slat.N)
		}
		vals, _, _ := report.Percentiles(&d.ClatHist, d.Clat.N, []float64{50})
		return vals[0], check
	}
	var plain, sq uint64
	for try := 0; try < 3; try++ {
		var cPlain, cSQ *sampleCheck
		plain, cPlain = runP50(false)
		sq, cSQ = runP50(true)
		for _, c := range []*sampleCheck{cPlain, cSQ} {
			if len(c.bad) > 0 {
				t.Fatalf("%d bad samples, first: %s", len(c.bad), c.bad[0])
			}
		}
		if cSQ.n[jobfile.DirRead] != 8<<20/4096*4 {
			t.Fatalf("sqthread_poll: %d samples, want %d", cSQ.n[jobfile.DirRead], 8<<20/4096*4)
		}
		if sq <= 2*plain {
			return
		}
		t.Logf("try %d: median clat %d ns with sqthread_poll, %d ns without", try+1, sq, plain)
	}
	t.Errorf("median clat with sqthread_poll %d ns is over 2x the %d ns without", sq, plain)
}
