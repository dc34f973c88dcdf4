package jobfile

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// kbBaseOf maps the fuzzer's bool to one of the two kb_base values fio allows.
func kbBaseOf(k1000 bool) int {
	if k1000 {
		return 1000
	}
	return 1024
}

// FuzzParseSize checks that parseSize never panics, that a percentage is
// only returned where allowed and within 1..100, that surrounding blanks do
// not change the result, and that a parsed size reads back the same from
// its decimal and hex forms and through parseInt.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{
		"4096", "4k", "1KB", "1ki", "1KiB", "1MiB", "1m", "1g", "2p", "0x1000", " 1m ", "4096b",
		"20%", "1.5k", "2*1024", "4kx", "", "k", "101%", "99999999999p", "0x", "0xfffffffffffffffff",
		"18446744073709551615", "16384p", "0%", "1tib",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, k1000 bool) {
		kb := kbBaseOf(k1000)
		v, pct, err := parseSize(s, kb, true)
		if err != nil {
			if _, _, err2 := parseSize(s, kb, false); err2 == nil {
				t.Fatalf("parseSize(%q) fails with percentages allowed (%v) but not without", s, err)
			}
			return
		}
		if pct != 0 {
			if v != 0 || pct < 1 || pct > 100 {
				t.Fatalf("parseSize(%q) = %d, %d%%: want 0 and a percentage in 1..100", s, v, pct)
			}
			if _, _, err := parseSize(s, kb, false); err == nil {
				t.Fatalf("parseSize(%q) accepts a percentage where it is not allowed", s)
			}
			return
		}
		if v2, pct2, err := parseSize(" \t"+s+" ", kb, true); err != nil || v2 != v || pct2 != 0 {
			t.Fatalf("parseSize with blanks around %q = %d, %d%%, %v; want %d", s, v2, pct2, err, v)
		}
		for _, form := range []string{strconv.FormatUint(v, 10), fmt.Sprintf("0x%x", v), strconv.FormatUint(v, 10) + "b"} {
			if v2, _, err := parseSize(form, kb, false); err != nil || v2 != v {
				t.Fatalf("parseSize(%q) = %d, but its form %q reads back as %d, %v", s, v, form, v2, err)
			}
		}
		if v%uint64(kb) == 0 && v != 0 {
			form := strconv.FormatUint(v/uint64(kb), 10) + "k"
			if v2, _, err := parseSize(form, kb, false); err != nil || v2 != v {
				t.Fatalf("parseSize(%q) = %d, but %q reads back as %d, %v", s, v, form, v2, err)
			}
		}
		i, err := parseInt(s, kb)
		switch {
		case v > math.MaxInt64 && err == nil:
			t.Fatalf("parseInt(%q) = %d for a size above MaxInt64", s, i)
		case v <= math.MaxInt64 && (err != nil || i != int64(v)):
			t.Fatalf("parseInt(%q) = %d, %v; parseSize gave %d", s, i, err, v)
		}
	})
}

// FuzzParseTime checks that parseTime never panics and never returns a
// negative duration, that blanks do not change the result, and that a
// result reads back the same written in nanoseconds.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{
		"1", "10", "1500ms", "300000us", "2m", "1h", "1d", "1sec", "2min", "1.5s", "20", "1x", "s",
		".", "1.", ".5", "1..2", "9223372036854775807ns", "9223372036854775808ns", "106751d", "106752d",
		"1e3s", "0", "0.0000001ns",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, inSeconds bool) {
		unit := time.Microsecond
		if inSeconds {
			unit = time.Second
		}
		d, err := parseTime(s, unit)
		if err != nil {
			return
		}
		if d < 0 {
			t.Fatalf("parseTime(%q, %v) = %v: negative", s, unit, d)
		}
		if d2, err := parseTime(" "+s+"\t", unit); err != nil || d2 != d {
			t.Fatalf("parseTime with blanks around %q = %v, %v; want %v", s, d2, err, d)
		}
		// Below 2^53 a count of nanoseconds is exact in a float64.
		if d < 1<<53 {
			ns := strconv.FormatInt(int64(d), 10) + "ns"
			if d2, err := parseTime(ns, unit); err != nil || d2 != d {
				t.Fatalf("parseTime(%q) = %v, but %q reads back as %v, %v", s, d, ns, d2, err)
			}
		}
	})
}

// FuzzParseRange checks that parseRange never panics, that lo <= hi, that a
// single value gives lo == hi, and that the result reads back the same in
// both separators and both orders.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{
		"4k:1k", "1k-4k", "4k", "512-512", "0x200:0x1000", "1k-", "-1k", ":", "1k-2k-3k", "1m:4kib",
		" 4k - 8k ", "99999999999p-1", "1.5k-2k",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, k1000 bool) {
		kb := kbBaseOf(k1000)
		lo, hi, err := parseRange(s, kb)
		if err != nil {
			return
		}
		if lo > hi {
			t.Fatalf("parseRange(%q) = %d, %d: lo above hi", s, lo, hi)
		}
		if !strings.ContainsAny(s, "-:") && lo != hi {
			t.Fatalf("parseRange(%q) = %d, %d: a single value gives two ends", s, lo, hi)
		}
		for _, form := range []string{fmt.Sprintf("%d-%d", lo, hi), fmt.Sprintf("%d:%d", hi, lo)} {
			if lo2, hi2, err := parseRange(form, kb); err != nil || lo2 != lo || hi2 != hi {
				t.Fatalf("parseRange(%q) = %d, %d, but %q reads back as %d, %d, %v", s, lo, hi, form, lo2, hi2, err)
			}
		}
	})
}

