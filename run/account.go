package run

import (
	"math/bits"
	"time"

	"github.com/gofio/gofio/internal/verifylog"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// depthBucket returns fio's IO depths bucket for depth d: 1, 2-3, 4-7,
// 8-15, 16-31, 32-63, >=64 (a power-of-two bucket is the bit length less
// one: no chain of compares on the per-I/O path).
func depthBucket(d int) int {
	if d < 2 {
		return 0
	}
	return min(bits.Len(uint(d))-1, 6)
}

// batchBucket returns fio's submit/complete bucket for a batch of n: 0,
// 1-4, 5-8, 9-16, 17-32, 33-64, >64.
func batchBucket(n int) int {
	switch {
	case n <= 0:
		return 0
	case n <= 4:
		return 1
	}
	return min(bits.Len(uint(n-1))-1, 6)
}

// lat1000Edges are the lower edges of fio's buckets 1 to 9 for values
// below 1000: 2, 4, 10, 20, 50, 100, 250, 500, 750 and 1000, bucket 0
// below 2 (io_u_mark_lat_nsec/usec).
var lat1000Edges = [...]uint64{2, 4, 10, 20, 50, 100, 250, 500, 750}

// lat1000Bucket maps a value below 1000 to its bucket: the number of
// lat1000Edges at or below it.
func lat1000Bucket(v uint64) int {
	n := 0
	for _, e := range lat1000Edges {
		if v >= e {
			n++
		}
	}
	return n
}

// lat1000Buckets is lat1000Bucket for every value below 1000, which
// markLatency looks up once per I/O instead of comparing its way down. It
// is computed once and never written.
var lat1000Buckets = func() (t [1000]uint8) {
	for v := range t {
		t[v] = uint8(lat1000Bucket(uint64(v)))
	}
	return t
}()

// markLatency counts a clat sample in fio's latency distribution
// (io_u_mark_latency): nanosecond buckets below 1 µs, microsecond below
// 1 ms, millisecond above (the last holding >= 2000 ms).
func markLatency(r *report.JobResult, ns uint64) {
	switch {
	case ns < 1000:
		r.LatNs[lat1000Buckets[ns]]++
	case ns < 1000000:
		r.LatUs[lat1000Buckets[ns/1000]]++
	default:
		ms := ns / 1000000
		switch {
		case ms >= 2000:
			r.LatMs[11]++
		case ms >= 1000:
			r.LatMs[10]++
		default:
			r.LatMs[lat1000Buckets[ms]]++
		}
	}
}

// sampler keeps fio's bw/iops windows (__add_samples in stat.c): once the
// whole milliseconds since the window started reach the averaging time, one
// sample per direction that moved, the rate taken over those milliseconds,
// and the window start advancing by exactly the averaging time, so a late
// sample does not push the later ones back (fio 3.33 logs 1000, 2001, 3000).
// After a stall of more than one window the windows restart at the sample
// instead of catching up with a burst of samples, as fio's would.
type sampler struct {
	avg    int64 // window in ns, whole milliseconds
	last   int64 // window start
	prev   [jobfile.NumDirs]uint64
	isBW   bool
	kbBase uint64
	// log, when set, receives every sample as a write_bw_log or
	// write_iops_log line (log_avg_msec windows, bs 0).
	log *[]report.LogSample
}

// logTo points the sampler at its write_bw_log or write_iops_log: one
// line per log_avg_msec window, or none and no samples of its own when
// the log is per I/O.
func (s *sampler) logTo(r verifylog.RateLog) {
	if r.Out == nil {
		return
	}
	s.avg = r.AvgNs
	if r.AvgNs > 0 {
		s.log = r.Out
	}
}

func (s *sampler) reset(now int64, cur *[jobfile.NumDirs]uint64) {
	s.last = now
	s.prev = *cur
}

// add takes a sample of cur (bytes or I/O counts per direction) at now;
// start is the stats origin for the log time stamp.
func (s *sampler) add(r *report.JobResult, now, start int64, cur *[jobfile.NumDirs]uint64) {
	// take's own test in ns, inlined into every reap: avg is whole
	// milliseconds, so fewer whole milliseconds than avg's since the
	// window started is fewer ns than avg (a clock behind the window
	// start, or no window, is take's to judge).
	if uint64(now-s.last) < uint64(s.avg) {
		return
	}
	s.take(r, now, start, cur)
}

// take is add once the window may have closed.
func (s *sampler) take(r *report.JobResult, now, start int64, cur *[jobfile.NumDirs]uint64) {
	if s.avg <= 0 {
		return
	}
	// fio compares whole milliseconds and skips while avg - spent is at
	// least LOG_MSEC_SLACK (1 ms), that is, while spent < avg.
	ms := uint64((now - s.last) / int64(time.Millisecond))
	if ms < uint64(s.avg/int64(time.Millisecond)) {
		return
	}
	for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
		delta := cur[d] - s.prev[d]
		if delta == 0 {
			continue
		}
		var rate uint64
		if ms > 0 {
			rate = delta * 1000 / ms
			if s.isBW {
				rate /= s.kbBase
			}
		}
		// A window's one rate is also its maximum (log_window_value=both).
		smp := report.LogSample{Msec: uint64((now - start) / 1000000), Value: rate, Dir: d, Max: rate}
		if s.isBW {
			r.Dirs[d].BW.Add(rate)
			r.Dirs[d].BWSamples = append(r.Dirs[d].BWSamples, smp)
		} else {
			r.Dirs[d].IOPS.Add(rate)
			r.Dirs[d].IOPSSamples = append(r.Dirs[d].IOPSSamples, smp)
		}
		if s.log != nil {
			*s.log = append(*s.log, smp)
		}
		s.prev[d] = cur[d]
	}
	s.last += s.avg
	if now-s.last > s.avg {
		s.last = now
	}
}
