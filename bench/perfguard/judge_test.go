package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
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
