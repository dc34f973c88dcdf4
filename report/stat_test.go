package report

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestStatAddIsFios checks Stat.Add against fio's add_stat_sample written
// plainly (unsigned conversions, every value converted where it is used):
// the same min, max, count and, bit for bit, mean and variance sum, for
// latencies, zeros and values at and above 2^63.
func TestStatAddIsFios(t *testing.T) {
	type plain struct {
		min, max uint64
		mean, s  float64
		n        uint64
	}
	add := func(p *plain, v uint64) {
		if p.n == 0 || v < p.min {
			p.min = v
		}
		if v > p.max {
			p.max = v
		}
		p.n++
		d := float64(v) - p.mean
		p.mean += d / float64(p.n)
		p.s += d * (float64(v) - p.mean)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, gen := range []func() uint64{
		func() uint64 { return r.Uint64N(200000) },
		func() uint64 { return r.Uint64N(4) },
		func() uint64 { return 1<<63 + r.Uint64N(1<<62) },
		func() uint64 { return r.Uint64() },
	} {
		var s Stat
		var p plain
		for i := 0; i < 10000; i++ {
			v := gen()
			s.Add(v)
			add(&p, v)
			if s.Min != p.min || s.Max != p.max || s.N != p.n ||
				math.Float64bits(s.Mean) != math.Float64bits(p.mean) || math.Float64bits(s.S) != math.Float64bits(p.s) {
				t.Fatalf("after %d samples (last %d): Stat %+v, fio's %+v", i+1, v, s, p)
			}
		}
	}
}