// FuzzParseBSSplit checks that parseBSSplit never panics and that its
// result follows fio's bssplit_ddir: 1..64 entries, each block size at least
// 1 and each percentage in 0..100; an error for an explicit sum above 100
// only with two or more unspecified entries; and, when the explicit
// percentages leave room, unspecified entries share the rest so that the
// total is at most 100 and short of it only by the rounding of the share.
func FuzzParseBSSplit(f *testing.F) {
	for _, s := range []string{
		"4k/10:64k", "4k/80:8k:16k/50:32k", "4k", "4k/50:8k/50", "4k/0:8k/", "4k/200", "4k/100:8k/100",
		"4k/33:8k:16k:32k", "0/10", "4k/x", "4k/-1", "4k//", "::", "4k/10:8k/20:16k/30:32k/40:64k",
		"1k/99999999999", "0x1000/50:1m/50",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, k1000 bool) {
		kb := kbBaseOf(k1000)
		out, err := parseBSSplit(s, kb)
		if err != nil {
			return
		}
		parts := strings.Split(s, ":")
		if len(out) != len(parts) || len(out) < 1 || len(out) > 64 {
			t.Fatalf("parseBSSplit(%q) = %d entries for %d parts", s, len(out), len(parts))
		}
		var explicit, total uint64
		missing := 0
		for i, e := range out {
			if e.BS < 1 || e.Pct > 100 {
				t.Fatalf("parseBSSplit(%q) entry %d = %+v: bs below 1 or percentage above 100", s, i, e)
			}
			total += uint64(e.Pct)
			_, pctText, _ := strings.Cut(parts[i], "/")
			if v, err := strconv.ParseUint(pctText, 10, 32); err == nil && v > 0 {
				explicit += min(v, 100)
				if uint64(e.Pct) != min(v, 100) {
					t.Fatalf("parseBSSplit(%q) entry %d = %+v: want the given %d%% (clamped to 100)", s, i, e, v)
				}
			} else {
				missing++
			}
		}
		if explicit > 100 && missing >= 2 {
			t.Fatalf("parseBSSplit(%q) = %+v: explicit sum %d%% with %d unspecified entries, want an error", s, out, explicit, missing)
		}
		if explicit <= 100 {
			if total > 100 {
				t.Fatalf("parseBSSplit(%q) = %+v: percentages add to %d", s, out, total)
			}
			if missing > 0 && 100-total >= uint64(missing) {
				t.Fatalf("parseBSSplit(%q) = %+v: %d%% left over for %d unspecified entries", s, out, 100-total, missing)
			}
		}
	})
}

// FuzzParseBool checks that parseBool, parseFlag and parseInt never panic
// and agree: a bool is exactly an int of 0 or 1, and a flag with a value is
// set exactly when the int is positive.
func FuzzParseBool(f *testing.F) {
	for _, s := range []string{"1", "0", "true", "2", "", "yes", "-1", "-0", "0x1", "1k", " 1 ", "--1", "-9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i, ierr := parseInt(s, 1024)
		b, berr := parseBool(s)
		if wantOK := ierr == nil && (i == 0 || i == 1); (berr == nil) != wantOK || (berr == nil && b != (i == 1)) {
			t.Fatalf("parseBool(%q) = %v, %v; parseInt gave %d, %v", s, b, berr, i, ierr)
		}
		fl, ferr := parseFlag(s, true)
		if wantOK := ierr == nil && i >= 0; (ferr == nil) != wantOK || (ferr == nil && fl != (i > 0)) {
			t.Fatalf("parseFlag(%q) = %v, %v; parseInt gave %d, %v", s, fl, ferr, i, ierr)
		}
	})
}

// FuzzParsePercentiles checks that parseFloatList never panics, returns at
// most 20 values, each in [0,100], and a precision that prints every value.
func FuzzParsePercentiles(f *testing.F) {
	for _, s := range []string{"50:99:99.999", "50:100.1", "1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99", "NaN", "inf", "-0", "1e2", " 5 : 6 ", "", ":", "0x10", "1_0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, prec, err := parseFloatList(s)
		if err != nil {
			return
		}
		if len(l) == 0 || len(l) > 20 || prec < 0 {
			t.Fatalf("parseFloatList(%q) = %v, precision %d", s, l, prec)
		}
		for _, v := range l {
			if math.IsNaN(v) || v < 0 || v > 100 {
				t.Fatalf("parseFloatList(%q) = %v: value outside [0,100]", s, l)
			}
		}
	})
}
