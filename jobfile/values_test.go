package jobfile

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in     string
		kbBase int
		want   uint64
		pct    int
		errSub string
	}{
		{"4096", 1024, 4096, 0, ""},              // plain bytes
		{"4k", 1024, 4096, 0, ""},                // kb_base suffix
		{"1KB", 1024, 1024, 0, ""},               // case-insensitive, b ignored
		{"1ki", 1024, 1024, 0, ""},               // Xi is not inverted in fio 3.33
		{"1KiB", 1024, 1000, 0, ""},              // Xib is the opposite base
		{"1MiB", 1000, 1 << 20, 0, ""},           // ... in both directions
		{"1m", 1000, 1000000, 0, ""},             // kb_base=1000
		{"1g", 1024, 1 << 30, 0, ""},             // giga
		{"2p", 1024, 2 << 50, 0, ""},             // peta
		{"0x1000", 1024, 4096, 0, ""},            // hex
		{" 1m ", 1024, 1 << 20, 0, ""},           // blanks: gofio takes the intent (fio: 1 byte)
		{"4096b", 1024, 4096, 0, ""},             // b alone is bytes
		{"20%", 1024, 0, 20, ""},                 // percentage
		{"1.5k", 1024, 0, 0, "fractions"},        // gofio rejects (fio: 1 byte)
		{"2*1024", 1024, 0, 0, "suffix"},         // trailing garbage rejected (fio: 2)
		{"4kx", 1024, 0, 0, "suffix"},            // unknown suffix
		{"", 1024, 0, 0, "empty"},                // nothing
		{"k", 1024, 0, 0, "not a number"},        // no digits
		{"101%", 1024, 0, 0, "1..100"},           // percentage out of range
		{"99999999999p", 1024, 0, 0, "overflow"}, // 64-bit overflow
	}
	for _, tt := range tests {
		got, pct, err := parseSize(tt.in, tt.kbBase, true)
		if tt.errSub != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errSub) {
				t.Errorf("parseSize(%q) err = %v, want %q", tt.in, err, tt.errSub)
			}
			continue
		}
		if err != nil || got != tt.want || pct != tt.pct {
			t.Errorf("parseSize(%q, %d) = %d, %d%%, %v; want %d, %d%%", tt.in, tt.kbBase, got, pct, err, tt.want, tt.pct)
		}
	}
}

