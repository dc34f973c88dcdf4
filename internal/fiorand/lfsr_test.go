package fiorand

import "testing"

// TestLfsrPeriod checks that an LFSR returns every value below its count
// exactly once before it reports the end, for counts at, below and above
// powers of two, several seeds and spins, and with fio's spin 0 again
// after a reset.
func TestLfsrPeriod(t *testing.T) {
	for _, nums := range []uint64{1, 2, 7, 8, 9, 100, 255, 256, 257, 1000, 4096, 5003, 1 << 16} {
		for _, seed := range []uint64{0, 1, 0xb1899bed, 0xb1899bed * 2, 0x123456789} {
			for _, spin := range []uint{0, 1, 2, 3, 15} {
				l, err := NewLFSR(nums, seed, spin)
				if err != nil {
					// Only an all-ones seed is refused.
					mask := l.cachedBit<<1 - 1
					if seed&mask != mask {
						t.Fatalf("nums %d seed %#x spin %d: %v", nums, seed, spin, err)
					}
					continue
				}
				passes := 1
				if spin == 0 {
					// fio's lfsr_reset leaves the spin's cycle count: a
					// spin's sub-cycles are broken only in the first
					// pass. fio spins 0, whose first pass starts with one
					// shift more; the second covers every value too.
					passes = 2
				}
				for pass := 0; pass < passes; pass++ {
					if pass == 1 && !l.Reset(seed) {
						t.Fatalf("reset refused a seed init took")
					}
					seen := make([]bool, nums)
					for i := uint64(0); i < nums; i++ {
						v, ok := l.Next()
						if !ok {
							t.Fatalf("nums %d seed %#x spin %d pass %d: ended after %d values", nums, seed, spin, pass, i)
						}
						if v >= nums || seen[v] {
							t.Fatalf("nums %d seed %#x spin %d pass %d: value %d out of range or repeated at %d", nums, seed, spin, pass, v, i)
						}
						seen[v] = true
					}
					if v, ok := l.Next(); ok {
						t.Fatalf("nums %d seed %#x spin %d pass %d: value %d past the period", nums, seed, spin, pass, v)
					}
				}
			}
		}
	}
}

// TestLfsrAllOnesSeed checks that a seed whose low bits are the
// register's all-ones state is refused, as fio's lfsr_init refuses it.
func TestLfsrAllOnesSeed(t *testing.T) {
	// 100 values need a 7-bit register.
	if _, err := NewLFSR(100, 0x7f, 0); err == nil {
		t.Fatal("all-ones seed accepted")
	}
	if _, err := NewLFSR(100, 0x80|0x7e, 0); err != nil {
		t.Fatalf("seed with a zero low bit refused: %v", err)
	}
}

// TestLfsrNoAlloc checks that drawing from an LFSR allocates nothing.
func TestLfsrNoAlloc(t *testing.T) {
	l, err := NewLFSR(1000, 0xb1899bed, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() {
		if _, ok := l.Next(); !ok {
			l.Reset(0xb1899bed)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per draw", n)
	}
}
