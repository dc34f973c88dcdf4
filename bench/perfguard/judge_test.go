package main

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// noisy returns n samples of v with ±spread relative uniform noise.
func noisy(r *rand.Rand, n int, v, spread float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v * (1 + spread*(2*r.Float64()-1))
	}
	return out
}

func side(r *rand.Rand, n int, loop, calib, allocs float64) samples {
	s := samples{loopCPU: noisy(r, n, loop, 0.15), calibCPU: noisy(r, n, calib, 0.10)}
	for i := range s.loopCPU {
		s.ratio = append(s.ratio, s.loopCPU[i]/s.calibCPU[i])
		s.allocs = append(s.allocs, allocs)
		s.loopWall = append(s.loopWall, s.loopCPU[i]*3)
	}
	return s
}

func TestJudge(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	base := side(r, 20, 280, 2300, 0)
	tests := []struct {
		name string
		cur  samples
		fail bool
		why  string
	}{
		{"same code", side(r, 20, 280, 2300, 0), false, "ok"},
		{"a slower machine is no regression", side(r, 20, 280*1.5, 2300*1.5, 0), false, "ok"},
		{"10% slower is within the allowance", side(r, 20, 280*1.10, 2300, 0), false, "ok"},
		{"30% slower fails", side(r, 20, 280*1.3, 2300, 0), true, "slower than the baseline"},
		{"an allocation per I/O fails", side(r, 20, 280, 2300, 1), true, "allocates"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := judge(base, tt.cur, 15, 0.01)
			var out strings.Builder
			v.write(&out)
			if v.fail != tt.fail || !strings.Contains(out.String(), tt.why) {
				t.Errorf("fail=%v, want %v; output:\n%s", v.fail, tt.fail, out.String())
			}
		})
	}
}

func TestParseSamplesPairs(t *testing.T) {
	in := `goos: linux
BenchmarkNullLoop/qd16-priority-2   	  200000	       300 ns/op	       250 cpu-ns/op	       6 B/op	       0 allocs/op
BenchmarkCalibration-2   	   20000	      3000 ns/op	      2500 cpu-ns/op
BenchmarkCalibration-2   	   20000	      3000 ns/op	      2000 cpu-ns/op
BenchmarkNullLoop/qd16-priority-2   	  200000	       400 ns/op	       300 cpu-ns/op	       6 B/op	       1 allocs/op
`
	s, err := parseSamples(strings.NewReader(in), "in")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.ratio) != 2 || s.ratio[0] != 0.1 || s.ratio[1] != 0.15 || s.allocs[1] != 1 || s.loopWall[1] != 400 {
		t.Errorf("got %+v", s)
	}
	if _, err := parseSamples(strings.NewReader("BenchmarkNullLoop/qd16-priority-2 1 300 ns/op 250 cpu-ns/op 0 allocs/op\n"), "in"); err == nil {
		t.Error("a loop result without its calibration was accepted")
	}
}

// TestUntilPass checks the guard's attempts: a measurement that passes
// ends them, a regression must fail every one, and an error stops them.
func TestUntilPass(t *testing.T) {
	run := func(fails []bool) (verdict, int, error) {
		n := 0
		v, err := untilPass(3, func(a int) (verdict, error) {
			n++
			if a != n {
				t.Fatalf("attempt %d numbered %d", n, a)
			}
			if a > len(fails) {
				return verdict{}, errors.New("measure failed")
			}
			return verdict{fail: fails[a-1], reason: fmt.Sprint(a)}, nil
		})
		return v, n, err
	}
	if v, n, err := run([]bool{false}); err != nil || v.fail || n != 1 {
		t.Errorf("pass at once: fail=%v after %d attempts, %v", v.fail, n, err)
	}
	if v, n, err := run([]bool{true, false}); err != nil || v.fail || n != 2 {
		t.Errorf("slow spell, then pass: fail=%v after %d attempts, %v", v.fail, n, err)
	}
	if v, n, err := run([]bool{true, true, true}); err != nil || !v.fail || n != 3 || v.reason != "3" {
		t.Errorf("regression: fail=%v after %d attempts (verdict %s), %v", v.fail, n, v.reason, err)
	}
	if _, n, err := run([]bool{true}); err == nil || n != 2 {
		t.Errorf("error on attempt 2: %d attempts, %v", n, err)
	}
}

