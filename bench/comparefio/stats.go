package main

import (
	"math"
	"sort"
)

// Median returns the median of xs (the mean of the middle two for an even
// count), or NaN for an empty slice. xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// Row is one line of the table: one metric of one case over all pairs.
type Row struct {
	Case     string
	Metric   Metric
	Gofio    []float64 // per pair, in run order
	Fio      []float64 // per pair, in run order
	Failures []string  // runs that gave no figure, with the reason
	// GofioInFlight and FioInFlight are each side's mean number of I/Os
	// in flight per pair by Little's law (IOPS x mean latency), for the
	// latency rows; see Differs.
	GofioInFlight, FioInFlight []float64
	// ReapAll says gofio harvested every CQE (tw_reap=all) in a pair of
	// a latency row; see Differs.
	ReapAll bool
}

// differsInFlight is how far apart the two sides' mean in-flight counts may
// be before their mean latencies stop measuring the same thing.
const differsInFlight = 1.5

// Differs reports whether the row's two sides measured different things: a
// latency row whose sides held different numbers of I/Os in flight on the
// median (Little's law: mean in flight = IOPS x mean latency) by more than
// differsInFlight times, or one whose gofio side ran tw_reap=all (every
// CQE harvested between task-work items, not fio's reaping). Where one
// side keeps iodepth I/Os queued and the
// other reaps each inline completion at once (tmpfs and libaio at depth 16
// and up), the same iodepth gives latencies of different queues.
func (r Row) Differs() bool {
	g, f := Median(r.GofioInFlight), Median(r.FioInFlight)
	if r.Metric.Name != metricLat.Name {
		return false
	}
	if r.ReapAll {
		return true // gofio's task-work model against fio's reaping
	}
	if !(g > 0) || !(f > 0) {
		return false
	}
	return max(g/f, f/g) > differsInFlight
}

// GofioMedian is the median of gofio's figures.
func (r Row) GofioMedian() float64 { return Median(r.Gofio) }

// FioMedian is the median of fio's figures.
func (r Row) FioMedian() float64 { return Median(r.Fio) }

// Ratio is gofio's median over fio's median.
func (r Row) Ratio() float64 { return r.GofioMedian() / r.FioMedian() }

// PairRatios returns gofio/fio for each complete pair.
func (r Row) PairRatios() []float64 {
	n := min(len(r.Gofio), len(r.Fio))
	out := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, r.Gofio[i]/r.Fio[i])
	}
	return out
}

// RatioRange returns the smallest and largest pair ratio, NaN when there is
// no complete pair.
func (r Row) RatioRange() (lo, hi float64) {
	rs := r.PairRatios()
	if len(rs) == 0 {
		return math.NaN(), math.NaN()
	}
	lo, hi = rs[0], rs[0]
	for _, x := range rs[1:] {
		lo = math.Min(lo, x)
		hi = math.Max(hi, x)
	}
	return lo, hi
}

// Status says whether the median ratio meets the metric's target:
// "ok", "gap" or "n/a" when a side has no figure.
func (r Row) Status() string {
	x := r.Ratio()
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "n/a"
	case r.Differs():
		return "differs"
	case r.Metric.Better == Higher && x >= r.Metric.Target:
		return "ok"
	case r.Metric.Better == Lower && x <= r.Metric.Target:
		return "ok"
	}
	return "gap"
}

// TargetText renders the target as the cases write it, e.g. ">= 1.00".
func (m Metric) TargetText() string {
	if m.Better == Higher {
		return ">= " + fmtRatio(m.Target)
	}
	return "<= " + fmtRatio(m.Target)
}
