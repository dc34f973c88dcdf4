package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// testLayout is a fixed layout for the case and report tests.
var testLayout = Layout{TmpfsFile: "/dev/shm/x/randread.dat", TmpfsSize: 256 << 20, TmpfsDirect: true,
	RootFile: "/var/tmp/x/device.dat", RootSize: 1 << 30, Runtime: 2 * time.Second}

func TestRuntimeArg(t *testing.T) {
	for _, c := range []struct {
		in   time.Duration
		want string
	}{
		{time.Second, "1"},                  // whole seconds: fio's default unit
		{10 * time.Minute, "600"},           // minutes become seconds
		{1500 * time.Millisecond, "1500ms"}, // fractions go to ms
	} {
		if got := runtimeArg(c.in); got != c.want {
			t.Errorf("runtimeArg(%s) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestBuildCases checks the case list against the case list.
func TestBuildCases(t *testing.T) {
	cs := BuildCases(testLayout)
	names := map[string]bool{}
	for _, c := range cs {
		if names[c.Name] {
			t.Errorf("duplicate case %s", c.Name)
		}
		names[c.Name] = true
		if !slices.Contains(c.Args, "--name="+c.Name) || !slices.Contains(c.Args, "--runtime=2") || !slices.Contains(c.Args, "--time_based") {
			t.Errorf("%s: args %v lack name, runtime or time_based", c.Name, c.Args)
		}
		if len(c.Metrics) == 0 {
			t.Errorf("%s: no metrics", c.Name)
		}
	}
	for _, c := range []struct {
		re      string
		n       int
		arg     string
		metrics int
	}{
		{`^null-`, 3, "--ioengine=null", 1},                           // IOPS only
		{`^uring-tmpfs-`, 4, "--filename=" + testLayout.TmpfsFile, 3}, // IOPS, lat, CPU
		{`^uring-sqpoll-`, 4, "--sqthread_poll=1", 2},                 // IOPS, lat
		{`^uring-rootfs-randread`, 2, "--filename=" + testLayout.RootFile, 1},
		{`seqwrite-128k-qd8$`, 1, "--bs=128k", 1},      // bandwidth
		{`^floor-tmpfs-`, 2, "--ioengine=io_uring", 1}, // IOPS vs the C floor
		{`^libaio-tmpfs-`, 3, "--ioengine=libaio", 2},  // IOPS, lat at depths 1, 16, 128
		{`^libaio-rootfs-`, 3, "--direct=1", 1},
		{`^gofio-uring-vs-libaio-`, 1, "--ioengine=io_uring", 2},
	} {
		sel := SelectCases(cs, regexp.MustCompile(c.re))
		if len(sel) != c.n {
			t.Errorf("%s: %d cases, want %d", c.re, len(sel), c.n)
		}
		for _, s := range sel {
			if !slices.Contains(s.Args, c.arg) || len(s.Metrics) != c.metrics {
				t.Errorf("%s: args %v metrics %d, want %s and %d metrics", s.Name, s.Args, len(s.Metrics), c.arg, c.metrics)
			}
		}
	}
	if len(cs) != 24 {
		t.Errorf("%d cases, want 24", len(cs))
	}
	for _, c := range SelectCases(cs, regexp.MustCompile(`^peak-`)) {
		r := c.Peak
		want := []string{"--iodepth=128", "--iodepth_batch_submit=32", "--iodepth_batch_complete_min=32", "--fixedbufs", "--registerfiles"}
		if r == nil || len(c.Metrics) != 1 || c.Metrics[0].Name != metricPeakIOPS.Name {
			t.Fatalf("%s: ring %v metrics %v", c.Name, r, c.Metrics)
		}
		for _, w := range want {
			if !slices.Contains(c.Args, w) {
				t.Errorf("%s: args %v lack %s", c.Name, c.Args, w)
			}
		}
		got := strings.Join(r.Args(testLayout.TmpfsFile, 2, true), " ")
		if wantT := "-p0 -n1 -R1 -b4096 -t0 -d128 -s32 -c32 -B1 -F1 -O1 -r3 " + testLayout.TmpfsFile; got != wantT {
			t.Errorf("t/io_uring args %q, want %q", got, wantT)
		}
	}
	for _, c := range SelectCases(cs, regexp.MustCompile(`^floor-`)) {
		if !slices.Contains(c.Args, fmt.Sprintf("--iodepth=%d", c.FloorDepth)) || c.FloorDepth == 0 {
			t.Errorf("%s: floor depth %d, args %v", c.Name, c.FloorDepth, c.Args)
		}
	}
}

// TestBuildCasesNoDirect checks the tmpfs fallback to direct=0.
func TestBuildCasesNoDirect(t *testing.T) {
	l := testLayout
	l.TmpfsDirect = false
	for _, c := range BuildCases(l) {
		tmpfs := strings.Contains(c.Name, "tmpfs")
		if tmpfs != slices.Contains(c.Args, "--direct=0") || tmpfs != (c.Note != "") {
			t.Errorf("%s: args %v note %q", c.Name, c.Args, c.Note)
		}
	}
}

func TestShellCommand(t *testing.T) {
	got := shellCommand("bench/compare-fio", []string{"-quick", "-cases", "null|qd1$", "it's"})
	want := `bench/compare-fio -quick -cases 'null|qd1$' 'it'\''s'`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// mustRegexp compiles re for a test.
func mustRegexp(re string) *regexp.Regexp { return regexp.MustCompile(re) }
