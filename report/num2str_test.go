package report

import "testing"

func TestNum2Str(t *testing.T) {
	tests := []struct {
		num    uint64
		maxlen int
		base   int
		pow2   bool
		unit   Unit
		want   string
	}{
		{4096, 4, 1, true, UnitByte, "4096B"},               // fits, no prefix
		{16384, 4, 1, true, UnitByte, "16.0KiB"},            // one decimal left
		{540672, 4, 1, true, UnitByte, "528KiB"},            // fio null job io=528KiB
		{540672, 4, 1, false, UnitByte, "541kB"},            // rounded up by the carry
		{495616000, 4, 1, true, UnitBytePerSec, "473MiB/s"}, // fio BW=473MiB/s
		{495616000, 4, 1, false, UnitBytePerSec, "496MB/s"}, // fio (496MB/s)
		{132000, 4, 1, false, UnitNone, "132k"},             // IOPS=132k
		{22200, 4, 1, false, UnitNone, "22.2k"},             // two digits, one decimal
		{5748, 4, 1, false, UnitNone, "5748"},               // exactly maxlen digits
		{15860000, 6, 1, false, UnitNone, "15860k"},         // latency max=15860k
		{999999, 6, 1, false, UnitNone, "999999"},           // six digits fit
		{1048575, 4, 1, true, UnitByte, "1024KiB"},          // 1023.999 KiB rounds up
		{19999, 4, 1, false, UnitNone, "20.0k"},             // decimal carry into the integer
		{51600, 4, 1024, true, UnitBytePerSec, "50.4MiB/s"}, // ETA rate in KiB/s
		{1000, 4, 1, false, UnitBitPerSec, "8000bit/s"},     // bits multiply by 8
		{0, 4, 1, true, UnitByte, "0B"},                     // zero
		{1 << 62, 4, 1, true, UnitByte, "4096PiB"},          // large
	}
	for _, tc := range tests {
		if got := Num2Str(tc.num, tc.maxlen, tc.base, tc.pow2, tc.unit); got != tc.want {
			t.Errorf("Num2Str(%d, %d, %d, %v, %d) = %q, want %q", tc.num, tc.maxlen, tc.base, tc.pow2, tc.unit, got, tc.want)
		}
	}
}
