package compare

import (
	"errors"
	"strings"
	"testing"

	"github.com/gofio/gofio/report"
)

// f lists per-repeat avg latencies.
func f(v ...float64) []float64 { return v }

// gateRow builds a classified row from per-repeat avg latencies.
func gateRow(value string, prio, fifo []float64) report.ComparisonRow {
	r := report.ComparisonRow{Value: value}
	for _, s := range []struct {
		side *report.ComparisonSide
		avgs []float64
	}{{&r.Priority, prio}, {&r.Baseline, fifo}} {
		for i, a := range s.avgs {
			s.side.Repeats = append(s.side.Repeats, report.RepeatStats{Repeat: i, AvgLatUs: a})
		}
		s.side.Summarize()
	}
	r.Classify()
	return r
}

func TestGate(t *testing.T) {
	rows := []report.ComparisonRow{
		gateRow("1", f(10.2), f(10)),            // +2%, one repeat: within the 5% band
		gateRow("8", f(11.2), f(10)),            // +12%, one repeat: beyond noise
		gateRow("16", f(21, 22), f(20, 21)),     // ranges overlap: within noise whatever the delta
		gateRow("32", f(13, 13.5), f(10, 10.5)), // disjoint, +29.27%
		gateRow("64", f(9, 9.2), f(10, 10.2)),   // disjoint but priority faster
		{Value: "128", Priority: report.ComparisonSide{Repeats: []report.RepeatStats{{AvgLatUs: 99}}}}, // no baseline
	}
	c := &report.Comparison{Key: "iodepth", Rows: rows}
	tests := []struct {
		pct  float64
		want []string
	}{
		{0, []string{"8", "32"}},  // any slowdown beyond noise
		{10, []string{"8", "32"}}, // both are above 10%
		{12, []string{"32"}},      // 12% is not more than 12%
		{30, nil},                 // nothing that slow
		{-5, []string{"8", "32"}}, // below zero: still only rows beyond noise, and -9% at 64 is not above -5%
	}
	for _, tt := range tests {
		var got []string
		for _, r := range Gate(c, tt.pct) {
			got = append(got, r.Value)
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("Gate(%v) = %v, want %v", tt.pct, got, tt.want)
		}
	}
	err := CheckSlower(c, 10)
	var se *SlowerError
	if !errors.As(err, &se) || len(se.Rows) != 2 {
		t.Fatalf("CheckSlower = %v, want a SlowerError with 2 rows", err)
	}
	for _, want := range []string{"more than 10%", "iodepth=8 (+12.00%)", "iodepth=32 (+29.27%)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if err := CheckSlower(c, 50); err != nil {
		t.Errorf("CheckSlower(50) = %v, want nil", err)
	}
}
