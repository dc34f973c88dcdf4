package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// compareFlags are the flags of the comparison.
type compareFlags struct {
	gofio, fio        string
	pairs             int
	runtime           time.Duration
	quick             bool
	cases             string
	results           string
	shmDir, rootDir   string
	tmpfsMiB, rootMiB int64
	install, floor    bool
	fioSrc            string
	verbose           bool
}

// parseCompareFlags reads the comparison's flags. GOFIO and FIO in the
// environment set the default binaries.
func parseCompareFlags(args []string, stderr io.Writer) (compareFlags, error) {
	var f compareFlags
	fs := flag.NewFlagSet("compare-fio", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.gofio, "gofio", os.Getenv("GOFIO"), "gofio binary (default: go build -o bench/out/gofio . from the module root; env GOFIO)")
	fs.StringVar(&f.fio, "fio", envOr("FIO", "/usr/bin/fio"), "fio binary (env FIO)")
	fs.IntVar(&f.pairs, "pairs", 5, "gofio/fio pairs per case")
	fs.DurationVar(&f.runtime, "runtime", 2*time.Second, "runtime of each run")
	fs.BoolVar(&f.quick, "quick", false, "smoke test: 1 pair of 1s runs, results to bench/out/results-quick.md")
	fs.StringVar(&f.cases, "cases", "", "run only the cases whose name matches this regexp")
	fs.StringVar(&f.results, "results", "", "markdown file to write (default bench/results.md)")
	fs.StringVar(&f.shmDir, "shmdir", "/dev/shm", "tmpfs directory for the tmpfs scratch file")
	fs.StringVar(&f.rootDir, "rootdir", "/var/tmp", "directory on the root filesystem for the device-bound scratch file")
	fs.Int64Var(&f.tmpfsMiB, "tmpfs-size", 256, "tmpfs scratch file size in MiB")
	fs.Int64Var(&f.rootMiB, "root-size", 1024, "root-filesystem scratch file size in MiB")
	fs.BoolVar(&f.install, "install", true, "apt-get install fio and liburing-dev when absent")
	fs.BoolVar(&f.floor, "floor", true, "run the floor-* cases (gofio vs bench/liburing/uring_floor.c) and bench/liburing/run.sh when present")
	fs.StringVar(&f.fioSrc, "fio-src", os.Getenv("FIO_SRC"), "fio source tree or git URL to build fio's t/io_uring from for the peak-* rows (gofio vs t/io_uring on the same ring flags); empty: no peak rows (env FIO_SRC)")
	fs.BoolVar(&f.verbose, "v", false, "print every command")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if f.quick {
		if !set["pairs"] {
			f.pairs = 1
		}
		if !set["runtime"] {
			f.runtime = time.Second
		}
		if !set["results"] {
			f.results = "bench/out/results-quick.md"
		}
	}
	if f.results == "" {
		f.results = "bench/results.md"
	}
	if f.pairs < 1 {
		return f, fmt.Errorf("-pairs %d: need at least 1", f.pairs)
	}
	if f.runtime < time.Second || f.runtime%time.Millisecond != 0 {
		return f, fmt.Errorf("-runtime %s: need a whole number of ms, at least 1s", f.runtime)
	}
	return f, nil
}

// envOr returns the environment variable key, or def when it is unset.
func envOr(key, def string) string {
	if v, ok := os.LookupEnv(key); ok && v != "" {
		return v
	}
	return def
}