func TestParseTime(t *testing.T) {
	tests := []struct {
		in     string
		unit   time.Duration
		want   time.Duration
		errSub string
	}{
		{"1", time.Second, time.Second, ""},                  // runtime: seconds by default
		{"10", time.Microsecond, 10 * time.Microsecond, ""},  // other times: microseconds
		{"1500ms", time.Second, 1500 * time.Millisecond, ""}, // ms
		{"300000us", time.Second, 300 * time.Millisecond, ""},
		{"2m", time.Second, 2 * time.Minute, ""}, // m is minutes
		{"1h", time.Second, time.Hour, ""},
		{"1d", time.Second, 24 * time.Hour, ""},
		{"1sec", time.Second, time.Second, ""},     // gofio takes the intent (fio: 1 us)
		{"2min", time.Second, 2 * time.Minute, ""}, // likewise
		{"1.5s", time.Second, 1500 * time.Millisecond, ""},
		{"20", time.Millisecond, 20 * time.Millisecond, ""}, // sqthread_idle: ms
		{"1x", time.Second, 0, "unknown time suffix"},
		{"s", time.Second, 0, "not a time"},
	}
	for _, tt := range tests {
		got, err := parseTime(tt.in, tt.unit)
		if tt.errSub != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errSub) {
				t.Errorf("parseTime(%q) err = %v, want %q", tt.in, err, tt.errSub)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("parseTime(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseBoolAndFlag(t *testing.T) {
	tests := []struct {
		in      string
		has     bool
		flag    bool // parse as a flag (STR_SET) rather than BOOL
		want    bool
		wantErr bool
	}{
		{"1", true, false, true, false},    // bool 1
		{"0", true, false, false, false},   // bool 0
		{"true", true, false, false, true}, // words rejected, as in fio
		{"2", true, false, false, true},    // out of range
		{"", false, true, true, false},     // bare flag means set
		{"0", true, true, false, false},    // flag=0 clears
		{"2", true, true, true, false},     // flags have no max, as in fio
		{"yes", true, true, false, true},   // words rejected
	}
	for _, tt := range tests {
		var got bool
		var err error
		if tt.flag {
			got, err = parseFlag(tt.in, tt.has)
		} else {
			got, err = parseBool(tt.in)
		}
		if (err != nil) != tt.wantErr || (err == nil && got != tt.want) {
			t.Errorf("parse(%q, flag=%v) = %v, %v; want %v, err=%v", tt.in, tt.flag, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestSplitDirs(t *testing.T) {
	tests := []struct {
		in   string
		want [NumDirs]string
	}{
		{"8k", [NumDirs]string{"8k", "8k", "8k"}},       // one value fills all
		{"8k,32k", [NumDirs]string{"8k", "32k", "32k"}}, // last value fills the rest
		{"8k,32k,", [NumDirs]string{"8k", "32k", ""}},   // trailing comma keeps trim default
		{",8k", [NumDirs]string{"", "8k", "8k"}},        // empty first keeps read default
		{"1k,2k,3k", [NumDirs]string{"1k", "2k", "3k"}}, // all three
	}
	for _, tt := range tests {
		got, err := splitDirs(tt.in, 3)
		if err != nil || got != tt.want {
			t.Errorf("splitDirs(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := splitDirs("1,2,3,4", 3); err == nil {
		t.Error("splitDirs with four values: no error")
	}
}

func TestParseRangeAndLists(t *testing.T) {
	if lo, hi, err := parseRange("4k:1k", 1024); err != nil || lo != 1024 || hi != 4096 {
		t.Errorf("parseRange(4k:1k) = %d, %d, %v; want swapped 1024, 4096", lo, hi, err)
	}
	split, err := parseBSSplit("4k/10:64k", 1024)
	if err != nil || len(split) != 2 || split[1].Pct != 90 {
		t.Errorf("parseBSSplit(4k/10:64k) = %+v, %v; want 64k to get 90%%", split, err)
	}
	if _, err := parseBSSplit("4k/80:8k:16k/50:32k", 1024); err == nil {
		t.Error("bssplit over 100% with two unspecified entries: no error")
	}
	l, prec, err := parseFloatList("50:99:99.999")
	if err != nil || len(l) != 3 || prec != 3 {
		t.Errorf("parseFloatList = %v, %d, %v; want 3 values, precision 3", l, prec, err)
	}
	if _, _, err := parseFloatList("50:100.1"); err == nil {
		t.Error("percentile above 100: no error")
	}
	cpus, err := parseCPUList("0,5,8-10")
	if err != nil || len(cpus) != 5 || cpus[4] != 10 {
		t.Errorf("parseCPUList = %v, %v", cpus, err)
	}
	p, _, err := parsePattern(`0xdead"ab"`, false)
	if err != nil || string(p) != "\xde\xadab" {
		t.Errorf("parsePattern = %q, %v", p, err)
	}
	if got := splitFilenames(`:a\:b:c`); strings.Join(got, "|") != "a:b|c" {
		t.Errorf("splitFilenames = %q", got)
	}
}

// TestCpumaskCPUs reads cpumask= as fio's str_cpumask_cb: the set bits
// 0 to 31 are CPUs, each below the configured count; higher bits are
// ignored.
func TestCpumaskCPUs(t *testing.T) {
	tests := []struct {
		mask  uint64
		ncpus int
		want  string
	}{
		{0b101, 4, "[0 2]"},
		{1 << 40, 2, "[]"},
		{0b100, 2, "CPU 2 too large (max=1)"},
	}
	for _, tt := range tests {
		got, err := cpumaskCPUs(tt.mask, tt.ncpus)
		s := fmt.Sprint(got)
		if err != nil {
			s = err.Error()
		}
		if s != tt.want {
			t.Errorf("cpumask=%#x on %d CPUs: %s, want %s", tt.mask, tt.ncpus, s, tt.want)
		}
	}
}

// TestSyncFileRangeValues checks sync_file_range's flags (ORed, bits 1, 2
// and 4 as SYNC_FILE_RANGE_*) and its :N, as fio's str_sfr_cb: 1 without
// it, 0 turning the calls off, and fio's one dropped trailing comma.
func TestSyncFileRangeValues(t *testing.T) {
	for _, c := range []struct {
		in    string
		flags uint32
		every int
	}{
		{"write", 2, 1},
		{"wait_before,write,wait_after:8", 7, 8},
		{"wait_after, wait_before : 3", 5, 3},
		{"write,", 2, 1},
		{"write:0", 2, 0},
	} {
		var j Job
		if err := setSyncFileRange(&j, c.in); err != nil || j.SyncFileRange != c.flags || j.SyncFileRangeEvery != c.every {
			t.Errorf("%q: flags %d every %d (%v), want %d every %d", c.in, j.SyncFileRange, j.SyncFileRangeEvery, err, c.flags, c.every)
		}
	}
}
