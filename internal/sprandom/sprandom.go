// Package sprandom is fio's SPRandom (fio 3.41, sprandom.c): random writes
// that precondition a flash device in one pass over its physical capacity
// to the spread of invalid blocks a steady-state random write workload
// leaves. The device is cut into equal regions; each region's new writes
// come from the file's LFSR, and a share of them, that region's expected
// invalid fraction, is written again at the start of the next region
// (or, with a cache size, at its end), so that the regions end with the
// validity P. Desnoyers' model predicts for the over-provisioning.
//
// The arithmetic is fio's, double for double, so that a job on the same
// LFSR and seed writes the offsets fio writes. The package is pure: the
// caller passes the LFSR and the seed of fio's sprandom_state.
package sprandom

import (
	"fmt"
	"math"
	"sort"

	"github.com/gofio/gofio/internal/fiorand"
)

// pctPrecision is fio's PCT_PRECISION: invalid fractions in 1/10000.
const pctPrecision = 10000

// Config is a job's sprandom options.
type Config struct {
	OP        float64 // spr_op: the over-provisioning ratio, in (0, 1)
	Regions   uint32  // spr_num_regions
	CacheSize uint64  // spr_cs: the device's cache in bytes (0: none)
}

// PhysicalSize is fio's sprandom_physical_size: the logical size plus its
// over-provisioning, rounded up to alignBS (a power of two). A job writes
// this much (fio sets io_size to it).
func PhysicalSize(op float64, logical, alignBS uint64) uint64 {
	size := logical + uint64(math.Ceil(float64(logical)*op))
	return (size + alignBS - 1) &^ (alignBS - 1)
}

// Gen draws the block numbers of a job's writes: fio's sprandom_info and
// sprandom_get_next_offset. It allocates nothing per call.
type Gen struct {
	invalidPct      []uint32 // per region, in 1/pctPrecision
	buf             pcBuf    // the offsets to write again, in two phases
	cacheSize       uint64
	regions         uint32
	invalidCount    [2]uint64
	region, phase   uint32
	regionWrites    uint64 // fio's region_write_count
	writesRemaining uint64
	rand            fiorand.Frand // fio's sprandom_state
	RegionSize      uint64        // bytes per region
}

// New returns the generator of a file of logical bytes written in blocks
// of alignBS, as fio's sprandom_init and sprandom_setup set it up, its
// invalid-share draws seeded with seed (fio's FIO_RAND_SPRANDOM_OFF).
func New(cfg Config, logical, alignBS, seed uint64) (*Gen, error) {
	if alignBS == 0 || alignBS&(alignBS-1) != 0 {
		return nil, fmt.Errorf("fio: sprandom: bs [%d] should be power of 2", alignBS)
	}
	if cfg.Regions == 0 {
		return nil, fmt.Errorf("fio: sprandom: spr_num_regions=0: it needs at least one region")
	}
	physical := PhysicalSize(cfg.OP, logical, alignBS)
	validity := validityDist(cfg.Regions, cfg.OP)
	g := &Gen{invalidPct: make([]uint32, cfg.Regions), regions: cfg.Regions, cacheSize: cfg.CacheSize,
		rand: fiorand.NewFrand(seed, false)}
	for i, v := range validity {
		g.invalidPct[i] = uint32(int32(math.Round((1.0 - v) * pctPrecision)))
	}
	g.RegionSize = physical / uint64(cfg.Regions)
	g.regionWrites = g.RegionSize / alignBS
	if cfg.CacheSize > 0 && cfg.CacheSize > g.RegionSize {
		return nil, fmt.Errorf("fio: sprandom: spr_cs [%d] must be smaller than region_sz [%d] which means [%d] regions allowed",
			cfg.CacheSize, g.RegionSize, physical/cfg.CacheSize)
	}
	if g.regionWrites == 0 {
		// fio's two-phase buffer would then have no room and divide by
		// zero (SIGFPE).
		return nil, fmt.Errorf("fio: sprandom: spr_num_regions=%d leaves regions of %d bytes, smaller than a %d-byte block", cfg.Regions, g.RegionSize, alignBS)
	}
	capacity := invalidCapacity(g.regionWrites, validity[0])
	if cfg.CacheSize > 0 {
		// The invalidations wait a region longer: room for two.
		capacity *= 2
	}
	g.buf = newPCBuf(capacity)
	g.writesRemaining = g.regionWrites
	return g, nil
}