// runCompare is the comparison: set up, run every case, print and write
// the table, clean up.
func runCompare(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, err := parseCompareFlags(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "compare-fio: %v\n", err)
		}
		return exitUsage
	}
	re, err := regexp.Compile(f.cases)
	if err != nil {
		fmt.Fprintf(stderr, "compare-fio: -cases: %v\n", err)
		return exitUsage
	}
	if len(selectCases(BuildCases(Layout{Runtime: f.runtime}), re, f.floor, f.fioSrc != "")) == 0 {
		fmt.Fprintf(stderr, "compare-fio: -cases %q matches no case\n", f.cases)
		return exitUsage
	}
	say := logf(stderr)
	verbose := func(string, ...any) {}
	if f.verbose {
		verbose = say
	}
	cwd, err := os.Getwd()
	if err != nil {
		say("compare-fio: %v", err)
		return exitSetup
	}
	root, err := FindModuleRoot(cwd)
	if err != nil {
		say("compare-fio: %v", err)
		return exitSetup
	}
	if err := prepareGofio(ctx, &f, root, stderr, say); err != nil {
		say("compare-fio: %v", err)
		return exitSetup
	}

	scratch, err := NewScratch(f.shmDir, f.rootDir)
	if err != nil {
		say("compare-fio: %v", err)
		return exitSetup
	}
	defer scratch.Remove()
	l := Layout{
		TmpfsFile: filepath.Join(scratch.ShmDir, "randread.dat"), TmpfsSize: f.tmpfsMiB << 20,
		RootFile: filepath.Join(scratch.RootDir, "device.dat"), RootSize: f.rootMiB << 20,
		Runtime: f.runtime,
	}
	cases := selectCases(BuildCases(l), re, f.floor, f.fioSrc != "")
	if err := layOutFor(cases, &l, say); err != nil {
		say("compare-fio: %v", err)
		return exitSetup
	}
	// The O_DIRECT probe may have changed the layout: rebuild the cases.
	cases = selectCases(BuildCases(l), re, f.floor, f.fioSrc != "")

	rep := Report{
		Command:   shellCommand("bench/compare-fio", args),
		Machine:   DescribeMachine(),
		GofioPath: underRoot(root, f.gofio), GofioVersion: ToolVersion(ctx, f.gofio),
		FioPath: f.fio, FioVersion: ToolVersion(ctx, f.fio),
		Pairs: f.pairs, Runtime: f.runtime, Layout: l,
		RootFS: FilesystemType(scratch.RootDir), Cases: cases,
	}
	say("gofio: %s (%s); fio: %s (%s)", f.gofio, rep.GofioVersion, f.fio, rep.FioVersion)
	say("%d cases x %d pairs x %s, about %s", len(cases), f.pairs, f.runtime,
		(time.Duration(2*len(cases)*f.pairs) * (f.runtime + 300*time.Millisecond)).Round(time.Second))
	r := Runner{Dir: scratch.ShmDir, LogDir: filepath.Join(root, "bench/out/compare-fio"), Runtime: f.runtime, Verbose: verbose}
	if err := buildHelpers(ctx, &r, cases, root, f.fioSrc, say); err != nil {
		say("compare-fio: %v", err)
		return exitSetup
	}
	rep.Rows = r.RunCases(ctx, Tool{"gofio", f.gofio}, Tool{"fio", f.fio}, cases, f.pairs, func(m string) { say("%s", m) })
	if f.floor && ctx.Err() == nil && usesTmpfs(cases) {
		rep.Floor = RunFloor(ctx, root, l, f.pairs, []int{1, 16, 128, 1024})
	}

	return writeCompare(ctx, stdout, rep, f.results, root, r.LogDir, say)
}

// selectCases is SelectCases, less the floor cases when floor is false and
// the peak cases when peak is false.
func selectCases(cs []Case, re *regexp.Regexp, floor, peak bool) []Case {
	var out []Case
	for _, c := range SelectCases(cs, re) {
		if (floor || c.FloorDepth == 0) && (peak || c.Peak == nil) {
			out = append(out, c)
		}
	}
	return out
}

// hasFloorCases reports whether any selected case runs the C floor.
func hasFloorCases(cs []Case) bool {
	for _, c := range cs {
		if c.FloorDepth > 0 {
			return true
		}
	}
	return false
}

// hasPeakCases reports whether any selected case runs fio's t/io_uring.
func hasPeakCases(cs []Case) bool {
	for _, c := range cs {
		if c.Peak != nil {
			return true
		}
	}
	return false
}

// usesTmpfs reports whether any selected fio case reads the tmpfs file,
// which run.sh's floor reuses; floor cases have their own figures.
func usesTmpfs(cs []Case) bool {
	for _, c := range cs {
		if c.FloorDepth == 0 && c.Peak == nil && strings.Contains(c.Name, "tmpfs") {
			return true
		}
	}
	return false
}

// layOutFor creates the scratch files the selected cases need and probes
// O_DIRECT on tmpfs, setting l.TmpfsDirect.
func layOutFor(cases []Case, l *Layout, say func(string, ...any)) error {
	var tmpfs, rootfs bool
	for _, c := range cases {
		tmpfs = tmpfs || strings.Contains(c.Name, "tmpfs")
		rootfs = rootfs || strings.Contains(c.Name, "rootfs")
	}
	if tmpfs {
		say("laying out %s (%d MiB)", l.TmpfsFile, l.TmpfsSize>>20)
		if err := LayOut(l.TmpfsFile, l.TmpfsSize, 1); err != nil {
			return err
		}
		ok, err := DirectWorks(l.TmpfsFile)
		l.TmpfsDirect = ok
		if !ok {
			say("O_DIRECT on tmpfs does not work here (%v): tmpfs cases use direct=0", err)
		}
	}
	if rootfs {
		say("laying out %s (%d MiB)", l.RootFile, l.RootSize>>20)
		if err := LayOut(l.RootFile, l.RootSize, 2); err != nil {
			return err
		}
	}
	return nil
}

