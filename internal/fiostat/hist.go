package fiostat

import "math/bits"

// Histogram constants from fio's stat.h.
const (
	HistBits    = 6
	HistVal     = 1 << HistBits
	HistGroupNr = 29
	HistBuckets = HistGroupNr * HistVal // 1856
)

// Hist is fio's log-linear latency histogram over nanosecond values.
type Hist [HistBuckets]uint64

// HistIndex returns the bucket of v, as fio's plat_val_to_idx.
func HistIndex(v uint64) int {
	if v < 2*HistVal {
		return int(v)
	}
	msb := 63 - bits.LeadingZeros64(v)
	e := msb - HistBits
	idx := (e+1)*HistVal + int((v>>uint(e))&(HistVal-1))
	if idx >= HistBuckets {
		return HistBuckets - 1
	}
	return idx
}

// HistValue returns the value fio reports for bucket idx: the bucket's
// midpoint, as plat_idx_to_val.
func HistValue(idx int) uint64 {
	if idx < 2*HistVal {
		return uint64(idx)
	}
	e := uint(idx>>HistBits) - 1
	base := uint64(1) << (e + HistBits)
	k := uint64(idx % HistVal)
	return base + uint64((float64(k)+0.5)*float64(uint64(1)<<e))
}

// Add counts one sample.
func (h *Hist) Add(v uint64) { h[HistIndex(v)]++ }

// Merge adds o's counts to h.
func (h *Hist) Merge(o *Hist) {
	for i := range h {
		h[i] += o[i]
	}
}
