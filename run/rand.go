package run

import (
	"math"
	"math/bits"
)

// rng is xoshiro256**, seeded through splitmix64: fast, allocation-free
// and reproducible from one 64-bit seed.
type rng struct{ s [4]uint64 }

func splitmix(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func newRNG(seed uint64) rng {
	var r rng
	for i := range r.s {
		r.s[i] = splitmix(&seed)
	}
	return r
}

func (r *rng) next() uint64 {
	s := &r.s
	out := bits.RotateLeft64(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = bits.RotateLeft64(s[3], 45)
	return out
}

// below returns a uniform value in [0, n) (n > 0), by Lemire's
// multiply-high reduction.
func (r *rng) below(n uint64) uint64 {
	hi, _ := bits.Mul64(r.next(), n)
	return hi
}

// float returns a uniform value in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// mix64 is the splitmix64 finalizer, the round function of perm.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// perm is a keyed bijection of [0, n): a 4-round balanced Feistel network
// over the smallest even-width power of two >= n, with cycle walking to stay
// inside [0, n). Visiting at(0..n-1) yields every value exactly once, so a
// random job covers every block once per loop without a bitmap, and with
// no allocation per I/O. The domain is at most 4n, so a lookup walks fewer
// than 4 cycles on average.
type perm struct {
	n    uint64
	half uint
	mask uint64
	keys [4]uint64
}

func newPerm(n, seed uint64) perm {
	p := perm{n: n}
	w := uint(bits.Len64(n - 1))
	if n <= 1 {
		w = 0
	}
	if w < 2 {
		w = 2
	}
	if w%2 == 1 {
		w++
	}
	p.half = w / 2
	p.mask = 1<<p.half - 1
	p.rekey(seed)
	return p
}

func (p *perm) rekey(seed uint64) {
	for i := range p.keys {
		p.keys[i] = splitmix(&seed)
	}
}

func (p *perm) enc(x uint64) uint64 {
	l, r := x>>p.half, x&p.mask
	for _, k := range p.keys {
		l, r = r, l^(mix64(r^k)&p.mask)
	}
	return l<<p.half | r
}

// at returns the i-th element (i < n) of the permutation.
func (p *perm) at(i uint64) uint64 {
	x := p.enc(i)
	for x >= p.n {
		x = p.enc(x)
	}
	return x
}

// dist draws block numbers in [0, n) from random_distribution=zipf, pareto
// or normal, with fio's formulas; the popular values are scattered over
// the file through a perm, as fio hashes them.
type dist struct {
	kind    byte // 'z', 'p', 'n'
	n       uint64
	scatter perm
	// zipf (Gray et al., "Quickly generating billion-record synthetic
	// databases", as fio's lib/zipf.c)
	theta, zetan, zeta2, alpha, eta float64
	// pareto
	paretoPow float64
	// normal
	sigma float64
}

// zipfMaxGen caps the zeta(n) sum as fio's ZIPF_MAX_GEN does.
const zipfMaxGen = 10000000

func newDist(kind string, param float64, n, seed uint64) (dist, bool) {
	d := dist{n: n, scatter: newPerm(n, seed^0x5bd1e995)}
	switch kind {
	case "zipf":
		d.kind = 'z'
		if param == 1 {
			param = 0.999999
		}
		d.theta = param
		lim := n
		if lim > zipfMaxGen {
			lim = zipfMaxGen
		}
		for i := uint64(1); i <= lim; i++ {
			d.zetan += 1 / math.Pow(float64(i), param)
		}
		d.zeta2 = 1 + math.Pow(0.5, param)
		d.alpha = 1 / (1 - param)
		d.eta = (1 - math.Pow(2/float64(n), 1-param)) / (1 - d.zeta2/d.zetan)
	case "pareto":
		d.kind = 'p'
		d.paretoPow = math.Log(param) / math.Log(1-param)
	case "normal":
		d.kind = 'n'
		d.sigma = float64(n) * param / 100
	default:
		return d, false
	}
	return d, true
}

func (d *dist) next(r *rng) uint64 {
	var v uint64
	switch d.kind {
	case 'z':
		u := r.float()
		uz := u * d.zetan
		switch {
		case uz < 1:
			v = 0
		case uz < d.zeta2:
			v = 1
		default:
			v = uint64(float64(d.n) * math.Pow(d.eta*u-d.eta+1, d.alpha))
		}
	case 'p':
		v = uint64(float64(d.n-1) * math.Pow(r.float(), d.paretoPow))
	case 'n':
		// Irwin-Hall: the sum of 12 uniforms minus 6 is close to N(0,1).
		var s float64
		for i := 0; i < 12; i++ {
			s += r.float()
		}
		x := float64(d.n)/2 + (s-6)*d.sigma
		if x < 0 {
			x = 0
		}
		v = uint64(x)
	}
	if v >= d.n {
		v = d.n - 1
	}
	return d.scatter.at(v)
}
