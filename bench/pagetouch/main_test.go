package main

import (
	"strings"
	"testing"
)

// TestScan cuts a hand-written lackey trace at the instruction after a
// syscall (0x401002) and counts pages and lines per interval, an access
// that straddles a line or a page counting both.
func TestScan(t *testing.T) {
	trace := `==123== Lackey, an example Valgrind tool
I  00401000,2
 L 7ff000ffc,8
I  00401002,3
I  00401040,4
 S 00600000,8
 M 00600008,8
 L 0060003c,8
I  00402000,2
I  00401002,3
 L 00600000,4
`
	marks, err := parseMarks("0x401002")
	if err != nil {
		t.Fatal(err)
	}
	got, err := scan(strings.NewReader(trace), marks)
	if err != nil {
		t.Fatal(err)
	}
	want := []interval{
		// before the first mark: one instruction; a load that crosses
		// from page 0x7ff000 into 0x7ff001 and over a line boundary.
		{instructions: 1, codePages: 1, codeLines: 1, dataPages: 2, dataLines: 2},
		// 0x401002 (line 0x10040), 0x401040 (line 0x10041), 0x402000
		// (page 0x402); data lines 0x18000 and, for the load at 0x3c
		// that ends at 0x43, 0x18001.
		{instructions: 3, codePages: 2, codeLines: 3, dataPages: 1, dataLines: 2},
	}
	if len(got) != len(want) {
		t.Fatalf("%d intervals, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("interval %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if med, mean := summarize(got, func(v interval) int { return v.instructions }); med != 3 || mean != 2 {
		t.Errorf("instructions: median %d mean %g, want 3 and 2", med, mean)
	}
}

// TestParseMarksRejectsBadAddress: a typo in -after is an error, not a
// silently unmatched address.
func TestParseMarksRejectsBadAddress(t *testing.T) {
	if _, err := parseMarks("0x40da4e,0x19bac a"); err == nil {
		t.Error("parseMarks accepted \"0x19bac a\"")
	}
	m, err := parseMarks(" 0x40da4e, 19b8c8 ")
	if err != nil || !m[0x40da4e] || !m[0x19b8c8] || len(m) != 2 {
		t.Errorf("parseMarks: %v, %v", m, err)
	}
}
