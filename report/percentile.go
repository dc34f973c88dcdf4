package report

import (
	"math/big"
	"sort"

	"github.com/gofio/gofio/internal/fiostat"
	"github.com/gofio/gofio/jobfile"
)

// MaxPercentiles is how many percentiles fio prints at most
// (FIO_IO_U_LIST_MAX_LEN).
const MaxPercentiles = 20

// percentileList returns the job's percentile list sorted ascending and cut
// to MaxPercentiles, as calc_clat_percentiles sees it (a 0 ends the list).
func percentileList(list []float64) []float64 {
	if list == nil {
		list = jobfile.DefaultPercentiles()
	}
	out := make([]float64, 0, len(list))
	for _, p := range list {
		if p == 0 || len(out) == MaxPercentiles {
			break
		}
		out = append(out, p)
	}
	sort.Float64s(out)
	return out
}

// Percentiles computes the values of the sorted percentile list plist from
// the histogram h holding n samples, exactly as fio's calc_clat_percentiles:
// walking the buckets in order, percentile p is the midpoint of the first
// bucket where the running count reaches p/100*n (compared in extended
// precision). With n == 0 every value is 0. It also returns the smallest and
// largest value found.
func Percentiles(h *Hist, n uint64, plist []float64) (vals []uint64, minv, maxv uint64) {
	vals = make([]uint64, len(plist))
	if len(plist) == 0 {
		return vals, 0, 0
	}
	minv = ^uint64(0)
	need := make([]uint64, len(plist))
	for j, p := range plist {
		need[j] = threshold(p, n)
	}
	var sum uint64
	j := 0
	for i := 0; i < fiostat.HistBuckets; i++ {
		sum += h[i]
		for sum >= need[j] {
			v := fiostat.HistValue(i)
			vals[j] = v
			if v < minv {
				minv = v
			}
			if v > maxv {
				maxv = v
			}
			if j == len(plist)-1 {
				return vals, minv, maxv
			}
			j++
		}
	}
	return vals, minv, maxv
}

// threshold returns the smallest integer count c with c >= p/100*n, where
// the right side is evaluated as fio does, in x87 long double: a 64-bit
// mantissa with round-to-nearest-even after the division and after the
// multiplication.
func threshold(p float64, n uint64) uint64 {
	const prec = 64
	x := new(big.Float).SetPrec(prec).SetFloat64(p)
	x.Quo(x, new(big.Float).SetPrec(prec).SetInt64(100))
	x.Mul(x, new(big.Float).SetPrec(prec).SetUint64(n))
	c, _ := x.Uint64()
	if x.Cmp(new(big.Float).SetUint64(c)) > 0 {
		c++
	}
	return c
}
