package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestParseFloorLine(t *testing.T) {
	for _, c := range []struct {
		line  string
		depth int
		iops  float64
		ok    bool
	}{
		{"depth=16 iops=123456", 16, 123456, true},            // key=value
		{"liburing qd 1: IOPS 98.5k", 1, 98500, true},         // suffix k
		{"iodepth: 128 lat 3us iops: 1.2M", 128, 1.2e6, true}, // suffix M
		{"iops=5 depth=4", 4, 5, true},                        // either order
		{"building floor.c", 0, 0, false},                     // no figures
		{"depth=16 only", 0, 0, false},                        // no IOPS
	} {
		d, v, ok := parseFloorLine(c.line)
		if ok != c.ok || d != c.depth || !near(v, c.iops) {
			t.Errorf("%q: %d %v %v, want %d %v %v", c.line, d, v, ok, c.depth, c.iops, c.ok)
		}
	}
}

// TestParsePeakIOPS reads t/io_uring's output as fio's tree at f5344384
// prints it: the mean of the per-second lines, not the Maximum line.
func TestParsePeakIOPS(t *testing.T) {
	out := "submitter=0, tid=16844, file=/dev/shm/x, nfiles=1, node=-1\n" +
		"polled=0, fixedbufs=1, register_files=1, buffered=0, QD=128\n" +
		"Engine=io_uring, sq_ring=128, cq_ring=128\n" +
		"IOPS=300.54K, BW=1174MiB/s, IOS/call=32/31\n" +
		"IOPS=1.20M, BW=4687MiB/s, IOS/call=32/32\n" +
		"IOPS=99999, BW=390MiB/s, IOS/call=32/32\n" +
		"Exiting on timeout\nMaximum IOPS=1.20M\n"
	got, err := ParsePeakIOPS([]byte(out))
	if want := (300.54e3 + 1.2e6 + 99999) / 3; err != nil || !near(got, want) {
		t.Errorf("got %v %v, want %v", got, err, want)
	}
	if _, err := ParsePeakIOPS([]byte("Exiting on timeout\nMaximum IOPS=1.20M\n")); err == nil {
		t.Error("no error without a per-second line")
	}
}

func TestParseMaxRSS(t *testing.T) {
	out := "\tCommand being timed: \"fio\"\n\tMaximum resident set size (kbytes): 123456\n\tAverage resident set size (kbytes): 0\n"
	if got, err := ParseMaxRSS([]byte(out)); err != nil || got != 123456<<10 {
		t.Errorf("got %d %v", got, err)
	}
	if _, err := ParseMaxRSS([]byte("Exit status: 0\n")); err == nil {
		t.Error("no error without the line")
	}
	// 16384 x 4 KiB = 64 MiB of buffers: 64 + 96 MiB.
	if got := RSSLimit(16384, 4096); got != 160<<20 {
		t.Errorf("RSSLimit = %d", got)
	}
}

func TestReadLogValues(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x_iops.1.log")
	if err := os.WriteFile(p, []byte("2000, 578330, 0, 0, 0\n4000, 765305, 0, 0, 0, 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ms, v, err := ReadLogValues(p)
	if err != nil || !slices.Equal(ms, []int64{2000, 4000}) || !slices.Equal(v, []float64{578330, 765305}) {
		t.Errorf("got %v %v %v", ms, v, err)
	}
	if err := os.WriteFile(p, []byte("x, 1, 0, 0, 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadLogValues(p); err == nil {
		t.Error("bad line accepted")
	}
}

func TestDropCounters(t *testing.T) {
	extras := []json.RawMessage{[]byte(`{"ring":{"cq_overflow":0,"dropped_cqes":3},"name":"x","iops":5}`)}
	got := DropCounters(extras)
	if len(got) != 2 || got["jobs[0].gofio.ring.dropped_cqes"] != 3 || got["jobs[0].gofio.ring.cq_overflow"] != 0 {
		t.Errorf("got %v", got)
	}
}

func TestSoakChecks(t *testing.T) {
	good := Sample{}
	for _, c := range []struct {
		name  string
		s     Sample
		rss   []int64
		iops  []float64
		fails int
	}{
		// Everything inside its tolerance.
		{"steady", good, []int64{100, 102, 104}, []float64{100, 95, 105}, 0},
		// RSS grows 10%.
		{"rss growth", good, []int64{100, 105, 110}, []float64{100, 100}, 1},
		// One window 20% low.
		{"iops dip", good, []int64{100, 100}, []float64{100, 100, 80}, 1},
		// A dropped I/O and a gofio drop counter.
		{"drops", Sample{DropIOs: 1, Extras: []json.RawMessage{[]byte(`{"dropped_cqes":2}`)}}, []int64{1, 1}, []float64{1, 1}, 2},
		// Too few samples to judge are failures, not passes.
		{"short", good, []int64{100}, nil, 2},
	} {
		fails := 0
		for _, ch := range SoakChecks(c.s, c.rss, c.iops, 5, 10) {
			if !ch.OK {
				fails++
			}
		}
		if fails != c.fails {
			t.Errorf("%s: %d failed checks, want %d", c.name, fails, c.fails)
		}
	}
}