// invalidCapacity is fio's estimate_inv_capacity: the invalid offsets a
// region of n writes expects at validity v, plus six standard deviations.
func invalidCapacity(n uint64, v float64) uint64 {
	sigma := math.Sqrt(float64(n) * v * (1.0 - v))
	return uint64(math.Ceil(float64(n)*(1.0-v) + 6.0*sigma))
}

// Next returns the next write's block number, drawing new blocks from
// lfsr (the file's, which reads share), or false when the regions are
// written or the LFSR is spent: fio then ends the job.
func (g *Gen) Next(lfsr *fiorand.LFSR) (uint64, bool) {
	phase := g.phase
	if g.cacheSize == 0 {
		// Write the last region's saved offsets again first.
		if off, ok := g.buf.pop(); ok {
			g.addWithProbability(off, phase^1)
			return off, true
		}
	}
	if g.writesRemaining == 0 {
		if g.cacheSize > 0 {
			// The last region's offsets again, at the end of this one,
			// so that no write meets its rewrite in the device's cache.
			if off, ok := g.buf.pop(); ok {
				g.addWithProbability(off, phase^1)
				return off, true
			}
		}
		if g.region >= g.regions {
			return 0, false
		}
		g.invalidCount[phase] = 0
		g.region++
		phase ^= 1
		g.writesRemaining = g.regionWrites - g.invalidCount[phase]
		g.phase = phase
		g.buf.commit()
	}
	off, ok := lfsr.Next()
	if !ok {
		if g.cacheSize > 0 {
			if off, ok := g.buf.pop(); ok {
				return off, true
			}
		}
		return 0, false
	}
	if g.writesRemaining > 0 {
		g.writesRemaining--
	}
	g.addWithProbability(off, phase^1)
	return off, true
}

// addWithProbability is fio's sprandom_add_with_probability: the offset is
// saved to be written again with the current region's invalid share.
func (g *Gen) addWithProbability(off uint64, phase uint32) {
	v := g.rand.Between(0, pctPrecision)
	// fio reads invalid_pct[num_regions] in the region after the last,
	// past its array; gofio reads a share of 0 there.
	var pct uint32
	if g.region < g.regions {
		pct = g.invalidPct[g.region]
	}
	if v <= uint64(pct) && g.buf.spaceAvailable() {
		// fio asserts the buffer has room: six standard deviations.
		g.buf.pushStaged(off)
		g.invalidCount[phase]++
	}
}

// validityDist is fio's compute_validity_dist: the expected validity of
// each of n equal regions, from the steady-state curve of validity
// against the space it occupies (validity times space is constant),
// resampled at equal spaces and reversed.
func validityDist(n uint32, op float64) []float64 {
	waf := 0.5/op + 0.7
	gcValidity := 1.0 - 1.0/waf
	valid := linspace(1.0, gcValidity, n)
	xs := make([]float64, n)
	acc := 0.0
	for i := range xs {
		acc += 1.0 / valid[i]
		xs[i] = acc
	}
	// fio sorts the points by x, which the running sum already orders.
	sort.SliceStable(xs, func(a, b int) bool { return xs[a] < xs[b] })
	newX := linspace(xs[0], xs[n-1], n)
	out := make([]float64, n)
	for i := range out {
		out[i] = interp(newX[i], xs, valid)
	}
	for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
		out[l], out[r] = out[r], out[l]
	}
	return out
}

// linspace is fio's: num values from start to end, both included.
func linspace(start, end float64, num uint32) []float64 {
	arr := make([]float64, num)
	if num == 1 {
		arr[0] = start
		return arr
	}
	step := (end - start) / (float64(num) - 1.0)
	for i := range arr {
		arr[i] = start + float64(i)*step
	}
	return arr
}

// interp is fio's linear_interp: y at x on the polyline (xs, ys), the end
// values beyond its ends.
func interp(x float64, xs, ys []float64) float64 {
	n := len(xs)
	if n == 1 {
		return ys[0]
	}
	if x <= xs[0] {
		return ys[0]
	}
	if x >= xs[n-1] {
		return ys[n-1]
	}
	for i := 0; i < n-1; i++ {
		if x >= xs[i] && x <= xs[i+1] {
			x1, y1, x2, y2 := xs[i], ys[i], xs[i+1], ys[i+1]
			if math.Abs(x2-x1) < 1e-9 {
				return y1
			}
			return y1 + (y2-y1)*((x-x1)/(x2-x1))
		}
	}
	return 0
}
