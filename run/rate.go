package run

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gofio/gofio/jobfile"
	"golang.org/x/sys/unix"
)

// This file holds fio's rate limits: rate=/rate_iops= gaps (rateGapFor at
// issue), the skip of paused time, and rate_min/rate_iops_min checks.

// skipRate is rate_ignore_thinktime after a pause of paused ns in
// direction d, as fio's handle_thinktime: the schedule counts the bytes
// the rate would have moved meanwhile (in whole microseconds) as issued,
// less one block when the pause was at least one block's time, so that
// the first I/O after it goes out at once and the rest at the rate.
func (l *loop) skipRate(d jobfile.Dir, paused int64) {
	bps := l.job.Rate[d]
	bs := l.job.BSMin(d)
	if bps == 0 {
		bps = l.job.RateIOPS[d] * bs // fio's rate_bps for rate_iops
	}
	us := uint64(paused / int64(time.Microsecond))
	if bps == 0 || bs == 0 || us == 0 {
		return
	}
	missed := bps * us / 1000000
	var over uint64
	if usPerOp := bs * 1000000 / bps; usPerOp <= us {
		over = bs
	}
	skip := float64(int64(missed) - int64(over))
	l.nextIssue[d] += int64(skip * float64(time.Second) / float64(bps))
}

// rated reports whether rate= or rate_iops= limits direction d.
func (l *loop) rated(d jobfile.Dir) bool { return l.job.Rate[d] > 0 || l.rateGap[d] > 0 }

// rateGapFor returns the time between I/Os of n bytes in d that rate= and
// rate_iops= ask for (0 when neither is set).
func (l *loop) rateGapFor(d jobfile.Dir, n uint64) int64 {
	if l.rateGap[d] == 0 && l.job.Rate[d] == 0 {
		return 0
	}
	return l.rateGapSet(d, n)
}

// rateGapSet is rateGapFor for a rated direction, kept out of line so
// that an unrated job pays one inlined test per I/O.
func (l *loop) rateGapSet(d jobfile.Dir, n uint64) int64 {
	gap := l.rateGap[d]
	if r := l.job.Rate[d]; r > 0 {
		gap = int64(n) * int64(time.Second) / int64(r)
	}
	if gap > 0 && l.job.RateProcess == "poisson" {
		// fio's usec_for_io: exponential gaps with the same mean.
		u := float64(l.poisson.Next()>>11) / (1 << 53)
		gap = int64(float64(gap) * -math.Log(1-u))
	}
	return gap
}

// minRateState is what rate_min and rate_iops_min compare against: the
// bytes and I/Os at the last check, per direction, and when it was.
type minRateState struct {
	at          [jobfile.NumDirs]int64
	bytes, blks [jobfile.NumDirs]uint64
	sampled     [jobfile.NumDirs]bool
}

// checkMinRate is fio's check_min_rate: after a 2 s settling period, every
// rate_cycle the job must have done at least rate_min bytes/s (or
// rate_iops_min I/Os/s) in each direction since the last check, or it ends
// with EIO ("check_min_rate"), as in fio.
func (l *loop) checkMinRate(now int64) {
	j := l.job
	for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
		minB, minI := j.RateMin[d], j.RateIOPSMin[d]
		if (minB == 0 && minI == 0) || l.ramping || now-l.started < int64(2*time.Second) || l.bytesDone[d] == 0 {
			continue // fio checks only the directions that moved data
		}
		st := &l.minRate
		bytes, ios := l.bytesDone[d], l.iosDone[d]
		if st.sampled[d] {
			spent := (now - st.at[d]) / int64(time.Millisecond)
			if spent < int64(j.RateCycle) {
				continue
			}
			var msg string
			if minB > 0 {
				rate := uint64(0)
				if spent > 0 {
					rate = (bytes - st.bytes[d]) * 1000 / uint64(spent)
				}
				if bytes < st.bytes[d] || rate < minB || bytes-st.bytes[d] < minB {
					msg = fmt.Sprintf("rate_min=%dB/s not met, got %dB/s", minB, rate)
				}
			} else {
				rate := uint64(0)
				if spent > 0 {
					rate = (ios - st.blks[d]) * 1000 / uint64(spent)
				}
				if rate < minI || ios-st.blks[d] < minI {
					msg = fmt.Sprintf("rate_iops_min=%d not met, got %d IOPS", minI, rate)
				}
			}
			if msg != "" {
				if l.warn != nil {
					fmt.Fprintf(l.warn, "gofio: %s: %s\n", j.Name, msg)
				}
				l.setError(int(unix.EIO), "check_min_rate", errors.New(msg))
				l.stopIssue = true
				return
			}
		}
		st.sampled[d], st.at[d], st.bytes[d], st.blks[d] = true, now, bytes, ios
	}
}
