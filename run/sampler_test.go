package run

import (
	"testing"
	"time"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// TestSamplerWindows follows fio 3.33's __add_samples: a window closes once
// the whole milliseconds since it started reach the averaging time, the
// rate is over the milliseconds spent, and the next window starts exactly
// one averaging time after the last, so a late sample does not delay the
// next one. A stall restarts the windows instead of catching up.
func TestSamplerWindows(t *testing.T) {
	ms := int64(time.Millisecond)
	s := sampler{avg: 1000 * ms}
	var cur [jobfile.NumDirs]uint64
	r := &report.JobResult{}
	s.reset(0, &cur)
	steps := []struct {
		at     int64  // ns since the stats start
		ios    uint64 // read I/Os done by then
		sample bool   // a sample is taken
		msec   uint64 // its time stamp
		rate   uint64 // its value, I/Os per second
	}{
		// 999.9 ms: not a whole second yet, as fio counts it.
		{999_900_000, 999, false, 0, 0},
		// 1001.2 ms, a late reap: 1001 I/Os over 1001 ms.
		{1001_200_000, 1001, true, 1001, 1000},
		// The next window still starts at 1000 ms: 2000.1 ms closes it.
		{2000_100_000, 2001, true, 2000, 1000},
		// 2999.9 ms is early.
		{2999_900_000, 2900, false, 0, 0},
		// A stall: one sample over the 3499 ms spent since 2000 ms (2000
		// I/Os * 1000 / 3499), no catch-up samples.
		{5499_900_000, 4001, true, 5499, 571},
		// The windows restarted at 5499.9 ms: 6000 ms is early.
		{6000_000_000, 4500, false, 0, 0},
		// 6499.9 ms closes it.
		{6499_900_000, 5001, true, 6499, 1000},
	}
	for i, st := range steps {
		before := len(r.Dirs[jobfile.DirRead].IOPSSamples)
		cur[jobfile.DirRead] = st.ios
		s.add(r, st.at, 0, &cur)
		got := r.Dirs[jobfile.DirRead].IOPSSamples[before:]
		switch {
		case !st.sample && len(got) != 0:
			t.Errorf("step %d (%d ns): sample %+v, want none", i, st.at, got[0])
		case st.sample && len(got) != 1:
			t.Errorf("step %d (%d ns): %d samples, want 1", i, st.at, len(got))
		case st.sample && (got[0].Msec != st.msec || got[0].Value != st.rate):
			t.Errorf("step %d (%d ns): sample at %d ms of %d, want at %d ms of %d", i, st.at, got[0].Msec, got[0].Value, st.msec, st.rate)
		}
	}
}
