package compare

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckDrift(t *testing.T) {
	rows := []DriftRow{{Value: "1", Pct: 8, SDLog: 0.01}, {Value: "64", Pct: 5476, SDLog: 1.2}, {Value: "1024", Pct: 30, SDLog: 0.05}}
	if err := CheckDrift(rows[:1], 5, DriftDetectPct); err != nil {
		t.Errorf("8%% drift under a 5%% gate: %v", err)
	}
	err := CheckDrift(rows, 5, DriftDetectPct)
	var tn *TooNoisyError
	if !errors.As(err, &tn) || tn.Worst.Value != "64" || len(tn.Rows) != 2 || tn.Limit != 20 {
		t.Fatalf("CheckDrift = %v", err)
	}
	for _, want := range []string{"row 64 drifts ±5476.0% between runs", "273.8 times the 20% that still lets a 25% slowdown fail a 5% gate", "64 ±5476.0%, 1024 ±30.0%"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	// A wider gate leaves less room for drift.
	if err := CheckDrift(rows[:1], 18, DriftDetectPct); err == nil {
		t.Error("8% drift under an 18% gate left a gate for 25%")
	}
}
