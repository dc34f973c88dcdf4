package fiorand

import "fmt"

// lfsrTaps are the tap positions of a maximal n-bit XNOR LFSR for n from
// 3 to 63, as fio 3.33's lib/lfsr.c lists them; entry n-3 is for n bits.
var lfsrTaps = [...][]uint8{
	{3, 2}, {4, 3}, {5, 3}, {6, 5}, {7, 6}, {8, 6, 5, 4}, {9, 5}, {10, 7},
	{11, 9}, {12, 6, 4, 1}, {13, 4, 3, 1}, {14, 5, 3, 1}, {15, 14},
	{16, 15, 13, 4}, {17, 14}, {18, 11}, {19, 6, 2, 1}, {20, 17}, {21, 19},
	{22, 21}, {23, 18}, {24, 23, 22, 17}, {25, 22}, {26, 6, 2, 1},
	{27, 5, 2, 1}, {28, 25}, {29, 27}, {30, 6, 4, 1}, {31, 28},
	{32, 31, 29, 1}, {33, 20}, {34, 27, 2, 1}, {35, 33}, {36, 25},
	{37, 5, 4, 3, 2, 1}, {38, 6, 5, 1}, {39, 35}, {40, 38, 21, 19}, {41, 38},
	{42, 41, 20, 19}, {43, 42, 38, 37}, {44, 43, 18, 17}, {45, 44, 42, 41},
	{46, 45, 26, 25}, {47, 42}, {48, 47, 21, 20}, {49, 40}, {50, 49, 24, 23},
	{51, 50, 36, 35}, {52, 49}, {53, 52, 38, 37}, {54, 53, 18, 17}, {55, 31},
	{56, 55, 35, 34}, {57, 50}, {58, 39}, {59, 58, 38, 37}, {60, 59},
	{61, 60, 46, 45}, {62, 61, 6, 5}, {63, 62},
}

// LFSR is fio's variable-length LFSR (random_generator=lfsr): an XNOR
// shift register of the fewest bits (at least 3) whose states cover the
// block count, stepping past states above the last block, so that in one
// period it returns every block below the count exactly once. fio keeps
// one per file, sized by the file's blocks of the job's smallest block
// size, seeded with the job's random-offset seed, and starts it over from
// that seed when the file starts over.
type LFSR struct {
	xormask   uint64
	last      uint64 // the current state (fio's last_val)
	cachedBit uint64 // the register's top bit
	max       uint64 // the largest value returned: the count less one
	num       uint64 // values returned since the last reset
	// cycle counts down to the step that spins once more than spin, to
	// break a sub-cycle the spin would cause (fio's prepare_spin);
	// cachedCycle is what it starts from again.
	cycle, cachedCycle uint64
	spin               uint
}

// NewLFSR is fio's lfsr_init: an LFSR over the values 0..nums-1 whose
// steps each shift spin+1 times (spin at most 15), starting from seed.
func NewLFSR(nums, seed uint64, spin uint) (LFSR, error) {
	var l LFSR
	var taps []uint8
	for i := 3; i < 64; i++ {
		if uint64(1)<<i > nums {
			taps = lfsrTaps[i-3]
			break
		}
	}
	if taps == nil || nums == 0 {
		return l, fmt.Errorf("random_generator=lfsr: no LFSR covers %d blocks", nums)
	}
	l.max = nums - 1
	for _, t := range taps {
		l.xormask |= 1 << (t - 1)
	}
	l.cachedBit = 1 << (taps[0] - 1)
	if spin > 15 {
		return l, fmt.Errorf("random_generator=lfsr: spin %d above 15", spin)
	}
	l.prepareSpin(spin)
	if !l.Reset(seed) {
		return l, fmt.Errorf("random_generator=lfsr: seed %#x is the all-ones state of a %d-bit LFSR", seed, taps[0])
	}
	return l, nil
}

// prepareSpin is fio's prepare_spin: with spin+1 shifts a step, a
// sub-cycle shorter than the register's period appears when
// (2^n-1)*i is a multiple of spin+1 for some i in 1..spin; its length is
// how many steps go by before one step shifts once more. fio adds one to
// the first count, so its very first step (spin 0 included) shifts
// spin+2 times.
func (l *LFSR) prepareSpin(spin uint) {
	max := l.cachedBit<<1 - 1
	s := uint64(spin) + 1
	x, y := max/s, max%s
	l.spin, l.cycle = spin, 0
	for i := uint64(1); i <= uint64(spin); i++ {
		if y*i%s == 0 {
			l.cycle = x*i + y*i/s
			break
		}
	}
	l.cachedCycle = l.cycle
	l.cycle++
}

// Reset is fio's lfsr_reset: start over from seed, masked to the
// register's bits. It reports false for the all-ones state, which an
// XNOR LFSR never leaves.
func (l *LFSR) Reset(seed uint64) bool {
	mask := l.cachedBit<<1 - 1
	l.num = 0
	l.last = seed & mask
	return l.last != mask
}

// shift steps the register n times.
func (l *LFSR) shift(n uint) {
	v := l.last
	for ; n > 0; n-- {
		v = (v>>1 | l.cachedBit) ^ ((v&1 - 1) & l.xormask)
	}
	l.last = v
}

// shifts is how many times fio's __lfsr_next(spin) shifts: spin+1,
// and none past its table of 16.
func shifts(spin uint) uint {
	if spin > 15 {
		return 0
	}
	return spin + 1
}

// Next is fio's lfsr_next: the next value in 0..max, or false once the
// LFSR has returned max+1 values since its reset. It steps past states
// above max.
func (l *LFSR) Next() (uint64, bool) {
	l.num++
	if l.num-1 > l.max {
		return 0, false
	}
	for {
		if l.cycle != 0 {
			l.cycle--
			if l.cycle == 0 {
				l.shift(shifts(l.spin + 1))
				l.cycle = l.cachedCycle
				if l.last <= l.max {
					break
				}
				continue
			}
		}
		l.shift(shifts(l.spin))
		if l.last <= l.max {
			break
		}
	}
	return l.last, true
}