// writeFile writes path through fn, replacing it only when fn succeeds.
// keptMarker starts the part of results.md that compare-fio does not
// generate: measurements made with other commands (package benchmarks),
// each with the command that reproduces it. A rewrite keeps it.
const keptMarker = "<!-- kept: sections below are not generated by compare-fio; each names its own command -->"

// keptSections returns the part of the results file at path from
// keptMarker on, with a blank line before it, or "" when there is none.
func keptSections(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	i := bytes.Index(b, []byte(keptMarker))
	if i < 0 {
		return ""
	}
	return "\n" + string(b[i:])
}

func writeFile(path string, fn func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := fn(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// shellCommand renders name and args as one shell command line, quoting
// the arguments that need it.
func shellCommand(name string, args []string) string {
	out := []string{name}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"$`\\|&;<>()*?[]{}~#!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out = append(out, a)
	}
	return strings.Join(out, " ")
}

// prepareGofio installs fio and the tools when asked (-install), and builds
// gofio when no -gofio binary was given; f.gofio ends up absolute.
func prepareGofio(ctx context.Context, f *compareFlags, root string, stderr io.Writer, say func(string, ...any)) error {
	if f.install {
		if err := EnsurePackages(ctx, f.fio, stderr); err != nil {
			return err
		}
	}
	if f.gofio == "" {
		f.gofio = filepath.Join(root, "bench/out/gofio")
		say("building gofio: go build -o bench/out/gofio .")
		if err := BuildGofio(ctx, root, f.gofio, stderr); err != nil {
			return err
		}
	}
	var err error
	f.gofio, err = filepath.Abs(f.gofio)
	return err
}

// underRoot returns path p relative to the module root when p lies under
// it, so that results.md names no machine's checkout; else p.
func underRoot(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return p
	}
	return rel
}

// buildHelpers builds the other sides some cases need (the C liburing floor,
// fio's t/io_uring from fioSrc) and makes the runner's log directory.
func buildHelpers(ctx context.Context, r *Runner, cases []Case, root, fioSrc string, say func(string, ...any)) error {
	if hasFloorCases(cases) {
		r.Floor = filepath.Join(root, "bench/out/uring_floor")
		say("building the C floor: gcc -O2 -o bench/out/uring_floor %s -luring", floorSource)
		if err := BuildFloor(ctx, root, r.Floor); err != nil {
			return err
		}
	}
	if hasPeakCases(cases) {
		r.Peak = filepath.Join(root, peakBinary)
		say("building fio's t/io_uring from %s into %s", fioSrc, peakBinary)
		if err := BuildPeak(ctx, root, fioSrc, r.Peak); err != nil {
			return err
		}
	}
	return os.MkdirAll(r.LogDir, 0o755)
}

// writeCompare prints the ratio table and the floor and peak lines, then
// writes bench/results.md (results, relative to root) keeping its kept
// sections, unless the run was interrupted. The exit code says whether a
// case failed.
func writeCompare(ctx context.Context, stdout io.Writer, rep Report, results, root, logDir string, say func(string, ...any)) int {
	rep.Machine.LoadEnd = LoadAvg()
	fmt.Fprintln(stdout)
	if err := WriteText(stdout, rep.Rows); err != nil {
		say("compare-fio: %v", err)
		return exitSetup
	}
	for _, line := range rep.Floor.Lines {
		fmt.Fprintf(stdout, "liburing floor: %s\n", line)
	}
	for _, line := range rep.peakRatios() {
		fmt.Fprintf(stdout, "t/io_uring: %s\n", line)
	}
	for _, line := range rep.floorRatios() {
		fmt.Fprintf(stdout, "liburing floor: %s\n", line)
	}
	if rep.Floor.Err != nil {
		say("liburing floor: %v", rep.Floor.Err)
	}
	if ctx.Err() != nil {
		say("compare-fio: interrupted; %s not written", results)
		return exitFailures
	}
	out := results
	if !filepath.IsAbs(out) {
		out = filepath.Join(root, out)
	}
	tail := keptSections(out)
	if err := writeFile(out, func(w io.Writer) error {
		if err := WriteResults(w, rep); err != nil {
			return err
		}
		_, err := io.WriteString(w, tail)
		return err
	}); err != nil {
		say("compare-fio: %v", err)
		return exitSetup
	}
	say("wrote %s; raw outputs in %s", out, logDir)
	for _, row := range rep.Rows {
		if len(row.Failures) > 0 {
			return exitFailures
		}
	}
	return exitOK
}