// TestPinnedChild checks that a process started under pinned runs on that
// CPU alone, and that fastestOn keeps the output with the least cpu-ns/op.
func TestPinnedChild(t *testing.T) {
	cpus := guardCPUs()
	if len(cpus) == 0 {
		t.Skip("no affinity mask")
	}
	c := cpus[len(cpus)-1]
	out, err := pinned(c, func() ([]byte, error) { return exec.Command("grep", "Cpus_allowed_list", "/proc/self/status").Output() })
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "Cpus_allowed_list:")); got != strconv.Itoa(c) {
		t.Errorf("child's CPUs %q, want %d", got, c)
	}
	n := 0
	outs := []string{"BenchmarkX-2 \t 10 \t 5 ns/op \t 250 cpu-ns/op\n", "BenchmarkX-2 \t 10 \t 5 ns/op \t 120.5 cpu-ns/op\n"}
	best, err := fastestOn([]int{cpus[0], c}, func() ([]byte, error) { n++; return []byte(outs[n-1]), nil })
	if err != nil || string(best) != outs[1] || n != 2 {
		t.Errorf("fastestOn kept %q after %d runs (%v), want the 120.5 one", best, n, err)
	}
}

// pairsOf makes n pairs whose current runs cost factor times the
// reference's, with log-normal noise of sd spread on each run and, every
// tenth pair, a run that lost its CPU for a while (three times slower).
func pairsOf(r *rand.Rand, n int, factor, spread float64, allocs float64) pairs {
	var p pairs
	run := func(v float64, i int) loopRun {
		c := v * math.Exp(spread*r.NormFloat64())
		if i%10 == 7 {
			c *= 3
		}
		return loopRun{cpu: c, wall: c * 2}
	}
	for i := 0; i < n; i++ {
		p.ref = append(p.ref, run(300, i))
		cur := run(300*factor, i+3)
		cur.allocs = allocs
		p.cur = append(p.cur, cur)
	}
	return p
}

// TestJudgePairs checks the A/B guard's operating characteristics on
// simulated pairs with a heavy tail (every tenth run three times slower):
// an unchanged tree fails under 1% of the time even with 15% noise per
// run, twice what the guard saw at load 16; with 8% noise (what it saw)
// a 30% slower loop fails at least 95% of the time; an allocation per I/O
// always fails.
func TestJudgePairs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rate := func(factor, spread float64) float64 {
		fails := 0
		const trials = 2000
		for i := 0; i < trials; i++ {
			if judgePairs(pairsOf(r, 30, factor, spread, 0), 10, 0.01).fail {
				fails++
			}
		}
		return float64(fails) / trials
	}
	if fa := rate(1, 0.15); fa > 0.01 {
		t.Errorf("unchanged tree fails %.2f%% of the time, want at most 1%%", 100*fa)
	}
	if pw := rate(1.3, 0.08); pw < 0.95 {
		t.Errorf("a 30%% slower loop fails %.1f%% of the time, want at least 95%%", 100*pw)
	}
	if v := judgePairs(pairsOf(r, 30, 1, 0.05, 1), 10, 0.01); !v.fail || !strings.Contains(v.reason, "allocates") {
		t.Errorf("an allocation per I/O: fail=%v, %s", v.fail, v.reason)
	}
}

// TestSignTestAbove checks the sign test against the binomial tail.
func TestSignTestAbove(t *testing.T) {
	ratios := []float64{1.2, 1.3, 0.9, 1.5, 1.2, 1.25, 1.21, 1.4}
	k, p := signTestAbove(ratios, 1.1)
	if k != 7 || math.Abs(p-9.0/256) > 1e-12 { // P(X >= 7), X ~ Bin(8, 1/2) = (8+1)/256
		t.Errorf("k=%d p=%g, want 7 and %g", k, p, 9.0/256)
	}
	if k, p := signTestAbove(ratios, 2); k != 0 || p != 1 {
		t.Errorf("none above: k=%d p=%g", k, p)
	}
}

// TestReference checks the reference file's round trip and its comments.
func TestReference(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reference.txt")
	if err := writeReference(path, "0123abcd"); err != nil {
		t.Fatal(err)
	}
	ref, err := readReference(path)
	if err != nil || ref.commit != "0123abcd" || ref.pkg != loopPkg {
		t.Errorf("got %+v, %v", ref, err)
	}
	if err := os.WriteFile(path, []byte("# only a comment\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readReference(path); err == nil {
		t.Error("a file naming no commit was accepted")
	}
}

// TestBaselineCPU checks that the fallback reads the baseline's CPU model.
func TestBaselineCPU(t *testing.T) {
	if got := baselineCPU([]byte("goos: linux\ncpu: Some CPU   \nBenchmarkX 1 2 ns/op\n")); got != "Some CPU" {
		t.Errorf("got %q", got)
	}
}
