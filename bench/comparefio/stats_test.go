package main

import (
	"math"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},             // one value
		{[]float64{3, 1, 2}, 2},       // odd count, unsorted
		{[]float64{4, 1, 3, 2}, 2.5},  // even count: mean of the middle two
		{[]float64{5, 5, 1, 9, 5}, 5}, // ties
	} {
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil) is not NaN")
	}
	in := []float64{3, 1, 2}
	Median(in)
	if in[0] != 3 {
		t.Error("Median sorted its input")
	}
}

func TestRow(t *testing.T) {
	for _, c := range []struct {
		name          string
		row           Row
		ratio, lo, hi float64
		status        string
	}{
		// IOPS better than fio in every pair.
		{"iops ok", Row{Metric: metricIOPS, Gofio: []float64{110, 120, 100}, Fio: []float64{100, 100, 100}}, 1.1, 1.0, 1.2, "ok"},
		// Latency higher than fio's: a gap.
		{"lat gap", Row{Metric: metricLat, Gofio: []float64{12, 11}, Fio: []float64{10, 10}}, 1.15, 1.1, 1.2, "gap"},
		// Device-bound target is 0.98.
		{"device within 2%", Row{Metric: metricIOPSDevice, Gofio: []float64{99}, Fio: []float64{100}}, 0.99, 0.99, 0.99, "ok"},
		// The ratio is of the medians, not the median of the ratios.
		{"ratio of medians", Row{Metric: metricIOPS, Gofio: []float64{1, 4, 9}, Fio: []float64{2, 2, 2}}, 2, 0.5, 4.5, "ok"},
		// Lower latency, but gofio held 2 I/Os in flight to fio's 16
		// (libaio on tmpfs at iodepth 16): different things measured.
		{"lat differs", Row{Metric: metricLat, Gofio: []float64{2.5, 2.5}, Fio: []float64{50, 50},
			GofioInFlight: []float64{1, 1.02}, FioInFlight: []float64{16, 16}}, 0.05, 0.05, 0.05, "differs"},
		// In flight within 1.5x of each other: an ordinary latency row.
		{"lat same queue", Row{Metric: metricLat, Gofio: []float64{30}, Fio: []float64{40},
			GofioInFlight: []float64{12}, FioInFlight: []float64{16}}, 0.75, 0.75, 0.75, "ok"},
		// Only latency rows are judged by their queues.
		{"iops never differs", Row{Metric: metricIOPS, Gofio: []float64{2}, Fio: []float64{1},
			GofioInFlight: []float64{1}, FioInFlight: []float64{16}}, 2, 2, 2, "ok"},
	} {
		lo, hi := c.row.RatioRange()
		if !near(c.row.Ratio(), c.ratio) || !near(lo, c.lo) || !near(hi, c.hi) || c.row.Status() != c.status {
			t.Errorf("%s: ratio %v [%v, %v] %s, want %v [%v, %v] %s", c.name, c.row.Ratio(), lo, hi, c.row.Status(), c.ratio, c.lo, c.hi, c.status)
		}
	}
	empty := Row{Metric: metricIOPS}
	if lo, _ := empty.RatioRange(); !math.IsNaN(lo) || empty.Status() != "n/a" {
		t.Errorf("empty row: lo %v status %s", lo, empty.Status())
	}
}

// TestDiffersMarksUnlikeLatencies checks which latency rows are marked
// differs: sides with different numbers of I/Os in flight, or a gofio side
// that harvested every CQE (tw_reap=all); never an IOPS row.
func TestDiffersMarksUnlikeLatencies(t *testing.T) {
	lat := Row{Metric: metricLat, Gofio: []float64{96}, Fio: []float64{98},
		GofioInFlight: []float64{15.8}, FioInFlight: []float64{15.9}}
	if lat.Differs() || lat.Status() != "ok" {
		t.Errorf("same in flight: differs %v, status %q, want ok", lat.Differs(), lat.Status())
	}
	half := lat
	half.GofioInFlight = []float64{7.9}
	if !half.Differs() || half.Status() != "differs" {
		t.Errorf("half the I/Os in flight: status %q, want differs", half.Status())
	}
	all := lat
	all.ReapAll = true
	if !all.Differs() {
		t.Error("a gofio side under tw_reap=all is not marked differs")
	}
	iops := Row{Metric: metricIOPS, Gofio: []float64{1}, Fio: []float64{1}, ReapAll: true}
	if iops.Differs() {
		t.Error("an IOPS row is marked differs")
	}
}

// TestParseSampleReap reads tw_reap=all from the gofio object.
func TestParseSampleReap(t *testing.T) {
	for _, c := range []struct {
		reap string
		want bool
	}{{"all", true}, {"fio", false}} {
		doc := `{"fio version":"gofio-x","jobs":[{"jobname":"j","read":{"iops":1,"total_ios":1},"gofio":{"reap":"` + c.reap + `"}}]}`
		s, err := ParseSample([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if s.ReapAll != c.want {
			t.Errorf("reap %q: ReapAll %v, want %v", c.reap, s.ReapAll, c.want)
		}
	}
}
