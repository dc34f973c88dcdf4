package fiorand

import "math/bits"

// Axmap is fio's random map (lib/axmap.c) as its users see it: one bit
// per block of a file, set when an I/O has covered the block. fio keeps
// upper levels to find free bits fast; the answers are those of level 0,
// which is all gofio keeps. The rules that decide fio's counts are kept
// exactly: setting a run stops at the first bit already set (so an I/O
// is shortened there), a run may spill into the unused bits of the last
// word, and the search for a free bit wraps around to the start once.
type Axmap struct {
	nbits uint64
	words []uint64
}

// NewAxmap returns an empty map of nbits blocks.
func NewAxmap(nbits uint64) *Axmap {
	return &Axmap{nbits: nbits, words: make([]uint64, (nbits+63)/64)}
}

// Reset clears every bit, as a new pass over the file does.
func (m *Axmap) Reset() {
	for i := range m.words {
		m.words[i] = 0
	}
}

// IsSet reports whether bit b is set (fio's axmap_isset; bits past the
// map read as free).
func (m *Axmap) IsSet(b uint64) bool {
	if b > m.nbits || b/64 >= uint64(len(m.words)) {
		return false
	}
	return m.words[b/64]&(1<<(b%64)) != 0
}

// SetRun sets up to n bits from b, stopping at the first bit already set
// or at n, word by word as fio's axmap_set_nr, and returns how many it
// set.
func (m *Axmap) SetRun(b, n uint64) uint64 {
	var set uint64
	for n > 0 {
		if b > m.nbits || b/64 >= uint64(len(m.words)) {
			break
		}
		bit := b % 64
		want := n
		if room := 64 - bit; want > room {
			want = room
		}
		mask := lowMask(want) << bit
		w := &m.words[b/64]
		got := want
		if overlap := *w & mask; overlap != 0 {
			if overlap == mask {
				break
			}
			got = uint64(bits.TrailingZeros64(overlap)) - bit
			if got == 0 {
				break
			}
			mask = lowMask(got) << bit
		}
		*w |= mask
		set += got
		if got != want {
			break
		}
		n -= got
		b += got
	}
	return set
}

// SetOne sets bit b when it is free and reports whether it did: SetRun(b,
// 1) == 1, small enough to inline into a per-I/O path.
func (m *Axmap) SetOne(b uint64) bool {
	if b > m.nbits || b/64 >= uint64(len(m.words)) {
		return false
	}
	w, mask := &m.words[b/64], uint64(1)<<(b%64)
	if *w&mask != 0 {
		return false
	}
	*w |= mask
	return true
}

func lowMask(n uint64) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<n - 1
}

// NextFree returns the first free bit after b, wrapping around to bit 0
// once, or false when the map is full (fio's axmap_next_free).
func (m *Axmap) NextFree(b uint64) (uint64, bool) {
	if b >= m.nbits {
		return 0, false
	}
	next := b + 1
	if next == m.nbits {
		next = 0
	}
	if f, ok := m.firstFree(next); ok {
		return f, true
	}
	if next != 0 {
		return m.firstFree(0)
	}
	return 0, false
}

// firstFree returns the first free bit at or after b that is inside the
// map.
func (m *Axmap) firstFree(b uint64) (uint64, bool) {
	for i := b / 64; i < uint64(len(m.words)); i++ {
		w := ^m.words[i]
		if i == b/64 {
			w &^= lowMask(b % 64)
		}
		if w != 0 {
			f := i*64 + uint64(bits.TrailingZeros64(w))
			if f >= m.nbits {
				return 0, false
			}
			return f, true
		}
	}
	return 0, false
}
