package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// floorScript is the C liburing floor's entry point, relative to the
// module root. Another part of bench/ provides it.
const floorScript = "bench/liburing/run.sh"

// FloorResult is what the C liburing floor printed.
type FloorResult struct {
	Ran   bool
	Lines []string
	Err   error
	IOPS  map[int]float64 // iodepth -> IOPS, for lines the harness could read
}

// floorLine matches "depth=16 ... iops=123456" style lines, in either
// order of words, with an optional k/M suffix on the IOPS.
var (
	floorDepth = regexp.MustCompile(`(?i)\b(?:iodepth|depth|qd)\s*[=:]?\s*(\d+)`)
	floorIOPS  = regexp.MustCompile(`(?i)\biops\s*[=:]?\s*([0-9.]+)\s*([kKmM]?)\b`)
)

// floorRead matches run.sh's table line for the C depth-1 O_DIRECT 4 KiB
// read round trip: "BenchmarkRead4KDirect <go ns/op> <C ns/op> <go/C>".
var floorRead = regexp.MustCompile(`^BenchmarkRead4KDirect\s+[0-9.]+\s+([0-9.]+)\s`)

// parseFloorLine returns the depth and IOPS of one floor output line: a
// "depth=N ... iops=X" line, or run.sh's depth-1 read round trip, whose C
// ns/op gives 1e9/ns IOPS.
func parseFloorLine(l string) (depth int, iops float64, ok bool) {
	if m := floorRead.FindStringSubmatch(l); m != nil {
		ns, err := strconv.ParseFloat(m[1], 64)
		if err != nil || ns <= 0 {
			return 0, 0, false
		}
		return 1, 1e9 / ns, true
	}
	dm := floorDepth.FindStringSubmatch(l)
	im := floorIOPS.FindStringSubmatch(l)
	if dm == nil || im == nil {
		return 0, 0, false
	}
	d, err1 := strconv.Atoi(dm[1])
	v, err2 := strconv.ParseFloat(im[1], 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	switch strings.ToLower(im[2]) {
	case "k":
		v *= 1e3
	case "m":
		v *= 1e6
	}
	return d, v, true
}

// RunFloor runs bench/liburing/run.sh PAIRS 1 when it exists and
// keeps its stdout lines. It also passes the tmpfs scratch file, the run
// length, direct and the depths through the environment
// (COMPARE_FIO_FILE, COMPARE_FIO_SIZE, COMPARE_FIO_RUNTIME in seconds,
// COMPARE_FIO_DIRECT, COMPARE_FIO_DEPTHS) for a floor that wants them.
func RunFloor(ctx context.Context, root string, l Layout, pairs int, depths []int) FloorResult {
	script := filepath.Join(root, floorScript)
	if _, err := os.Stat(script); err != nil {
		return FloorResult{}
	}
	ds := make([]string, len(depths))
	for i, d := range depths {
		ds[i] = strconv.Itoa(d)
	}
	// One second per benchmark is run.sh's own default and keeps the floor
	// to about a minute at 5 pairs.
	const secs = 1
	ctx, cancel := context.WithTimeout(ctx, time.Duration(pairs*(len(depths)+1))*(l.Runtime+time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script, strconv.Itoa(pairs), strconv.Itoa(secs))
	interruptOnCancel(cmd)
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"COMPARE_FIO_FILE="+l.TmpfsFile,
		"COMPARE_FIO_SIZE="+strconv.FormatInt(l.TmpfsSize, 10),
		"COMPARE_FIO_RUNTIME="+strconv.FormatFloat(l.Runtime.Seconds(), 'f', -1, 64),
		"COMPARE_FIO_DIRECT="+boolArg(l.TmpfsDirect),
		"COMPARE_FIO_DEPTHS="+strings.Join(ds, " "))
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	res := FloorResult{Ran: true, IOPS: map[int]float64{}}
	if err := cmd.Run(); err != nil {
		res.Err = fmt.Errorf("%s: %w: %s", floorScript, err, firstLine(stderr.String()))
	}
	for _, line := range strings.Split(stdout.String(), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		res.Lines = append(res.Lines, line)
		if d, v, ok := parseFloorLine(line); ok {
			res.IOPS[d] = v
		}
	}
	return res
}

// floorSource is the C floor's source, relative to the module root.
const floorSource = "bench/liburing/uring_floor.c"

// BuildFloor compiles bench/liburing/uring_floor.c with gcc -O2 -luring
// into out.
func BuildFloor(ctx context.Context, root, out string) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("build floor: %w", err)
	}
	cmd := exec.CommandContext(ctx, "gcc", "-O2", "-o", out, filepath.Join(root, floorSource), "-luring")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("gcc %s: %w: %s", floorSource, err, firstLine(stderr.String()))
	}
	return nil
}

// caseFile returns the --filename= value of c's args, the file the tool
// what ("floor", "t/io_uring") runs on; an error when there is none, or
// when prog, the tool's path, is "" (unbuilt says why).
func caseFile(c Case, what, prog, unbuilt string) (string, error) {
	if prog == "" {
		return "", errors.New(what + ": " + unbuilt)
	}
	var file string
	for _, a := range c.Args {
		if f, ok := strings.CutPrefix(a, "--filename="); ok {
			file = f
			break
		}
	}
	if file == "" {
		return "", fmt.Errorf("%s: case %s has no --filename", what, c.Name)
	}
	return file, nil
}

// RunFloorCase runs the C floor's randread/depth=N loop for c, on the
// file and for the runtime gofio's side of c uses, and returns its IOPS
// as a Sample. The raw output is kept as LogDir/<case>.floor.<pair>.txt.
func (r Runner) RunFloorCase(ctx context.Context, c Case, pair int) (Sample, error) {
	file, err := caseFile(c, "floor", r.Floor, "uring_floor not built")
	if err != nil {
		return Sample{}, err
	}
	args := []string{strconv.FormatFloat(r.Runtime.Seconds(), 'f', -1, 64), file,
		fmt.Sprintf("randread/depth=%d", c.FloorDepth)}
	stdout, kept, err := r.runKept(ctx, "floor", r.Floor, args, fmt.Sprintf("%s.floor.%d.txt", c.Name, pair))
	if err != nil {
		return Sample{}, err
	}
	for _, line := range strings.Split(string(stdout), "\n") {
		if d, v, ok := parseFloorLine(line); ok && d == c.FloorDepth {
			return Sample{IOPS: v}, nil
		}
	}
	return Sample{}, fmt.Errorf("floor: no depth=%d iops= line in %s", c.FloorDepth, kept)
}

// runKept runs prog, the tool what ("floor", "t/io_uring"), with args,
// keeps its stdout and stderr as LogDir/name and returns its stdout and
// that path. A run that fails is an error with stderr's first line.
func (r Runner) runKept(ctx context.Context, what, prog string, args []string, name string) (stdout []byte, kept string, err error) {
	r.Verbose("run %s %s %s", what, prog, strings.Join(args, " "))
	out, errOut, runErr := r.command(ctx, prog, args)
	kept = filepath.Join(r.LogDir, name)
	if err := os.WriteFile(kept, append(out.Bytes(), errOut.Bytes()...), 0o644); err != nil {
		return nil, "", fmt.Errorf("keep %s output: %w", what, err)
	}
	if runErr != nil {
		return nil, "", fmt.Errorf("%s: %w: %s", what, runErr, firstLine(errOut.String()))
	}
	return out.Bytes(), kept, nil
}
