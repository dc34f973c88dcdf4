package run

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// sampleCheck collects what Options.sample sees and checks each sample:
// clat <= lat, and lat = slat + clat where slat was measured.
type sampleCheck struct {
	mu    sync.Mutex
	n     [jobfile.NumDirs]uint64
	nSlat [jobfile.NumDirs]uint64
	bad   []string
}

func (c *sampleCheck) add(d jobfile.Dir, slat, clat, lat int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[d]++
	if clat > lat || clat < 0 {
		c.bad = append(c.bad, fmt.Sprintf("%s: clat %d > lat %d", d, clat, lat))
	}
	if slat >= 0 {
		c.nSlat[d]++
		if slat+clat != lat {
			c.bad = append(c.bad, fmt.Sprintf("%s: slat %d + clat %d != lat %d", d, slat, clat, lat))
		}
	}
}

// TestCountsEveryEngineAndMode runs fixed-size jobs on every engine and rw
// mode and checks the numbers are exactly right: I/Os and bytes equal
// size/bs, every histogram holds one sample per I/O, and per sample clat
// <= lat and lat = slat + clat where slat exists (not for psync, as in
// fio).
func TestCountsEveryEngineAndMode(t *testing.T) {
	uringOK(t)
	dir := t.TempDir()
	const size = 256 << 10
	modes := []jobfile.RW{jobfile.RWRead, jobfile.RWWrite, jobfile.RWRandRead, jobfile.RWRandWrite, jobfile.RWReadWrite, jobfile.RWRandRW}
	cases := []struct {
		engine string
		depth  int
		batch  int
		bs     uint64
		direct bool
	}{
		// null at depth 1.
		{"null", 1, 1, 4096, false},
		// null at depth 16, submitting 4 at a time.
		{"null", 16, 4, 16384, false},
		// psync (depth capped at 1, no slat).
		{"psync", 4, 1, 4096, false},
		// io_uring buffered at depth 1.
		{"io_uring", 1, 1, 4096, false},
		// io_uring O_DIRECT at depth 32, batches of 8.
		{"io_uring", 32, 8, 8192, true},
	}
	for _, c := range cases {
		for _, rw := range modes {
			name := fmt.Sprintf("%s-qd%d-%s", c.engine, c.depth, rw)
			t.Run(name, func(t *testing.T) {
				j := testJob(dir, name, rw, c.engine)
				setDepth(j, c.depth)
				j.IODepthBatchSubmit = c.batch
				j.Size = size
				j.BS = [jobfile.NumDirs]uint64{c.bs, c.bs, c.bs}
				j.Direct = c.direct
				j.Unlink = true
				var sc sampleCheck
				r := mustRun(t, []*jobfile.Job{j}, Options{sample: sc.add}).Jobs[0]
				// Synchronous engines take no slat, as fio's: psync, and
				// null at depth 1 (fio's null sets FIO_SYNCIO there).
				checkCounts(t, r, &sc, size/c.bs, c.bs, c.engine != "psync" && !(c.engine == "null" && c.depth == 1))
			})
		}
	}
}

// checkCounts checks a fixed-size job's result against its samples.
func checkCounts(t *testing.T, r *report.JobResult, sc *sampleCheck, wantIOs, bs uint64, wantSlat bool) {
	t.Helper()
	if len(sc.bad) > 0 {
		t.Fatalf("%d bad samples, first: %s", len(sc.bad), sc.bad[0])
	}
	var ios, bytes uint64
	for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
		ds := &r.Dirs[d]
		ios += ds.TotalIOs
		bytes += ds.IOBytes
		if ds.IOBytes != ds.TotalIOs*bs {
			t.Errorf("%s: %d bytes for %d I/Os of %d", d, ds.IOBytes, ds.TotalIOs, bs)
		}
		if sc.n[d] != ds.TotalIOs || ds.Clat.N != ds.TotalIOs || ds.Lat.N != ds.TotalIOs {
			t.Errorf("%s: %d samples, clat N %d, lat N %d for %d I/Os", d, sc.n[d], ds.Clat.N, ds.Lat.N, ds.TotalIOs)
		}
		for _, h := range []struct {
			name string
			h    *report.Hist
			want uint64
		}{{"clat", &ds.ClatHist, ds.TotalIOs}, {"lat", &ds.LatHist, ds.TotalIOs}, {"slat", &ds.SlatHist, ds.Slat.N}} {
			if got := histCount(h.h); got != h.want {
				t.Errorf("%s: %s histogram holds %d, want %d", d, h.name, got, h.want)
			}
		}
		wantSlatN := uint64(0)
		if wantSlat {
			wantSlatN = ds.TotalIOs
		}
		if ds.Slat.N != wantSlatN || sc.nSlat[d] != wantSlatN {
			t.Errorf("%s: slat N %d, samples with slat %d; want %d", d, ds.Slat.N, sc.nSlat[d], wantSlatN)
		}
		if ds.TotalIOs > 0 && (ds.Clat.Max > ds.Lat.Max || ds.Clat.Min > ds.Lat.Min) {
			t.Errorf("%s: clat %+v exceeds lat %+v", d, ds.Clat, ds.Lat)
		}
	}
	if ios != wantIOs || bytes != wantIOs*bs {
		t.Errorf("%d I/Os and %d bytes, want %d and %d", ios, bytes, wantIOs, wantIOs*bs)
	}
	var buckets uint64
	for _, v := range r.LatNs {
		buckets += v
	}
	for _, v := range r.LatUs {
		buckets += v
	}
	for _, v := range r.LatMs {
		buckets += v
	}
	if buckets != ios || histCount(&r.TWWaitHist) != ios {
		t.Errorf("latency buckets %d, tw wait histogram %d, want %d", buckets, histCount(&r.TWWaitHist), ios)
	}
}
