package jobfile

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// LatencyTarget is fio's latency_target family: the job searches for the
// highest queue depth (up to iodepth) at which latency_percentile percent
// of the I/Os of each latency_window complete within Target.
type LatencyTarget struct {
	Target     time.Duration // latency_target; 0 turns the search off
	Window     time.Duration // latency_window: how long each depth is tried
	Percentile float64       // latency_percentile (the first value of the list)
	Run        bool          // latency_run: keep searching after the depth settled
}

// On reports whether the job searches for a depth.
func (l LatencyTarget) On() bool { return l.Target > 0 }

// SteadyState is fio's steadystate family: the job ends once the criterion
// holds over the last Duration of one-second samples.
type SteadyState struct {
	IOPS  bool    // the criterion reads IOPS (else bandwidth)
	Slope bool    // the criterion is the slope (else the maximum deviation from the mean)
	Pct   bool    // Limit is a percentage of the mean
	Limit float64 // the criterion's limit: IOPS, bytes/s or percent
	// Duration is steadystate_duration: fio keeps whole seconds of it,
	// and none turns detection off.
	Duration time.Duration
	Ramp     time.Duration // steadystate_ramp_time
	// Interval is steadystate_check_interval (fio 3.35): the period of
	// the criterion's samples (fio 3.33's one second by default).
	Interval time.Duration
}

// Seconds returns how many one-second samples the criterion spans: fio's
// ss_dur, steadystate_duration truncated to whole seconds.
func (s SteadyState) Seconds() int { return int(s.Duration / time.Second) }

// On reports whether the job detects steady state.
func (s SteadyState) On() bool { return s.Seconds() > 0 }

// Name returns the criterion as fio names it: iops, iops_slope, bw or
// bw_slope.
func (s SteadyState) Name() string {
	n := "bw"
	if s.IOPS {
		n = "iops"
	}
	if s.Slope {
		n += "_slope"
	}
	return n
}

// setSteadyState parses steadystate=iops|iops_slope|bw|bw_slope:LIMIT[%] as
// fio's str_steadystate_cb: a percentage or an IOPS limit is a float, a
// bandwidth limit a size in kb_base units.
func setSteadyState(j *Job, v string) error {
	kind, limit, ok := strings.Cut(v, ":")
	s := &j.SteadyState
	switch kind {
	case "iops", "iops_slope", "bw", "bw_slope":
	default:
		return fmt.Errorf("want iops, iops_slope, bw or bw_slope, then :LIMIT (got %q)", v)
	}
	if !ok {
		return fmt.Errorf("steadystate=%s needs a limit (%s:1%%)", kind, kind)
	}
	s.IOPS = strings.HasPrefix(kind, "iops")
	s.Slope = strings.HasSuffix(kind, "_slope")
	num, pct := strings.CutSuffix(limit, "%")
	num = strings.TrimRight(num, " \t")
	s.Pct = pct
	if pct || s.IOPS {
		if f, err := strconv.ParseFloat(num, 64); err == nil {
			s.Limit = f
			return nil
		}
	}
	kb := j.KBBase
	if pct || s.IOPS {
		kb = 1024
	}
	n, err := parseInt(num, kb)
	if err != nil {
		// fio's str_to_decimal keeps the leading integer when the suffix
		// is not a unit: bw:1e12 and bw:1.5m are both 1.
		lead := strings.TrimLeft(num, " \t")
		end := 0
		for end < len(lead) && lead[end] >= '0' && lead[end] <= '9' {
			end++
		}
		if n, err = strconv.ParseInt(lead[:end], 10, 64); err != nil {
			return fmt.Errorf("steadystate limit %q is not a number", num)
		}
	}
	s.Limit = float64(n)
	return nil
}

// setLatencyPercentile keeps the first value of latency_percentile's list,
// the one fio reads.
func setLatencyPercentile(j *Job, v string) error {
	l, _, err := parseFloatList(v)
	if err != nil {
		return err
	}
	if len(l) > 0 {
		j.LatencyTarget.Percentile = l[0]
	}
	return nil
}
