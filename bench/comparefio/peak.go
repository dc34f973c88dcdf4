package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// PeakRing is the ring set-up of a peak case: fio's t/io_uring flags and
// the gofio options that ask for the same ring and the same batching.
// t/io_uring always sets COOP_TASKRUN, SINGLE_ISSUER, DEFER_TASKRUN,
// NO_SQARRAY and a CQ ring of the SQ ring's size, and registers the ring
// fd (-X1), as gofio's io_uring engine does by default.
type PeakRing struct {
	Depth    int  // -d and iodepth
	Batch    int  // -s and -c; iodepth_batch_submit and iodepth_batch_complete_min
	FixedBuf bool // -B and fixedbufs
	RegFiles bool // -F and registerfiles
}

// Args returns t/io_uring's command line for the ring on file, for a run of
// secs whole seconds of figures: t/io_uring prints one IOPS line a second
// and none for its last second, so it runs one second longer.
func (p PeakRing) Args(file string, secs int, direct bool) []string {
	return []string{"-p0", "-n1", "-R1", "-b4096", "-t0",
		fmt.Sprintf("-d%d", p.Depth), fmt.Sprintf("-s%d", p.Batch), fmt.Sprintf("-c%d", p.Batch),
		"-B" + boolArg(p.FixedBuf), "-F" + boolArg(p.RegFiles), "-O" + boolArg(direct),
		fmt.Sprintf("-r%d", secs+1), file}
}

// GofioArgs returns the gofio options that match the ring's flags, added to
// a tmpfs randread job at the ring's depth.
func (p PeakRing) GofioArgs() []string {
	var a []string
	if p.Batch > 1 {
		a = append(a, fmt.Sprintf("--iodepth_batch_submit=%d", p.Batch),
			fmt.Sprintf("--iodepth_batch_complete_min=%d", p.Batch))
	}
	if p.FixedBuf {
		a = append(a, "--fixedbufs")
	}
	if p.RegFiles {
		a = append(a, "--registerfiles")
	}
	return a
}

// peakIOPSLine matches t/io_uring's per-second line,
// "IOPS=300.54K, BW=1174MiB/s, IOS/call=32/31".
var peakIOPSLine = regexp.MustCompile(`^IOPS=([0-9.]+)([KM]?),`)

// ParsePeakIOPS returns the mean of t/io_uring's per-second IOPS lines.
// Its closing "Maximum IOPS=" line is not one of them.
func ParsePeakIOPS(out []byte) (float64, error) {
	var sum float64
	n := 0
	for _, l := range strings.Split(string(out), "\n") {
		m := peakIOPSLine.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return 0, fmt.Errorf("t/io_uring line %q: %w", l, err)
		}
		switch m[2] {
		case "K":
			v *= 1e3
		case "M":
			v *= 1e6
		}
		sum += v
		n++
	}
	if n == 0 {
		return 0, errors.New("no IOPS= line in t/io_uring's output")
	}
	return sum / float64(n), nil
}

// peakBinary is where BuildPeak puts t/io_uring, relative to the module
// root.
const peakBinary = "bench/out/t_io_uring"

// BuildPeak builds fio's t/io_uring from src, a fio source tree or a git
// URL (cloned, depth 1, into bench/out/fio-src), with fio's own
// ./configure and make, and copies it to out. Nothing of fio is kept in
// the repository: the user names the source.
func BuildPeak(ctx context.Context, root, src, out string) error {
	if strings.Contains(src, "://") || strings.HasPrefix(src, "git@") {
		dir := filepath.Join(root, "bench/out/fio-src")
		if _, err := os.Stat(filepath.Join(dir, "t/io_uring.c")); err != nil {
			if err := os.RemoveAll(dir); err != nil {
				return fmt.Errorf("build t/io_uring: %w", err)
			}
			if err := runIn(ctx, root, "git", "clone", "--depth", "1", src, dir); err != nil {
				return err
			}
		}
		src = dir
	}
	if _, err := os.Stat(filepath.Join(src, "t/io_uring.c")); err != nil {
		return fmt.Errorf("build t/io_uring: %s is not a fio source tree: %w", src, err)
	}
	if _, err := os.Stat(filepath.Join(src, "config-host.mak")); err != nil {
		if err := runIn(ctx, src, "./configure", "--disable-native"); err != nil {
			return err
		}
	}
	if err := runIn(ctx, src, "make", "t/io_uring"); err != nil {
		return err
	}
	bin, err := os.ReadFile(filepath.Join(src, "t/io_uring"))
	if err != nil {
		return fmt.Errorf("build t/io_uring: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("build t/io_uring: %w", err)
	}
	if err := os.WriteFile(out, bin, 0o755); err != nil {
		return fmt.Errorf("build t/io_uring: %w", err)
	}
	return nil
}

// runIn runs name with args in dir and returns an error that carries the
// last line of its output.
func runIn(ctx context.Context, dir, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		return fmt.Errorf("%s %s in %s: %w: %s", name, strings.Join(args, " "), dir, err, lines[len(lines)-1])
	}
	return nil
}

// RunPeakCase runs t/io_uring with c's ring on the file gofio's side of c
// reads and returns its mean IOPS as a Sample. The raw output is kept as
// LogDir/<case>.t_io_uring.<pair>.txt.
func (r Runner) RunPeakCase(ctx context.Context, c Case, pair int) (Sample, error) {
	file, err := caseFile(c, "t/io_uring", r.Peak, "not built (give -fio-src)")
	if err != nil {
		return Sample{}, err
	}
	secs := int(math.Ceil(r.Runtime.Seconds()))
	args := c.Peak.Args(file, secs, slices.Contains(c.Args, "--direct=1"))
	stdout, kept, err := r.runKept(ctx, "t/io_uring", r.Peak, args, fmt.Sprintf("%s.t_io_uring.%d.txt", c.Name, pair))
	if err != nil {
		return Sample{}, err
	}
	v, err := ParsePeakIOPS(stdout)
	if err != nil {
		return Sample{}, fmt.Errorf("%w (in %s)", err, kept)
	}
	return Sample{IOPS: v}, nil
}
