package verifylog

import (
	"slices"
	"testing"
	"time"

	"github.com/gofio/gofio/internal/fiostat"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// sampler stands in for the run core's bw and iops sampler: its window
// and the log it writes its lines into.
type sampler struct {
	avg  int64
	isBW bool
	log  *[]report.LogSample
}

// newJobLogger is NewJobLogger with the samplers set up as the run core
// sets its own (run's sampler.logTo).
func newJobLogger(j *jobfile.Job, res *report.JobResult, bw, iops *sampler, noClat, noLat bool) *JobLogger {
	lg, b, i := NewJobLogger(j, res, noClat, noLat)
	for _, x := range []struct {
		s *sampler
		r RateLog
	}{{bw, b}, {iops, i}} {
		if x.r.Out != nil {
			x.s.avg = x.r.AvgNs
			if x.r.AvgNs > 0 {
				x.s.log = x.r.Out
			}
		}
	}
	return lg
}

// TestJobLoggerSetup checks which logs a job gets and how the bw and iops
// samplers change with them.
func TestJobLoggerSetup(t *testing.T) {
	ms := int64(time.Millisecond)
	cases := []struct {
		name                   string
		lat, bw, iops          string
		avg                    int
		wantNil                bool
		wantBWAvg, wantIOPSAv  int64
		wantBWUnit, wantIOUnit bool
	}{
		// No log option: no logger, samplers keep bwavgtime/iopsavgtime.
		{name: "none", wantNil: true, wantBWAvg: 500 * ms, wantIOPSAv: 500 * ms},
		// Latency log only: the samplers are untouched.
		{name: "lat", lat: "x", wantBWAvg: 500 * ms, wantIOPSAv: 500 * ms},
		// Per-I/O bw log: the bw windows stop, iops keep theirs.
		{name: "bw unit", bw: "x", wantBWAvg: 0, wantIOPSAv: 500 * ms, wantBWUnit: true},
		// Per-I/O iops log: the iops windows stop.
		{name: "iops unit", iops: "x", wantBWAvg: 500 * ms, wantIOPSAv: 0, wantIOUnit: true},
		// log_avg_msec replaces the window of the logged kind only.
		{name: "iops avg", iops: "x", avg: 200, wantBWAvg: 500 * ms, wantIOPSAv: 200 * ms},
		{name: "both avg", bw: "x", iops: "x", avg: 1000, wantBWAvg: 1000 * ms, wantIOPSAv: 1000 * ms},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := &jobfile.Job{WriteLatLog: c.lat, WriteBWLog: c.bw, WriteIOPSLog: c.iops, LogAvgMsec: c.avg, Runtime: time.Second}
			res := &report.JobResult{}
			bw := sampler{avg: 500 * ms, isBW: true}
			iops := sampler{avg: 500 * ms}
			lg := newJobLogger(j, res, &bw, &iops, false, false)
			if (lg == nil) != c.wantNil || (res.Logs == nil) != c.wantNil {
				t.Fatalf("logger %v, Logs %v, want nil %v", lg, res.Logs, c.wantNil)
			}
			if bw.avg != c.wantBWAvg || iops.avg != c.wantIOPSAv {
				t.Errorf("windows bw %d iops %d, want %d %d", bw.avg, iops.avg, c.wantBWAvg, c.wantIOPSAv)
			}
			if lg == nil {
				return
			}
			if lg.bwUnit != c.wantBWUnit || lg.iopsUnit != c.wantIOUnit {
				t.Errorf("per-I/O bw %v iops %v, want %v %v", lg.bwUnit, lg.iopsUnit, c.wantBWUnit, c.wantIOUnit)
			}
			if (bw.log != nil) != (c.bw != "" && c.avg > 0) || (iops.log != nil) != (c.iops != "" && c.avg > 0) {
				t.Errorf("sampler logs bw %v iops %v", bw.log != nil, iops.log != nil)
			}
		})
	}
}

