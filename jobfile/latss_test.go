package jobfile

import (
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
