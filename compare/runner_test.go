package compare

import (
	"testing"

	"github.com/gofio/gofio/internal/canary"
	"github.com/gofio/gofio/report"
)

// canaryInfo is a run whose canary items read base·(1+k/100)·slow for
// k = 0..4 in each of its two readings.
func canaryInfo(slow float64) *report.RunInfo {
	rd := func() *canary.Reading {
		f := map[string][]float64{}
		for _, it := range []struct {
			name string
			base float64
		}{{canary.ItemCPU, 3}, {canary.ItemMem, 200}, {canary.ItemNull, 400}} {
			for k := 0; k < canary.Reps; k++ {
				f[it.name] = append(f[it.name], it.base*slow*(1+float64(k)/100))
			}
		}
		return &canary.Reading{Figures: f}
	}
	return &report.RunInfo{Canary: &canary.Record{Before: rd(), After: rd()}}
}

func TestCheckRunner(t *testing.T) {
	for _, c := range []struct {
		slow   float64
		moved  string
		failed bool // the outcome it explains
	}{
		{1, "", false},
		{1.05, "", false}, // within the tolerance
		{1.5, report.CanarySlower, true},
		{0.7, report.CanaryFaster, false},
	} {
		rc := CheckRunner(canaryInfo(1), canaryInfo(c.slow), CanaryTolerancePct)
		if rc.Unchecked != "" || len(rc.Items) != 3 {
			t.Fatalf("slow %g: %+v", c.slow, rc)
		}
		for _, it := range rc.Items {
			if it.Moved != c.moved {
				t.Errorf("slow %g: item %s moved %q (%+.1f%% [%+.1f%%, %+.1f%%] p=%.4f), want %q", c.slow, it.Item, it.Moved, it.DeltaPct, it.LoPct, it.HiPct, it.P, c.moved)
			}
		}
		if c.moved == "" {
			if rc.Explains(true) || rc.Explains(false) || rc.Words() != "" {
				t.Errorf("slow %g: an unmoved runner explains an outcome: %q", c.slow, rc.Words())
			}
			continue
		}
		if !rc.Explains(c.failed) || rc.Explains(!c.failed) {
			t.Errorf("slow %g: explains failed=%v: %v, failed=%v: %v", c.slow, c.failed, rc.Explains(c.failed), !c.failed, rc.Explains(!c.failed))
		}
	}
	for _, c := range []struct {
		old, cur *report.RunInfo
		want     string
	}{
		{&report.RunInfo{}, canaryInfo(1), "the old run has no runner canary"},
		{canaryInfo(1), &report.RunInfo{}, "the new run has no runner canary"},
		{nil, nil, "neither run has a runner canary"},
	} {
		rc := CheckRunner(c.old, c.cur, CanaryTolerancePct)
		if rc.Unchecked != c.want || rc.Explains(true) || rc.Explains(false) {
			t.Errorf("unchecked %q, want %q", rc.Unchecked, c.want)
		}
	}
}
