package run

import (
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/jobfile"
)

// TestLogEpoch runs a logging job with log_unix_epoch, and with
// log_alternate_epoch on CLOCK_MONOTONIC: the logs' epoch is that clock's
// milliseconds when the job's statistics started, as fio's set_epoch_time;
// without either it is 0.
func TestLogEpoch(t *testing.T) {
	clockMs := func(id int32) uint64 {
		var ts unix.Timespec
		if err := unix.ClockGettime(id, &ts); err != nil {
			t.Fatal(err)
		}
		return uint64(ts.Sec)*1000 + uint64(ts.Nsec)/1000000
	}
	for _, c := range []struct {
		name        string
		unixEp, alt bool
		clock       int32
	}{
		{"none", false, false, unix.CLOCK_REALTIME},
		{"unix", true, false, unix.CLOCK_REALTIME},
		{"monotonic", false, true, unix.CLOCK_MONOTONIC},
	} {
		j := testJob(t.TempDir(), c.name, jobfile.RWRead, "psync")
		j.WriteLatLog = "lat"
		j.LogUnixEpoch, j.LogAlternateEpoch, j.LogEpochClock = c.unixEp, c.alt, int(c.clock)
		before := clockMs(c.clock)
		res := mustRun(t, []*jobfile.Job{j}, Options{})
		after := clockMs(c.clock)
		ep := res.Jobs[0].Logs.EpochMsec
		switch {
		case !c.unixEp && !c.alt && ep != 0:
			t.Errorf("%s: epoch %d, want 0", c.name, ep)
		case (c.unixEp || c.alt) && (ep < before || ep > after):
			t.Errorf("%s: epoch %d, want within [%d, %d]", c.name, ep, before, after)
		}
	}
}
