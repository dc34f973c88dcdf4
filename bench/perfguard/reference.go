package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aclements/go-moremath/stats"
)

// reference is the commit whose event loop the guard measures the current
// tree against, and the package that holds its loop benchmark there.
type reference struct {
	commit string
	pkg    string
}

// readReference reads the reference file: its first field is a commit, an
// optional second the package of BenchmarkNullLoop at that commit (./run
// when absent); '#' starts a comment.
func readReference(path string) (reference, error) {
	f, err := os.Open(path)
	if err != nil {
		return reference{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		r := reference{commit: fields[0], pkg: loopPkg}
		if len(fields) > 1 {
			r.pkg = fields[1]
		}
		return r, nil
	}
	if err := sc.Err(); err != nil {
		return reference{}, err
	}
	return reference{}, fmt.Errorf("%s names no commit", path)
}

// writeReference records commit as the reference, with the package its
// loop benchmark is in.
func writeReference(path, commit string) error {
	text := "# The commit whose event loop bench/perfguard measures the tree against\n" +
		"# (go run ./bench/perfguard -update writes HEAD here), and the package of\n" +
		"# BenchmarkNullLoop at that commit.\n" +
		commit + " " + loopPkg + "\n"
	return os.WriteFile(path, []byte(text), 0o644)
}

// git runs git in the current directory and returns its trimmed output.
func git(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// haveCommit reports whether this clone holds commit (a shallow clone may
// not).
func haveCommit(ctx context.Context, commit string) bool {
	_, err := git(ctx, "cat-file", "-e", commit+"^{commit}")
	return err == nil
}

// buildAt builds the test binary of pkg as it is at commit into bin: the
// commit's tree is exported into a scratch directory under dir and built
// there with the module cache this build uses. Both sides are built with
// -trimpath so that packages the two trees share come from the build
// cache.
func buildAt(ctx context.Context, commit, pkg, dir, bin string, progress io.Writer) error {
	src := filepath.Join(dir, "ref-src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	archive := exec.CommandContext(ctx, "git", "archive", "--format=tar", commit)
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", src)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	untar.Stdin = pipe
	untar.Stderr = progress
	archive.Stderr = progress
	if err := untar.Start(); err != nil {
		return err
	}
	if err := archive.Run(); err != nil {
		untar.Wait()
		return fmt.Errorf("export %s: %w", commit, err)
	}
	if err := untar.Wait(); err != nil {
		return fmt.Errorf("export %s: %w", commit, err)
	}
	return goTestC(ctx, src, pkg, bin, progress)
}

// goTestC builds the test binary of pkg, in the module at dir, into bin.
func goTestC(ctx context.Context, dir, pkg, bin string, progress io.Writer) error {
	cmd := exec.CommandContext(ctx, "go", "test", "-c", "-trimpath", "-o", bin, pkg)
	cmd.Dir = dir
	cmd.Stderr = progress
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build the benchmarks of %s in %s: %w", pkg, dir, err)
	}
	return nil
}

// loopRun is one loop benchmark process's figures per I/O.
type loopRun struct {
	cpu, wall, allocs float64
}

// parseLoopRun reads the loop benchmark's line from a benchmark process's
// output.
func parseLoopRun(out []byte) (loopRun, error) {
	s, err := parseLoopOnly(out)
	if err != nil {
		return loopRun{}, err
	}
	return loopRun{cpu: s.loopCPU[0], wall: s.loopWall[0], allocs: s.allocs[0]}, nil
}

// pairs are the reference's and the current tree's loop runs, taken in
// pairs back to back.
type pairs struct {
	ref, cur []loopRun
}

// measurePairs takes c.count pairs of loop runs, one of refBin and one of
// curBin each, in fresh processes, the order within a pair alternating
// (ABBA) so that a drifting machine favours neither side.
func measurePairs(ctx context.Context, c config, refBin, curBin, dir string) (pairs, error) {
	cpus := guardCPUs()
	var p pairs
	one := func(bin string) (loopRun, error) {
		out, err := fastestOn(cpus, func() ([]byte, error) { return bench(ctx, bin, dir, loopBench, c.loopIOs) })
		if err != nil {
			return loopRun{}, err
		}
		return parseLoopRun(out)
	}
	for i := 0; i < c.count; i++ {
		first, second := refBin, curBin
		if i%4 == 1 || i%4 == 2 {
			first, second = curBin, refBin
		}
		a, err := one(first)
		if err != nil {
			return pairs{}, err
		}
		b, err := one(second)
		if err != nil {
			return pairs{}, err
		}
		if first == curBin {
			a, b = b, a
		}
		p.ref = append(p.ref, a)
		p.cur = append(p.cur, b)
	}
	return p, nil
}

// signTestAbove is the one-sided sign test of "the median ratio is at most
// limit" against "it is above": the probability, with each of n ratios
// equally likely above or below limit, that k or more of them are above
// it. It needs no assumption about the ratios' distribution beyond
// independent pairs, so a heavy tail (a process that lost its CPU) weighs
// no more than any other pair.
func signTestAbove(ratios []float64, limit float64) (k int, p float64) {
	for _, r := range ratios {
		if r > limit {
			k++
		}
	}
	n := len(ratios)
	if n == 0 {
		return 0, 1
	}
	b := stats.BinomialDist{N: n, P: 0.5}
	if k == 0 {
		return 0, 1
	}
	return k, 1 - b.CDF(float64(k-1))
}

// judgePairs decides the A/B guard: the current tree fails when any run
// allocates per I/O more than every reference run did, or when its loop's
// CPU time per I/O is above the reference's by more than threshold percent
// in significantly more pairs than not (the sign test at alpha). The
// estimate shown is the median of the pairs' ratios.
func judgePairs(p pairs, threshold, alpha float64) verdict {
	ratios := make([]float64, len(p.cur))
	var refCPU, curCPU, refWall, curWall, refAlloc, curAlloc []float64
	for i := range p.cur {
		ratios[i] = p.cur[i].cpu / p.ref[i].cpu
		refCPU, curCPU = append(refCPU, p.ref[i].cpu), append(curCPU, p.cur[i].cpu)
		refWall, curWall = append(refWall, p.ref[i].wall), append(curWall, p.cur[i].wall)
		refAlloc, curAlloc = append(refAlloc, p.ref[i].allocs), append(curAlloc, p.cur[i].allocs)
	}
	v := verdict{rows: []row{
		compareRow("loop cpu-ns/I/O (gate)", refCPU, curCPU, alpha),
		compareRow("loop ns/I/O (wall)", refWall, curWall, alpha),
		compareRow("allocs/I/O", refAlloc, curAlloc, alpha),
	}}
	if maxOf(curAlloc) > maxOf(refAlloc) {
		v.fail = true
		v.reason = fmt.Sprintf("the loop allocates %g times per I/O, the reference %g", maxOf(curAlloc), maxOf(refAlloc))
		return v
	}
	med := median(ratios)
	limit := 1 + threshold/100
	k, pv := signTestAbove(ratios, limit)
	change := 100 * (med - 1)
	if pv < alpha {
		v.fail = true
		v.reason = fmt.Sprintf("the loop is %.1f%% slower than the reference (median of %d paired ratios; %d of them above +%g%%, sign test p=%.4f < %g)",
			change, len(ratios), k, threshold, pv, alpha)
		return v
	}
	v.reason = fmt.Sprintf("%+.1f%% against the reference (median of %d paired ratios; %d above +%g%%, sign test p=%.4f; fails at p < %g)",
		change, len(ratios), k, threshold, pv, alpha)
	return v
}

// median returns the median of xs (NaN when empty).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// cpuModel returns the "cpu:" line a Go benchmark prints on this machine
// (the model name of /proc/cpuinfo), trimmed.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if k, v, ok := strings.Cut(string(l), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// baselineCPU returns the "cpu:" configuration line of a stored baseline.
func baselineCPU(raw []byte) string {
	for _, l := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, "cpu:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
