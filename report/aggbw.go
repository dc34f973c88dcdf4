package report

import (
	"time"

	"github.com/gofio/gofio/jobfile"
)

// AggBandwidth is fio's --bandwidth-log: every 500 ms (fio's bw_avg_time) the
// bandwidth of all jobs together per direction, in KiB/s, for
// agg-read_bw.log, agg-write_bw.log and agg-trim_bw.log, read from the
// jobs' Progress as the ETA line reads it.
type AggBandwidth struct {
	// Samples are the samples per direction, read, write and trim.
	Samples [3][]LogSample
}

// Run samples ps until stop is closed, then closes done.
func (a *AggBandwidth) Run(ps []*Progress, start time.Time, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	const every = 500 * time.Millisecond
	t := time.NewTicker(every)
	defer t.Stop()
	var prev [3]uint64
	last := start
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			ms := uint64(now.Sub(last).Milliseconds())
			last = now
			for d := range prev {
				var sum uint64
				for _, p := range ps {
					sum += p.Bytes[d].Load()
				}
				var rate uint64
				if ms > 0 {
					rate = (sum - prev[d]) * 1000 / ms / 1024
				}
				prev[d] = sum
				a.Samples[d] = append(a.Samples[d], LogSample{Msec: uint64(now.Sub(start).Milliseconds()), Value: rate, Dir: jobfile.Dir(d)})
			}
		}
	}
}
