package compare

import (
	"errors"
	"reflect"
	"testing"

	"github.com/gofio/gofio/report"
)

// TestPercentSweep: A%..B% runs from A to B in steps of A, the last step
// cut to B; bad bounds are refused with the sweep's error.
func TestPercentSweep(t *testing.T) {
	for in, want := range map[string][]string{
		"rate_iops=10%..100%": {"10%", "20%", "30%", "40%", "50%", "60%", "70%", "80%", "90%", "100%"},
		"rate_iops=30%..100%": {"30%", "60%", "90%", "100%"},
		"rate=50%..50%":       {"50%"},
		"rate_iops=50%..150%": {"50%", "100%", "150%"},
	} {
		sw, err := ParseSweep(in)
		if err != nil || !reflect.DeepEqual(sw.Values, want) {
			t.Errorf("%s: %v %v, want %v", in, sw.Values, err, want)
		}
	}
	for _, in := range []string{"rate_iops=0%..100%", "rate_iops=50%..10%", "rate_iops=10..100%", "rate_iops=10%..2000%", "rate_iops=1.5%..3%"} {
		if _, err := ParseSweep(in); !errors.Is(err, ErrBadSweep) {
			t.Errorf("%s: %v, want ErrBadSweep", in, err)
		}
	}
	if sws, err := ParseSweeps([]string{"iodepth=auto"}, nil); err != nil || sws[0].Values[0] != "auto" {
		t.Errorf("iodepth=auto: %v %v", sws, err)
	}
}

// TestMergeRows: the rows of a search's comparisons in one, ordered by
// the swept value, with the time every one took.
func TestMergeRows(t *testing.T) {
	one := func(x float64, metric string, elapsed float64) *report.Comparison {
		return &report.Comparison{Key: "iodepth", Metric: metric, Paired: true, Rows: []report.ComparisonRow{{Value: "v", X: x}},
			Design: &report.DesignInfo{Elapsed: elapsed}}
	}
	a, b, c := one(64, "lat", 1), one(1, "lat", 2), one(16, "clat", 3)
	m := MergeRows([]*report.Comparison{a, b, c})
	if len(m.Rows) != 3 || m.Rows[0].X != 1 || m.Rows[1].X != 16 || m.Rows[2].X != 64 {
		t.Errorf("rows %v, want ordered 1, 16, 64", m.Rows)
	}
	if m.Metric != "mixed" || m.Design.Elapsed != 6 || a.Design.Elapsed != 1 || len(a.Rows) != 1 {
		t.Errorf("metric %s, elapsed %g; the first comparison changed: %v", m.Metric, m.Design.Elapsed, a.Design.Elapsed)
	}
	if MergeRows(nil) != nil {
		t.Error("no comparisons merged into one")
	}
}
