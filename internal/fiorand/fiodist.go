package fiorand

import (
	"math"
	"math/bits"
)

// Dist draws block numbers from random_distribution=zipf, pareto or
// normal exactly as fio 3.33's lib/zipf.c and lib/gauss.c: each file has
// its own 32-bit Tausworthe generator, seeded from a hash of the file's
// name times the thread number (or the job's offset seed without
// randrepeat), and the popular values are scattered over the file by
// fio's multiplicative hash.
type Dist struct {
	kind    byte // 'z', 'p', 'n'
	nranges uint64
	r       Frand
	randOff uint64
	// zipf (Gray et al., "Quickly generating billion-record synthetic
	// databases")
	theta, zetan, zeta2 float64
	// pareto
	paretoPow float64
	// normal
	stddev uint64
	// noHash leaves the values where they fall, as fio's
	// zipf_disable_hash and gauss_disable_hash (file_service_type).
	noHash bool
}

// zipfMaxGen caps the zeta(n) sum as fio's ZIPF_MAX_GEN does.
const zipfMaxGen = 10000000

// goldenRatio64 is fio's GOLDEN_RATIO_64, the multiplier of __hash_u64.
const goldenRatio64 = 0x61C8864680B583EB

// HashU64 is fio's __hash_u64: v times the 64-bit golden ratio.
func HashU64(v uint64) uint64 { return v * goldenRatio64 }

// NewDist returns the distribution kind over nranges blocks with fio's
// 32-bit seed.
func NewDist(kind string, param float64, nranges uint64, seed uint32) (Dist, bool) {
	d := Dist{nranges: nranges, r: NewFrand(uint64(seed), false)}
	switch kind {
	case "zipf", "pareto":
		d.randOff = d.r.Next()
		if kind == "zipf" {
			d.kind = 'z'
			if param == 1 {
				param = 0.999999
			}
			d.theta = param
			d.zeta2 = math.Pow(1.0, param) + math.Pow(0.5, param)
			n := min(nranges, zipfMaxGen)
			for i := uint64(0); i < n; i++ {
				d.zetan += math.Pow(1.0/float64(i+1), param)
			}
		} else {
			d.kind = 'p'
			d.paretoPow = math.Log(param) / math.Log(1.0-param)
		}
	case "normal":
		d.kind = 'n'
		if param != 0 {
			d.stddev = uint64(math.Ceil(float64(nranges) * param / 100))
			if d.stddev > nranges/2 {
				d.stddev = nranges / 2
			}
		}
	default:
		return d, false
	}
	return d, true
}

// Next returns the next block number, in [0, nranges).
func (d *Dist) Next() uint64 {
	n := d.nranges
	var v uint64
	switch d.kind {
	case 'z':
		alpha := 1.0 / (1.0 - d.theta)
		eta := (1.0 - math.Pow(2.0/float64(n), 1.0-d.theta)) / (1.0 - d.zeta2/d.zetan)
		uni := float64(d.r.Next()) / float64(1<<32-1)
		z := uni * d.zetan
		switch {
		case z < 1.0:
			v = 1
		case z < 1.0+math.Pow(0.5, d.theta):
			v = 2
		default:
			v = 1 + uint64(float64(n)*math.Pow(eta*uni-eta+1.0, alpha))
		}
		v = d.hash(v - 1)
	case 'p':
		uni := float64(d.r.Next()) / float64(1<<32-1)
		v = d.hash(uint64(float64(n-1) * math.Pow(uni, d.paretoPow)))
	case 'n':
		var sum uint64
		for i := 0; i < 12; i++ {
			sum += d.r.Next() % (n + 1)
		}
		sum = (sum + 11) / 12
		if d.stddev != 0 {
			// fio's gauss_dev, in C's int arithmetic.
			vr := int64(int32(float64(d.stddev) * (float64(uint32(d.r.Next())) / (1 << 32))))
			dev := vr - int64(d.stddev/2)
			for uint64(dev+int64(sum)) >= n {
				dev /= 2
			}
			sum = uint64(int64(sum) + dev)
		}
		v = d.hash(sum)
	}
	return (v + d.randOff) % n
}

// hash scatters v over the range as fio's __hash_u64, unless noHash.
func (d *Dist) hash(v uint64) uint64 {
	if d.noHash {
		return v
	}
	return HashU64(v)
}

// ForFiles makes d fio's file_service_type distribution over its
// nranges: values are not scattered (zipf_disable_hash,
// gauss_disable_hash), and a center in [0, 1] (-1: none) moves them as
// fio's shared_rand_init (zipf, pareto: nranges times center, after the
// draw it replaces) and gauss_init (nranges times center less one half,
// a negative product wrapping as C's conversion does on amd64).
func (d *Dist) ForFiles(center float64) {
	d.noHash = true
	if center == -1 {
		return
	}
	if d.kind == 'n' {
		d.randOff = uint64(int64(float64(d.nranges) * (center - 0.5)))
		return
	}
	d.randOff = uint64(float64(d.nranges) * center)
}

// Jhash is fio's jhash (Bob Jenkins' lookup3 as fio's hash.h has it,
// which adds one byte per word in its main loop), used to seed a file's
// distribution from its name.
func Jhash(key []byte, initval uint32) uint32 {
	length := uint32(len(key))
	a := 0x61C88647 + length + initval
	b, c := a, a
	k := key
	for length > 12 {
		a += uint32(k[0])
		b += uint32(k[4])
		c += uint32(k[8])
		a, b, c = jhashMix(a, b, c)
		length -= 12
		k = k[12:]
	}
	if length == 0 {
		return c
	}
	for i := int(length) - 1; i >= 0; i-- {
		v := uint32(k[i]) << (8 * uint(i%4))
		switch {
		case i >= 8:
			c += v
		case i >= 4:
			b += v
		default:
			a += v
		}
	}
	return jhashFinal(a, b, c)
}

// jhashMix is lookup3's mix: six steps with the rotations 4, 6, 8, 16,
// 19 and 4, each taking c from a, xoring c's rotation into a and adding b
// to c, then passing the roles on (a, b, c become b, c, a).
func jhashMix(a, b, c uint32) (uint32, uint32, uint32) {
	for _, r := range [...]int{4, 6, 8, 16, 19, 4} {
		a -= c
		a ^= bits.RotateLeft32(c, r)
		c += b
		a, b, c = b, c, a
	}
	return a, b, c
}

// jhashFinal is lookup3's final: seven steps with the rotations 14, 11,
// 25, 16, 4, 14 and 24, each xoring b into c and taking b's rotation from
// c, then passing the roles on (a, b, c become b, c, a). It returns the
// last step's c, which the last pass of the roles left in b.
func jhashFinal(a, b, c uint32) uint32 {
	for _, r := range [...]int{14, 11, 25, 16, 4, 14, 24} {
		c ^= b
		c -= bits.RotateLeft32(b, r)
		a, b, c = b, c, a
	}
	return b
}
