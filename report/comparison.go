package report

import "math"

// This file is the data model of --compare and --sweep. The compare package
// fills a Comparison from the Results of its runs; the writers in
// compare_table.go, compare_csv.go and svg.go read it.

// The two task-work policies a comparison puts side by side, spelled as
// JobResult.Policy spells them.
const (
	PolicyPriority = "priority" // tw_priority=1, the patch ("new")
	PolicyFIFO     = "fifo"     // tw_priority=0, the baseline ("old")
)

// Comparison is the result of a sweep, with or without --compare: one row
// per sweep point, each with the priority policy next to the FIFO baseline.
type Comparison struct {
	// Title fields, taken from the first job run. A field whose option is
	// swept reads "swept".
	RW      string // rw=, e.g. "randread"
	BS      string // bs=, e.g. "4k"
	Engine  string // ioengine=
	SQPoll  string // sqthread_poll=, "0" or "1"
	Version string // gofio version, "gofio-x.y"
	Kernel  string // kernel release, as uname -r

	// Key is the swept option, e.g. "iodepth"; with several --sweep flags
	// the keys joined by ",". Keys holds them one by one.
	Key  string
	Keys []string

	// Metric is the latency the averages are taken from: "lat" (fio's
	// total latency, submission to completion) or "clat" where lat was not
	// recorded; "mixed" if the runs disagreed.
	Metric string
	// Repeat is the number of repeats asked for per point and policy.
	Repeat int
	// Compared is true when both policies were run (--compare).
	Compared bool
	// Rows are the sweep points in plan order.
	Rows []ComparisonRow
}

// ComparisonRow is one sweep point: both policies' figures and the
// difference between them.
type ComparisonRow struct {
	// Value is the sweep point as printed, e.g. "64", or "64,4k" when
	// several keys are swept; Values holds one value per key.
	Value  string
	Values []string
	// X is the numeric value of the first key (sizes in bytes) for the
	// chart's x axis; 0 when the value is not a number.
	X float64

	Priority ComparisonSide // tw_priority=1
	Baseline ComparisonSide // tw_priority=0

	// DeltaPct is (priority - baseline) / baseline * 100 of the average
	// latency: negative when priority completed faster. It is meaningful
	// only when HasDelta, that is when both sides ran.
	DeltaPct float64
	HasDelta bool
	// Noise is true when DeltaPct is within the spread across repeats (see
	// compare.Classify for the rule). A row within noise has no winner.
	Noise bool
}

// ComparisonSide is what one policy did at one sweep point, over its
// repeats.
type ComparisonSide struct {
	Policy  string // PolicyPriority or PolicyFIFO
	Repeats []RepeatStats

	// AvgLatUs is the mean of the per-repeat average latencies in µs;
	// MinAvgUs and MaxAvgUs are the smallest and largest of them.
	AvgLatUs float64
	MinAvgUs float64
	MaxAvgUs float64
	// P50Us and P99Us are percentiles of the latency histograms of all
	// repeats merged, in µs (bucket midpoints, as fio reports them).
	P50Us float64
	P99Us float64
	// IOPS is the mean of the per-repeat IOPS.
	IOPS float64
}

// RepeatStats are one run's figures: all jobs and directions of that run
// merged.
type RepeatStats struct {
	Repeat   int     // 0-based repeat index
	AvgLatUs float64 // mean latency, µs
	P50Us    float64 // median, µs
	P99Us    float64 // 99th percentile, µs
	IOPS     float64 // I/Os per second, all jobs and directions summed
	IOs      uint64  // I/Os completed
}

// Ran reports whether the side has at least one repeat.
func (s *ComparisonSide) Ran() bool { return len(s.Repeats) > 0 }

// SpreadPct returns the range of the per-repeat average latencies as a
// percentage of their mean, (max - min) / mean * 100; 0 with fewer than two
// repeats.
func (s *ComparisonSide) SpreadPct() float64 {
	if len(s.Repeats) < 2 || s.AvgLatUs <= 0 {
		return 0
	}
	return (s.MaxAvgUs - s.MinAvgUs) / s.AvgLatUs * 100
}

// Summarize recomputes AvgLatUs, MinAvgUs, MaxAvgUs and IOPS from Repeats.
// P50Us and P99Us are left alone: they come from the merged histogram.
func (s *ComparisonSide) Summarize() {
	s.AvgLatUs, s.MinAvgUs, s.MaxAvgUs, s.IOPS = 0, 0, 0, 0
	if len(s.Repeats) == 0 {
		return
	}
	s.MinAvgUs, s.MaxAvgUs = math.Inf(1), math.Inf(-1)
	for _, r := range s.Repeats {
		s.AvgLatUs += r.AvgLatUs
		s.IOPS += r.IOPS
		s.MinAvgUs = math.Min(s.MinAvgUs, r.AvgLatUs)
		s.MaxAvgUs = math.Max(s.MaxAvgUs, r.AvgLatUs)
	}
	n := float64(len(s.Repeats))
	s.AvgLatUs /= n
	s.IOPS /= n
}

// Side returns the row's side for policy, nil for an unknown policy.
func (r *ComparisonRow) Side(policy string) *ComparisonSide {
	switch policy {
	case PolicyPriority:
		return &r.Priority
	case PolicyFIFO:
		return &r.Baseline
	}
	return nil
}

// KeyLabel returns the name of the first column of the comparison: "depth"
// for an iodepth sweep (as in the patch's table), else the swept key.
func (c *Comparison) KeyLabel() string {
	if c.Key == "iodepth" || c.Key == "" {
		return "depth"
	}
	return c.Key
}

// NoiseBandPct is the band, in percent of the baseline, inside which a
// difference counts as noise when a side has a single repeat and so no
// spread of its own.
const NoiseBandPct = 5.0

// NoiseRule is the definition of "within noise" in words, printed by the
// writers so the table, CSV, JSON and chart say the same as Classify.
const NoiseRule = "within noise: the per-repeat avg latency ranges [min,max] of both policies overlap " +
	"(2 or more repeats each), or |delta| <= 5% (a single repeat)"

// Classify sets DeltaPct, HasDelta and Noise from the two sides, which must
// be summarized. The rule:
//   - with two or more repeats on both sides, the difference is within noise
//     when the ranges [MinAvgUs, MaxAvgUs] of the two sides overlap (ends
//     included): the repeats of one policy do not all lie on one side of
//     the other's;
//   - when either side has a single repeat there is no spread to measure,
//     so the difference is within noise when |DeltaPct| <= NoiseBandPct.
//
// A row where a side did not run has no delta and is not within noise.
func (r *ComparisonRow) Classify() {
	r.DeltaPct, r.HasDelta, r.Noise = 0, false, false
	p, b := &r.Priority, &r.Baseline
	if !p.Ran() || !b.Ran() || b.AvgLatUs <= 0 {
		return
	}
	r.HasDelta = true
	r.DeltaPct = (p.AvgLatUs - b.AvgLatUs) / b.AvgLatUs * 100
	if len(p.Repeats) >= 2 && len(b.Repeats) >= 2 {
		r.Noise = p.MinAvgUs <= b.MaxAvgUs && b.MinAvgUs <= p.MaxAvgUs
		return
	}
	r.Noise = math.Abs(r.DeltaPct) <= NoiseBandPct
}
