package clock

import "testing"

// TestTSCConversion checks the fixed-point conversion at the base, past
// 64 bits of product and at the sign bit.
func TestTSCConversion(t *testing.T) {
	c := TSC{baseTSC: 1000, baseNs: 5, mult: 3 << 31} // 1.5 ns per tick
	for _, r := range []struct {
		tick uint64
		want int64
	}{
		{1000, 5},                         // the base itself
		{1002, 8},                         // two ticks: 3 ns
		{999, 5},                          // a counter behind the base counts as the base
		{1000 + 1<<40, 5 + 3<<39},         // a product beyond 64 bits
		{1000 + 1<<50, 5 + 3*(1<<49)},     // years of ticks
		{1000 + 1<<62 - 1, 5 + 3<<61 - 2}, // the last tick before the sign bit: 1.5 ns each, the half rounded down
	} {
		if got := c.ns(r.tick); got != r.want {
			t.Errorf("ns(%d) = %d, want %d", r.tick, got, r.want)
		}
	}
}

// TestTSCMatchesNanotime checks the calibrated counter against the
// runtime's clock: a TSC reading lies between two nanotime readings taken
// around it, give or take the calibration's error (a part in 10^4 of the
// time since calibration, plus 2 µs). Preemption only widens the bracket.
func TestTSCMatchesNanotime(t *testing.T) {
	c := ProcessTSC()
	if c == nil {
		t.Skip("no usable invariant TSC here: the loop reads nanotime")
	}
	for i := 0; i < 1000; i++ {
		a := Nanotime()
		got := c.Now()
		b := Nanotime()
		slack := (b-c.baseNs)/10000 + 2000
		if got < a-slack || got > b+slack {
			t.Fatalf("tsc %d outside nanotime bracket [%d, %d] +- %d", got, a, b, slack)
		}
	}
}
