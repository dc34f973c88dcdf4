package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/aclements/go-moremath/stats"

	"github.com/gofio/gofio/report"
)

// TestDriftPct: five runs of one job whose every figure is scaled by a
// run's own factor give the prediction bound of the two-level model, and
// the allowance of the comparison is its widest row's.
func TestDriftPct(t *testing.T) {
	scales := []float64{1, 1.05, 0.97, 1.02, 0.99}
	var runs []*Saved
	for _, s := range scales {
		runs = append(runs, savedRun("r.json", "6.18", "1s", 1, "1", "8"))
		for i := range runs[len(runs)-1].Comparison.Rows {
			r := &runs[len(runs)-1].Comparison.Rows[i]
			for k := range r.New.Repeats {
				r.New.Repeats[k].AvgLatUs *= s
				r.Old.Repeats[k].AvgLatUs *= s * s // the old side drifts twice as much
			}
		}
	}
	rows, pct, err := DriftPct(runs, report.GateAvg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || rows[0].Value != "1,priority" || rows[1].Value != "1,fifo" {
		t.Fatalf("rows %+v", rows)
	}
	logs := make([]float64, len(scales))
	for i, s := range scales {
		logs[i] = math.Log(s)
	}
	sd := stats.StdDev(logs)
	tq := stats.InvCDF(stats.TDist{V: 4})(0.99)
	want := math.Expm1(tq*math.Sqrt2*sd) * 100
	if math.Abs(rows[0].Pct-want) > 1e-6 || math.Abs(rows[0].SDLog-sd) > 1e-9 {
		t.Errorf("priority row: drift %.4f%% sd %.5f, want %.4f%% sd %.5f", rows[0].Pct, rows[0].SDLog, want, sd)
	}
	wantOld := math.Expm1(tq*math.Sqrt2*2*sd) * 100
	if math.Abs(pct-wantOld) > 1e-6 {
		t.Errorf("allowance %.4f%%, want the fifo row's %.4f%%", pct, wantOld)
	}
	if _, _, err := DriftPct(runs[:4], report.GateAvg); err == nil || !strings.Contains(err.Error(), "5 or more runs") {
		t.Errorf("four runs: %v", err)
	}
	other := savedRun("o.json", "6.18", "2s", 1, "1", "8")
	if _, _, err := DriftPct(append(runs[:4:4], other), report.GateAvg); err == nil || !strings.Contains(err.Error(), "different jobs") {
		t.Errorf("a run of another job: %v", err)
	}
}

// TestApplyDrift: a drift allowance turns a change inside it into "~" and
// moves the gate's bound out by it.
func TestApplyDrift(t *testing.T) {
	judged := func(drift float64) *report.Comparison {
		d, _, err := Diff(savedRun("old.json", "6.18", "1s", 1, "1"), savedRun("new.json", "6.18", "1s", 1.1, "1"), Allow{})
		if err != nil {
			t.Fatal(err)
		}
		Judge(d, report.GateAvg)
		ApplyDrift(d, drift)
		return d
	}
	d := judged(0)
	if s := d.Rows[0].Stats; s.Verdict != report.VerdictSlower || !s.SlowerBeyond(5) {
		t.Fatalf("10%% slower without drift: %+v", s)
	}
	// The interval is [+6.8%, +13.3%].
	d = judged(2)
	if s := d.Rows[0].Stats; s.Verdict != report.VerdictSlower || s.SlowerBeyond(5) || !s.SlowerBeyond(4) || d.DriftPct != 2 {
		t.Errorf("10%% slower with 2%% drift: %+v; want slower, failing 4%% (bound 6%%) and not 5%% (bound 7%%)", s)
	}
	d = judged(15)
	if s := d.Rows[0].Stats; s.Verdict != report.VerdictNoEvidence || s.SlowerBeyond(0) {
		t.Errorf("10%% slower with 15%% drift: %+v; want ~", s)
	}
}
