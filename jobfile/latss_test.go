package jobfile

import (
	"strings"
	"testing"
	"time"
)

// TestLatencyTargetOptions checks what latency_target and its family
// store: times in microseconds by default, the first percentile.
func TestLatencyTargetOptions(t *testing.T) {
	j := parseOne(t, "latency_target=500\nlatency_window=5s\nlatency_percentile=99.9:50\nlatency_run=1\n")
	want := LatencyTarget{Target: 500 * time.Microsecond, Window: 5 * time.Second, Percentile: 99.9, Run: true}
	if j.LatencyTarget != want {
		t.Errorf("got %+v, want %+v", j.LatencyTarget, want)
	}
	if d := parseOne(t, "size=1m\n").LatencyTarget; d.On() || d.Percentile != 100 {
		t.Errorf("default %+v, want off at percentile 100", d)
	}
}

// TestSteadyStateOptions checks steadystate's criteria and limits as fio's
// str_steadystate_cb parses them, and that ss_dur keeps whole seconds.
func TestSteadyStateOptions(t *testing.T) {
	cases := []struct {
		body string
		want SteadyState
	}{
		{"ss_dur=30\n", SteadyState{IOPS: true, Slope: true, Pct: true, Limit: 0.01, Duration: 30 * time.Second, Interval: time.Second}},
		{"ss=iops:10%\nss_dur=30s\nss_ramp=10s\n", SteadyState{IOPS: true, Pct: true, Limit: 10, Duration: 30 * time.Second, Ramp: 10 * time.Second, Interval: time.Second}},
		{"steadystate=bw_slope:1%\nsteadystate_duration=1500ms\n", SteadyState{Slope: true, Pct: true, Limit: 1, Duration: 1500 * time.Millisecond, Interval: time.Second}},
		{"ss=bw:2m\nss_dur=2\n", SteadyState{Limit: 2 << 20, Duration: 2 * time.Second, Interval: time.Second}},
		{"kb_base=1000\nss=bw:2m\nss_dur=2\n", SteadyState{Limit: 2e6, Duration: 2 * time.Second, Interval: time.Second}},
		{"ss=bw_slope:1e12\nss_dur=2\n", SteadyState{Slope: true, Limit: 1, Duration: 2 * time.Second, Interval: time.Second}}, // fio's str_to_decimal: 1
		{"ss=bw:1.5m\nss_dur=2\n", SteadyState{Limit: 1, Duration: 2 * time.Second, Interval: time.Second}},
		{"ss=iops:2.5\nss_dur=2\n", SteadyState{IOPS: true, Limit: 2.5, Duration: 2 * time.Second, Interval: time.Second}},
		// fio 3.42's latency criteria: a time limit (microseconds when
		// bare) kept in nanoseconds, or a percentage.
		{"ss=lat:10ms\nss_dur=2\n", SteadyState{Lat: true, Limit: 10e6, Duration: 2 * time.Second, Interval: time.Second}},
		{"ss=lat:250\nss_dur=2\n", SteadyState{Lat: true, Limit: 250e3, Duration: 2 * time.Second, Interval: time.Second}},
		{"ss=lat_slope:5%\nss_dur=4\nss_interval=2\n", SteadyState{Lat: true, Slope: true, Pct: true, Limit: 5, Duration: 4 * time.Second,
			Interval: 2 * time.Second, IntervalSet: true}},
	}
	for _, c := range cases {
		if got := parseOne(t, c.body).SteadyState; got != c.want {
			t.Errorf("%q: got %+v, want %+v", c.body, got, c.want)
		}
	}
	if s := parseOne(t, "ss_dur=1500ms\n").SteadyState; s.Seconds() != 1 || !s.On() || s.Name() != "iops_slope" {
		t.Errorf("ss_dur=1500ms: %d s, on %v, %s; want 1 s, on, iops_slope", s.Seconds(), s.On(), s.Name())
	}
	if s := parseOne(t, "ss_dur=500ms\n").SteadyState; s.On() {
		t.Error("ss_dur=500ms is on; fio keeps whole seconds, so it is off")
	}
}

// TestSteadyStateNewer checks which jobs get fio 3.42's steady state (a
// check interval given, or a lat criterion), its window and the set-ups
// fio 3.42 refuses before any job runs; fio 3.33's keeps ss_dur=1.
func TestSteadyStateNewer(t *testing.T) {
	cases := []struct {
		body    string
		newer   bool
		samples int
		refusal string
	}{
		{"ss_dur=1\n", false, 1, ""},
		{"ss_dur=1\nss_interval=1\n", true, 1, "ss_duration 1000000us must be multiple of ss_check_interval 1000000us"},
		{"ss_dur=1\nss=lat:5%\n", true, 1, "must be multiple"},
		{"ss_dur=6\nss_interval=2\n", true, 3, ""},
		{"ss_dur=6\nss_interval=1500ms\n", true, 6, ""},
		{"ss_dur=5\nss_interval=2\n", true, 2, "ss_duration 5000000us must be multiple of ss_check_interval 2000000us"},
		{"ss_dur=2\nss_interval=500ms\n", true, 2, "ss_check_interval must be at least 1s"},
		{"ss_interval=500ms\n", true, 0, ""},
	}
	for _, c := range cases {
		s := parseOne(t, c.body).SteadyState
		if got := s.Check(); s.Newer() != c.newer || s.Samples() != c.samples || (c.refusal == "") != (got == "") || !strings.Contains(got, c.refusal) {
			t.Errorf("%q: newer %v, %d samples, refusal %q; want %v, %d, %q", c.body, s.Newer(), s.Samples(), got, c.newer, c.samples, c.refusal)
		}
	}
}