// TestJobLoggerPerIO checks the per-I/O lines of every log without
// log_avg_msec, and the bw and iops statistics samples they take.
func TestJobLoggerPerIO(t *testing.T) {
	j := &jobfile.Job{WriteLatLog: "l", WriteBWLog: "b", WriteIOPSLog: "i"}
	res := &report.JobResult{}
	var bw, iops sampler
	lg := newJobLogger(j, res, &bw, &iops, false, false)
	lg.Issued(0, jobfile.DirRead, 1500, 4096, 8192)
	lg.Completed(&res.Dirs[jobfile.DirRead], 0, jobfile.DirRead, 40000, 41500, 4096, 8192, 0)
	lg.Issued(3, jobfile.DirWrite, 2000, 8192, 0)
	lg.Completed(&res.Dirs[jobfile.DirWrite], 7, jobfile.DirWrite, 80000, 82000, 8192, 0, 0)
	lg.Finish(9) // no windows: adds nothing
	L := res.Logs
	want := map[string][]report.LogSample{
		"slat": {{Msec: 0, Value: 1500, Dir: jobfile.DirRead, BS: 4096, Offset: 8192}, {Msec: 3, Value: 2000, Dir: jobfile.DirWrite, BS: 8192}},
		"clat": {{Msec: 0, Value: 40000, Dir: jobfile.DirRead, BS: 4096, Offset: 8192}, {Msec: 7, Value: 80000, Dir: jobfile.DirWrite, BS: 8192}},
		"lat":  {{Msec: 0, Value: 41500, Dir: jobfile.DirRead, BS: 4096, Offset: 8192}, {Msec: 7, Value: 82000, Dir: jobfile.DirWrite, BS: 8192}},
		// bytes*1e6/clat: 4096e6/40000 and 8192e6/80000.
		"bw":   {{Msec: 0, Value: 102400, Dir: jobfile.DirRead, BS: 4096, Offset: 8192}, {Msec: 7, Value: 102400, Dir: jobfile.DirWrite, BS: 8192}},
		"iops": {{Msec: 0, Value: 1, Dir: jobfile.DirRead, BS: 4096, Offset: 8192}, {Msec: 7, Value: 1, Dir: jobfile.DirWrite, BS: 8192}},
	}
	got := map[string][]report.LogSample{"slat": L.Slat, "clat": L.Clat, "lat": L.Lat, "bw": L.BW, "iops": L.IOPS}
	for k, w := range want {
		if len(got[k]) != len(w) {
			t.Fatalf("%s: %d lines, want %d", k, len(got[k]), len(w))
		}
		for i := range w {
			if got[k][i] != w[i] {
				t.Errorf("%s line %d: %+v, want %+v", k, i, got[k][i], w[i])
			}
		}
	}
	r := &res.Dirs[jobfile.DirRead]
	if r.BW.N != 1 || r.BW.Max != 102400 || r.IOPS.N != 1 || r.IOPS.Max != 1 {
		t.Errorf("read stats bw %+v iops %+v, want one sample each", r.BW, r.IOPS)
	}
}

// TestJobLoggerAveraged checks the log_avg_msec latency windows: closed by
// the first I/O past the window with its time, then once more at the end.
func TestJobLoggerAveraged(t *testing.T) {
	j := &jobfile.Job{WriteLatLog: "l", LogAvgMsec: 100, Runtime: time.Second}
	res := &report.JobResult{}
	var bw, iops sampler
	lg := newJobLogger(j, res, &bw, &iops, false, true) // disable_lat
	ds := &res.Dirs[jobfile.DirRead]
	for _, c := range []struct{ msec, clat uint64 }{
		{10, 1000}, {50, 2000}, // first window
		{101, 3000},              // closes it at 101
		{150, 4000}, {180, 6000}, // second window, closed by finish: mean 5000
	} {
		lg.Completed(ds, c.msec, jobfile.DirRead, c.clat, c.clat+10, 4096, 0, 0)
	}
	lg.Finish(190)
	want := []report.LogSample{{Msec: 101, Value: 2000, Dir: jobfile.DirRead}, {Msec: 190, Value: 5000, Dir: jobfile.DirRead}}
	if len(res.Logs.Clat) != len(want) {
		t.Fatalf("clat lines %+v, want %+v", res.Logs.Clat, want)
	}
	for i := range want {
		if res.Logs.Clat[i] != want[i] {
			t.Errorf("clat line %d: %+v, want %+v", i, res.Logs.Clat[i], want[i])
		}
	}
	if len(res.Logs.Lat) != 0 {
		t.Errorf("lat log with disable_lat: %d lines", len(res.Logs.Lat))
	}
	if cap(res.Logs.Clat) < 2*(10+2) {
		t.Errorf("clat log capacity %d, want room for every window", cap(res.Logs.Clat))
	}
}

// TestHistLogger checks write_hist_log sampling as fio's add_clat_sample:
// a line per direction once log_hist_msec has passed since its last one,
// the histogram's growth since the direction's previous line summed over
// 2^coarseness buckets, the next window shortened by the drift.
func TestHistLogger(t *testing.T) {
	var out []report.HistLogSample
	hl := &histLogger{msec: 100, stride: 1 << 6, samples: &out}
	var h [jobfile.NumDirs]report.Hist
	add := func(msec uint64, d jobfile.Dir, ns uint64) {
		h[d].Add(ns)
		hl.sample(&h[d], msec, d, 4096)
	}
	add(5, jobfile.DirRead, 100)      // opens the read window at 5
	add(50, jobfile.DirRead, 100)     // inside it
	add(110, jobfile.DirRead, 5000)   // 105 ms: a line, next window from 105
	add(120, jobfile.DirWrite, 100)   // opens the write window
	add(204, jobfile.DirRead, 100)    // 99 ms after 105: none
	add(205, jobfile.DirRead, 100000) // a line with the last two
	if len(out) != 2 {
		t.Fatalf("%d lines, want 2: %+v", len(out), out)
	}
	if len(out[0].Bins) != fiostat.HistBuckets>>6 {
		t.Fatalf("%d bins, want %d", len(out[0].Bins), fiostat.HistBuckets>>6)
	}
	want := func(vals ...uint64) []uint64 {
		b := make([]uint64, fiostat.HistBuckets>>6)
		for _, v := range vals {
			b[fiostat.HistIndex(v)>>6]++
		}
		return b
	}
	for i, w := range []struct {
		msec uint64
		bins []uint64
	}{{110, want(100, 100, 5000)}, {205, want(100, 100000)}} {
		if out[i].Msec != w.msec || out[i].Dir != jobfile.DirRead || !slices.Equal(out[i].Bins, w.bins) {
			t.Errorf("line %d: %+v, want msec %d bins %v", i, out[i], w.msec, w.bins)
		}
	}
}
