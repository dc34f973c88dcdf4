package jobfile

import (
	"fmt"
	"slices"
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
// holds over the last Duration of samples, one a second (fio 3.33) or one
// every steadystate_check_interval (fio 3.35 and later).
type SteadyState struct {
	IOPS  bool // the criterion reads IOPS
	Lat   bool // the criterion reads the mean completion latency (fio 3.42's lat, lat_slope)
	Slope bool // the criterion is the slope (else the maximum deviation from the mean)
	Pct   bool // Limit is a percentage of the mean
	// Limit is the criterion's limit: IOPS, bytes/s, nanoseconds or
	// percent.
	Limit float64
	// Duration is steadystate_duration: fio keeps whole seconds of it,
	// and none turns detection off.
	Duration time.Duration
	Ramp     time.Duration // steadystate_ramp_time
	// Interval is steadystate_check_interval (fio 3.35): the period of
	// the criterion's samples (fio 3.33's one second by default);
	// IntervalSet says the job gave it.
	Interval    time.Duration
	IntervalSet bool
}

// Newer reports whether the job's steady state is fio 3.42's, with its
// rules: it gives steadystate_check_interval, or judges latency, which
// fio 3.33 does not have. Otherwise it is fio 3.33's, one sample a second.
func (s SteadyState) Newer() bool { return s.IntervalSet || s.Lat }

// Samples returns how many samples the criterion's window holds: fio's
// ss_dur, or fio 3.42's intervals, ss_dur over the interval's whole
// seconds.
func (s SteadyState) Samples() int {
	if sec := int(s.Interval / time.Second); s.Newer() && sec > 0 {
		return s.Seconds() / sec
	}
	return s.Seconds()
}

// Check returns fio 3.42's refusal of the job's steady-state set-up
// (fixup_options, before any job runs), or "": an interval under a
// second, or a duration that is not a multiple of it and longer. fio
// 3.33's steady state has neither rule.
func (s SteadyState) Check() string {
	if !s.On() || !s.Newer() {
		return ""
	}
	dur, iv := s.Duration.Microseconds(), s.Interval.Microseconds()
	if iv < 1000000 {
		return "fio: ss_check_interval must be at least 1s"
	}
	if dur%iv != 0 || dur <= iv {
		return fmt.Sprintf("fio: ss_duration %dus must be multiple of ss_check_interval %dus", dur, iv)
	}
	return ""
}

// Seconds returns how many one-second samples the criterion spans: fio's
// ss_dur, steadystate_duration truncated to whole seconds.
func (s SteadyState) Seconds() int { return int(s.Duration / time.Second) }

// On reports whether the job detects steady state.
func (s SteadyState) On() bool { return s.Seconds() > 0 }

// Name returns the criterion as fio names it: iops, iops_slope, bw,
// bw_slope, lat or lat_slope.
func (s SteadyState) Name() string {
	if s.Slope {
		return s.Metric() + "_slope"
	}
	return s.Metric()
}

// Metric returns what the criterion reads: iops, bw or lat.
func (s SteadyState) Metric() string {
	switch {
	case s.IOPS:
		return "iops"
	case s.Lat:
		return "lat"
	}
	return "bw"
}

// steadyChoices are steadystate='s criteria, as fio 3.42's --cmdhelp
// lists them (lat and lat_slope are fio 3.42's).
var steadyChoices = []Choice{
	{"iops", "maximum mean deviation of IOPS measurements"},
	{"iops_slope", "slope calculated from IOPS measurements"},
	{"bw", "maximum mean deviation of bandwidth measurements"},
	{"bw_slope", "slope calculated from bandwidth measurements"},
	{"lat", "maximum mean deviation of latency measurements"},
	{"lat_slope", "slope calculated from latency measurements"},
}

// setSteadyState parses steadystate=CRITERION:LIMIT[%] as fio's
// str_steadystate_cb: a percentage or an IOPS limit is a float, a
// bandwidth limit a size in kb_base units, a latency limit a time (a bare
// number in microseconds, as fio's time options), kept in nanoseconds.
func setSteadyState(j *Job, v string) error {
	kind, limit, ok := strings.Cut(v, ":")
	s := &j.SteadyState
	if !slices.ContainsFunc(steadyChoices, func(c Choice) bool { return c.Value == kind }) {
		return fmt.Errorf("want iops, iops_slope, bw, bw_slope, lat or lat_slope, then :LIMIT (got %q)", v)
	}
	if !ok {
		return fmt.Errorf("steadystate=%s needs a limit (%s:1%%)", kind, kind)
	}
	s.IOPS = strings.HasPrefix(kind, "iops")
	s.Lat = strings.HasPrefix(kind, "lat")
	s.Slope = strings.HasSuffix(kind, "_slope")
	num, pct := strings.CutSuffix(limit, "%")
	num = strings.TrimRight(num, " \t")
	s.Pct = pct
	if s.Lat && !pct {
		d, err := parseTime(num, time.Microsecond)
		if err != nil {
			return fmt.Errorf("steadystate latency threshold %q: %w", num, err)
		}
		s.Limit = float64(d.Nanoseconds())
		return nil
	}
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
