package compare

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseSweep(t *testing.T) {
	tests := []struct {
		in   string
		key  string
		want []string
	}{
		// The main use: every power of two from 1 to 16384.
		{"iodepth=1..16384", "iodepth", []string{"1", "2", "4", "8", "16", "32", "64", "128", "256", "512",
			"1024", "2048", "4096", "8192", "16384"}},
		// An explicit list keeps its order.
		{"iodepth=1,8,64", "iodepth", []string{"1", "8", "64"}},
		{"iodepth=64,8,1", "iodepth", []string{"64", "8", "1"}},
		// Sizes pass through as typed.
		{"bs=4k,64k", "bs", []string{"4k", "64k"}},
		// A range of sizes keeps the unit, switching to m at 1024k.
		{"bs=256k..4m", "bs", []string{"256k", "512k", "1m", "2m", "4m"}},
		// A trailing b on a range bound is allowed.
		{"bs=512b..2kb", "bs", []string{"512", "1k", "2k"}},
		{"numjobs=1..8", "numjobs", []string{"1", "2", "4", "8"}},
		// A one-point range.
		{"iodepth=32..32", "iodepth", []string{"32"}},
		// Blanks around key, values and bounds; the key is lowercased.
		{" IODepth = 1 , 2 ", "iodepth", []string{"1", "2"}},
		{"iodepth= 1 .. 4 ", "iodepth", []string{"1", "2", "4"}},
		// Units other than sizes pass through in lists.
		{"runtime=1s,2s", "runtime", []string{"1s", "2s"}},
		{"rwmixread=0,50,100", "rwmixread", []string{"0", "50", "100"}},
		{"size=10%,20%", "size", []string{"10%", "20%"}},
		// Names of an option's choices, for the task-run modes in one table.
		{"taskrun_mode=none,coop,defer,sqpoll", "taskrun_mode", []string{"none", "coop", "defer", "sqpoll"}},
		{"rw=randread, rand-write_2", "rw", []string{"randread", "rand-write_2"}},
		// The largest range that fits in 64 bits.
		{"size=1..8p", "size", nil}, // checked by length below
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			sw, err := ParseSweep(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if sw.Key != tt.key {
				t.Errorf("key = %q, want %q", sw.Key, tt.key)
			}
			if tt.want == nil {
				if len(sw.Values) != 54 || sw.Values[53] != "8p" {
					t.Errorf("values = %v, want 54 powers of two up to 8p", sw.Values)
				}
				return
			}
			if !slices.Equal(sw.Values, tt.want) {
				t.Errorf("values = %v, want %v", sw.Values, tt.want)
			}
		})
	}
}

func TestParseSweepErrors(t *testing.T) {
	tests := []struct {
		in   string
		want string // in the error message
	}{
		{"", "want KEY=LIST"},                                       // nothing
		{"iodepth", "want KEY=LIST"},                                // no '='
		{"=1,2", "empty option name"},                               // no key
		{"io depth=1", "not an option name"},                        // blank inside the key
		{"1depth=1", "not an option name"},                          // starts with a digit
		{"iodepth=", "empty list"},                                  // no values
		{"iodepth=  ", "empty list"},                                // blank list
		{"iodepth=1,,8", "value 2 is empty"},                        // empty middle value
		{"iodepth=1,8,", "value 3 is empty"},                        // trailing comma
		{"iodepth=,1", "value 1 is empty"},                          // leading comma
		{"iodepth=1,x", `"x" is not a number`},                      // garbage word
		{"iodepth=-1", `"-1" is not a number`},                      // negative
		{"iodepth=1.5", `"1.5" is not a number`},                    // fraction
		{"iodepth=0x10", `"0x10" is not a number`},                  // hex
		{"iodepth=4k2", `"4k2" is not a number`},                    // digits after the unit
		{"iodepth=1,8,1", `"1" is listed twice`},                    // duplicate value
		{"bs=4k,4K", `"4K" is listed twice`},                        // duplicate, case aside
		{"iodepth=0,1", "must be greater than 0"},                   // zero depth
		{"numjobs=1,00", "must be greater than 0"},                  // zero, padded
		{"bs=0k,4k", "must be greater than 0"},                      // zero size
		{"iodepth=16..1", "reversed"},                               // reversed range
		{"iodepth=0..16", "cannot include 0"},                       // zero in a range
		{"size=0..0", "cannot include 0"},                           // zero range, any key
		{"iodepth=3..16", "range start 3 is not a power of two"},    // bad start
		{"iodepth=1..1000", "range end 1000 is not a power of two"}, // bad end
		{"iodepth=..16", "needs both bounds"},                       // open start
		{"iodepth=1..", "needs both bounds"},                        // open end
		{"iodepth=1...4", `".4" is not a number`},                   // three dots
		{"iodepth=1..4..8", `"4..8": unknown unit`},                 // two ranges
		{"iodepth=a..b", `"a" is not a number`},                     // garbage bounds
		{"bs=4kib..1mib", "unknown unit"},                           // fio reads kib as 1000
		{"iodepth=1..99999999999999999999", "too large"},            // overflows 64 bits
		{"size=1..16384p", "too large"},                             // unit overflows
		{"iodepth=1,2..4", "mixes a range and a list"},              // range inside a list
		{"taskrun_mode=none,1", `"1" is not a name like the first`}, // names then a number
		{"taskrun_mode=none,a b", `"a b" is not a name`},            // blank inside a name
		{"taskrun_mode=none,None", `"None" is listed twice`},        // duplicate, case aside
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParseSweep(tt.in)
			if err == nil {
				t.Fatalf("ParseSweep(%q) succeeded, want an error with %q", tt.in, tt.want)
			}
			if !errors.Is(err, ErrBadSweep) {
				t.Errorf("error %q does not wrap ErrBadSweep", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q lacks %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", tt.in)) {
				t.Errorf("error %q does not quote the argument", err)
			}
		})
	}
}

