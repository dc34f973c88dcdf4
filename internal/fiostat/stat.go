package fiostat

import "math"

// Stat is a running min/max/mean/variance over nanosecond samples, kept with
// Welford's update as fio's add_stat_sample does.
type Stat struct {
	Min, Max uint64
	Mean     float64
	S        float64 // sum of squared differences from the mean
	N        uint64
}

// Add adds one sample. The arithmetic is fio's, value for value; v is
// converted to float once, and as a signed number when it is below 2^63
// (the same float, in 2 instructions where an unsigned conversion takes
// 5), as is N, a count far below 2^63: Add runs four or five times per
// I/O.
func (s *Stat) Add(v uint64) {
	if s.N == 0 || v < s.Min {
		s.Min = v
	}
	if v > s.Max {
		s.Max = v
	}
	s.N++
	fv := float64(int64(v))
	if int64(v) < 0 {
		fv = float64(v)
	}
	d := fv - s.Mean
	s.Mean += d / float64(int64(s.N))
	s.S += d * (fv - s.Mean)
}

// Merge folds o into s with the parallel-variance formula (fio's __sum_stat).
func (s *Stat) Merge(o Stat) {
	if o.N == 0 {
		return
	}
	if s.N == 0 {
		*s = o
		return
	}
	if o.Min < s.Min {
		s.Min = o.Min
	}
	if o.Max > s.Max {
		s.Max = o.Max
	}
	// Same operations in the same order as fio's __sum_stat, so merged
	// figures match fio's to the last bit.
	d := o.Mean - s.Mean
	mean := (o.Mean*float64(o.N) + s.Mean*float64(s.N)) / float64(s.N+o.N)
	s.S = o.S + s.S + d*d*float64(s.N*o.N)/float64(s.N+o.N)
	s.Mean = mean
	s.N += o.N
}

// Stddev returns the sample standard deviation, 0 when N <= 1.
func (s *Stat) Stddev() float64 {
	if s.N <= 1 {
		return 0
	}
	return math.Sqrt(s.S / float64(s.N-1))
}
