package fiorand

import "math/bits"

// RNG is xoshiro256**, seeded through splitmix64: fast, allocation-free
// and reproducible from one 64-bit seed.
type RNG struct{ s [4]uint64 }

// Splitmix advances x by splitmix64's step and returns its next output.
func Splitmix(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// NewRNG returns the generator seeded from seed.
func NewRNG(seed uint64) RNG {
	var r RNG
	for i := range r.s {
		r.s[i] = Splitmix(&seed)
	}
	return r
}

// Next returns the next 64-bit value.
func (r *RNG) Next() uint64 {
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