// checkKeys stands in for the job parser's option table.
func checkKeys(key string) (string, error) {
	switch key {
	case "iodepth", "bs", "numjobs", "runtime", "tw_priority":
		return key, nil
	case "blocksize":
		return "bs", nil
	}
	return "", fmt.Errorf("unknown option %q", key)
}

func TestParseSweeps(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // error text; "" for success
	}{
		{"one", []string{"iodepth=1..4"}, ""},                 // the common case
		{"two keys", []string{"iodepth=1,2", "bs=4k,8k"}, ""}, // a product
		{"none", nil, ""}, // no sweep at all
		{"unknown key", []string{"iodeth=1,2"}, `unknown option "iodeth"`}, // typo
		{"duplicate key", []string{"iodepth=1,2", "iodepth=4"}, `iodepth is already swept by "iodepth=1,2"`},
		{"duplicate via alias", []string{"bs=4k", "blocksize=8k"}, `bs is already swept by "bs=4k"`},
		{"alias zero", []string{"blocksize=0,4k"}, "must be greater than 0"},
		{"tw_priority", []string{"tw_priority=0,1"}, "use --compare"},
		{"too many points", []string{"iodepth=1..4096", "bs=1..1024", "numjobs=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40"}, "more than 4096 points"},
		{"bad grammar", []string{"iodepth=1", "bs="}, "empty list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sw, err := ParseSweeps(tt.args, checkKeys)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(sw) != len(tt.args) {
					t.Errorf("%d sweeps, want %d", len(sw), len(tt.args))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if !errors.Is(err, ErrBadSweep) {
				t.Errorf("error %q does not wrap ErrBadSweep", err)
			}
		})
	}
	// The canonical name replaces the alias.
	sw, err := ParseSweeps([]string{"blocksize=4k,8k"}, checkKeys)
	if err != nil || sw[0].Key != "bs" {
		t.Errorf("ParseSweeps(blocksize) = %v, %v; want key bs", sw, err)
	}
}

func TestFormatSize(t *testing.T) {
	tests := []struct {
		in   uint64
		want string
	}{
		{0, "0"}, {1, "1"}, {512, "512"}, {1024, "1k"}, {1536, "1536"}, {4096, "4k"},
		{1 << 20, "1m"}, {3 << 20, "3m"}, {1 << 30, "1g"}, {1 << 40, "1t"}, {1 << 50, "1p"}, {1 << 60, "1024p"},
	}
	for _, tt := range tests {
		if got := FormatSize(tt.in); got != tt.want {
			t.Errorf("FormatSize(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzParseSweep(f *testing.F) {
	for _, s := range []string{
		"iodepth=1..16384", "iodepth=1,8,64", "bs=4k,64k", "numjobs=1..8", "bs=4k..1m",
		"iodepth=16..1", "iodepth=3..16", "iodepth=", "=1", "iodepth=1,,2", "iodepth=0",
		"size=1..8p", "runtime=1s,2s", "x=1..99999999999999999999", "a=1...2", "b=1..2..4",
		"k=\xff", "iodepth=1,1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sw, err := ParseSweep(s)
		if err != nil {
			if !errors.Is(err, ErrBadSweep) {
				t.Fatalf("error %q does not wrap ErrBadSweep", err)
			}
			return
		}
		if sw.Key == "" || len(sw.Values) == 0 {
			t.Fatalf("ParseSweep(%q) = %+v: empty key or values", s, sw)
		}
		seen := map[string]bool{}
		for _, v := range sw.Values {
			if v == "" || strings.ContainsAny(v, ",= \t") {
				t.Fatalf("ParseSweep(%q): bad value %q", s, v)
			}
			if seen[strings.ToLower(v)] {
				t.Fatalf("ParseSweep(%q): duplicate value %q", s, v)
			}
			seen[strings.ToLower(v)] = true
		}
		// The expanded form parses back to the same sweep.
		again, err := ParseSweep(sw.String())
		if err != nil {
			t.Fatalf("ParseSweep(%q) ok but its String %q fails: %v", s, sw.String(), err)
		}
		if again.Key != sw.Key || !slices.Equal(again.Values, sw.Values) {
			t.Fatalf("round trip of %q: %+v, then %+v", s, sw, again)
		}
	})
}
