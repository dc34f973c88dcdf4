package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gofio/gofio/compare"
	"github.com/gofio/gofio/internal/fingerprint"
	"github.com/gofio/gofio/internal/verifylog"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// command is the whole gofio command: it parses argv, then shows help,
// checks or prints the jobs, or runs them. It returns the process exit code.
func (st *State) command(ctx context.Context, args []string) int {
	if len(args) > 1 && isSubcommand(args[1]) {
		return st.subcommand(ctx, args)
	}
	sp, err := splitArgv(args)
	if err != nil {
		return st.fail(err)
	}
	code := ExitOK
	app := newApp(st, func(c *cli.Context) error {
		cfg, err := configFrom(c, sp)
		if err != nil {
			st.fail(err)
			return cli.Exit("", ExitBadInput)
		}
		code = act(ctx, st, cfg, func() error { return cli.ShowAppHelp(c) })
		return nil
	})
	if err := app.RunContext(ctx, append([]string{"gofio"}, sp.flags...)); err != nil {
		// The action reports its own errors and exits with an empty message.
		var ec cli.ExitCoder
		if errors.As(err, &ec) && ec.Error() == "" {
			return ec.ExitCode()
		}
		return st.fail(err)
	}
	return code
}

// flagSpec is one of gofio's own flags. flagTable lists them all, once:
// urfave/cli parses them from it, and splitArgv reads from it which
// arguments are gofio flags and whether each takes a value.
type flagSpec struct {
	cli.Flag
	// optional marks a flag whose value may be left out (--cmdhelp);
	// bare is then the value it takes, unless takesNext (may be nil)
	// accepts the next argument as the value, as in --compare KEY=A,B.
	optional  bool
	bare      string
	takesNext func(string) bool
}

// arg says whether the flag takes a value: a bool flag never does.
func (f flagSpec) arg() argKind {
	switch {
	case f.optional:
		return argOptional
	case isBoolFlag(f.Flag):
		return argNone
	}
	return argRequired
}

func isBoolFlag(f cli.Flag) bool {
	_, ok := f.(*cli.BoolFlag)
	return ok
}

// flagTable returns gofio's flags, fresh for each parse (urfave/cli keeps
// parsed values in them).
func flagTable() []flagSpec {
	return []flagSpec{
		{Flag: &cli.StringSliceFlag{Name: "output-format", Usage: orList(formatNames(false)) + "; a comma list prints several"}},
		{Flag: &cli.StringFlag{Name: "output", Usage: "write the report to `FILE` instead of stdout"}},
		{Flag: &cli.BoolFlag{Name: "parse-only", Usage: "check the job files and exit"}},
		{Flag: &cli.BoolFlag{Name: "showcmd", Usage: "print each job file as an fio command line and exit"}},
		{Flag: &cli.StringSliceFlag{Name: "section", Usage: "run only the job section `NAME` (repeatable)"}},
		{Flag: &cli.StringFlag{Name: "cmdhelp", Usage: "print help for job option `OPT` (or all)"}, optional: true, bare: "all"},
		{Flag: &cli.StringFlag{Name: "enghelp", Usage: "list engines, or the options of `ENGINE[,OPT]`"}, optional: true},
		{Flag: &cli.StringFlag{Name: "eta", Value: "auto", Usage: "status line: auto, always or never"}},
		{Flag: &cli.BoolFlag{Name: "version", Usage: "print the version and exit"}},
		{Flag: &cli.BoolFlag{Name: "verbose", Usage: "with --version: add the commit, Go, kernel and io_uring support"}},
		{Flag: &cli.StringFlag{Name: "start-at", Usage: "start the first I/O at `TIME` (RFC 3339, or +30s from now), after layout and engine setup"}},
		{Flag: &cli.StringFlag{Name: "start-at-late", Value: "error", Usage: "a --start-at already past: error (exit 1) or run (start at once)"}},
		{Flag: &cli.StringFlag{Name: "run-id", Usage: "the `ID` that ties a fleet run's hosts together, in every JSON result (default: random)"}},
		{Flag: &cli.StringFlag{Name: "hostname", Usage: "the host `NAME` results carry (default: uname -n; in a pod, the node's name)"}},
		{Flag: &cli.StringFlag{Name: "fallback-engine", Usage: "run ioengine=io_uring jobs on `ENGINE` (psync) where io_uring is unavailable, and say so"}},
		{Flag: &cli.BoolFlag{Name: "help", Usage: "print this help and exit"}},
		{Flag: &cli.StringSliceFlag{Name: "set", Usage: "override job option `KEY=VALUE` in every job (repeatable; wins over job files)"}},
		{Flag: &cli.StringFlag{Name: "compare", Usage: "run every job with `KEY=A,B`: KEY=A (new) against KEY=B (old), interleaved; bare: tw_priority=1,0"},
			optional: true, bare: compare.DefaultAB.String(), takesNext: compareValue},
		{Flag: &cli.IntFlag{Name: "repeat", Value: 1, Usage: "run each point (and side) `N` times; gating needs 5 or more"}},
		{Flag: &cli.StringSliceFlag{Name: "sweep", Usage: "expand jobs over `KEY=LIST` (iodepth=1..16384, bs=4k,8k, taskrun_mode=none,coop,defer,sqpoll: the kernel's task-run modes in one table; repeatable)"}},
		{Flag: &cli.StringFlag{Name: "compare-csv", Usage: "write the comparison table as CSV to `FILE`"}},
		{Flag: &cli.StringFlag{Name: "json-dir", Usage: "write one fio-shaped JSON file per sweep point into `DIR`"}},
		{Flag: &cli.StringFlag{Name: "plot", Usage: "draw avg latency against iodepth into `FILE.svg`"}},
		{Flag: &cli.Float64Flag{Name: "fail-if-slower", Value: -1, Usage: "exit 101 if new is slower than old by more than `PCT` beyond noise (the rows judged together at a 1% family-wise level), 102 if a row stays undecided (docs/ci.md)"}},
		{Flag: &cli.StringFlag{Name: "slo", Usage: "the latency objective `STAT<=LIMIT` (p99<=2ms; avg, p50, p90, p99, p99.9, p99.99) of a --sweep over iodepth (a list, or auto) or rate_iops (a list, or 10%..100% of the maximum): the capacity, the highest IOPS that meets it, and the knee (docs/capacity.md)"}},
		{Flag: &cli.StringFlag{Name: "capacity-plot", Usage: "draw p50 and p99 latency against IOPS with the knee and the --slo objective into `FILE.svg`"}},
		{Flag: &cli.StringFlag{Name: "fail-if-capacity-below", Usage: "exit 101 when the --slo capacity is below `N` IOPS (150k), or below N% of the --baseline's or --history's, or of gofio diff's old run's (90%)"}},
		{Flag: &cli.StringFlag{Name: "budget", Value: "15m", Usage: "the `TIME` the rounds of a gated --compare may take, all rows together; undecided rows then read inconclusive (0: no limit)"}},
		{Flag: &cli.StringFlag{Name: "baseline", Usage: "compare this run with a saved one (`OLD.json`, from --output-format=json) point by point; --fail-if-slower gates it too"}},
		{Flag: &cli.StringFlag{Name: "history", Usage: "judge this run against the saved runs of the same jobs on this runner in `DIR` (gofio history); --fail-if-slower gates it too"}},
		{Flag: &cli.Float64Flag{Name: "drift", Value: -1, Usage: "grant a --baseline or gofio diff `PCT` of between-run drift (measure it with gofio drift); default: the baseline's own, stored by the run that made it"}},
		{Flag: &cli.BoolFlag{Name: "allow-different-jobs", Usage: "let --baseline and gofio diff compare runs of different jobs or comparisons"}},
		{Flag: &cli.StringFlag{Name: "allow-runner-change", Usage: "let --baseline and gofio diff compare runs whose runners differ in `FIELDS` (kernel, cpu_model, cpus, governor, boost, smt, mitigations, devices, gofio; comma list, or all)"}},
		{Flag: &cli.StringFlag{Name: "benchfmt", Usage: "write the comparison's per-repeat figures in the Go benchmark format to `FILE` (benchstat reads it)"}},
		{Flag: &cli.StringFlag{Name: "github-benchmark", Usage: "write the comparison's latencies as github-action-benchmark's customSmallerIsBetter JSON to `FILE`"}},
		{Flag: &cli.StringFlag{Name: "bencher", Usage: "write the comparison's latency, throughput and p99 as Bencher Metric Format JSON to `FILE`"}},
		{Flag: &cli.StringFlag{Name: "junit", Usage: "write a JUnit XML report of the comparison to `FILE`: one test case per row"}},
		{Flag: &cli.StringFlag{Name: "kernel-stages", Usage: "measure each I/O's kernel latency stages with BPF on io_uring and block tracepoints in every job without kernel_stages=; `MODE` 1 (or bare): where tracing can run, required: fail the job where it cannot"},
			optional: true, bare: "1"},
		{Flag: &cli.StringFlag{Name: "kernel-locks", Usage: "measure the kernel lock contention of each job's threads (its own, SQPOLL, io-wq workers) per I/O and by site with BPF on the lock tracepoints, in every job without kernel_locks=; `MODE` 1 (or bare): where tracing can run, required: fail the job where it cannot"},
			optional: true, bare: "1"},
		{Flag: &cli.BoolFlag{Name: "kernel-trace-cost", Usage: "measure what --kernel-stages and --kernel-locks cost: the CPU time of their BPF programs per I/O, with the kernel's BPF statistics on while they trace (they add two clock reads to every BPF program run on the machine, so they are off unless asked for)"}},
		{Flag: &cli.StringFlag{Name: "io-timeout", Usage: "end a job with ETIMEDOUT when an I/O is outstanding longer than `TIME` (every job without io_timeout=; bare numbers are seconds)"}},
		{Flag: &cli.StringFlag{Name: "gate-metric", Value: report.GateAvg, Usage: "the per-repeat figure the statistics compare: avg, p99, iops, or a kernel stage's mean (enter, submit, queue, device, ktw, reap; with --kernel-stages)"}},
		{Flag: &cli.StringFlag{Name: "fio-release", Value: "3.33", Usage: "write the output as fio `RELEASE` does: 3.33 (the default) or 3.42 (job_start, latency_target_ns/latency_window_us, priority hints, zone resets as fio 3.42 reports them)"}},
		{Flag: &cli.BoolFlag{Name: "kernel-ref", Value: true, Usage: "under --compare of the model's options (tw_priority, tw_list), run every point also plain on the kernel's own SQPOLL thread, the table's kernel columns; --kernel-ref=false skips it"}},
		// fio's own flags; see fioflags.go.
		{Flag: &cli.BoolFlag{Name: "minimal", Usage: "minimal (terse) output, as --output-format=terse"}},
		{Flag: &cli.BoolFlag{Name: "append-terse", Usage: "add the terse report to the other formats"}},
		{Flag: &cli.IntFlag{Name: "terse-version", Value: 3, Usage: "terse format `VERSION`: 2, 3, 4 or 5"}},
		{Flag: &cli.BoolFlag{Name: "readonly", Usage: "never create, extend, write or remove a target: refuse jobs that write or trim, lay nothing out (fio's read-only mode)"}},
		{Flag: &cli.BoolFlag{Name: "merge-blktrace-only", Usage: "write each job's merge_blktrace_file from its read_iolog= blktraces and exit, running no I/O"}},
		{Flag: &cli.StringFlag{Name: "eta-newline", Usage: "end the status line with a newline every `TIME` (5s; bare numbers are seconds)"}},
		{Flag: &cli.StringFlag{Name: "status-interval", Usage: "print the full report, cumulative, every `TIME` in the chosen formats"}},
		{Flag: &cli.BoolFlag{Name: "bandwidth-log", Usage: "write aggregate bandwidth logs agg-read_bw.log, agg-write_bw.log, agg-trim_bw.log"}},
		{Flag: &cli.BoolFlag{Name: "warnings-fatal", Usage: "make job-file warnings (an unset ${VAR}) errors"}},
		{Flag: &cli.IntFlag{Name: "max-jobs", Usage: "accepted as fio's; fio 3.33 ignores it too (the limit is 4096 jobs)"}},
		{Flag: &cli.StringFlag{Name: "debug", Usage: "debug output for `CATEGORIES` (fio's names; gofio prints parse; ? lists them)"}},
		{Flag: &cli.IntFlag{Name: "alloc-size", Usage: "fio's shared-memory pool size in `KB`; accepted, gofio has no such pool"}},
		{Flag: &cli.StringFlag{Name: "aux-path", Usage: "`DIR` for the state files gofio writes (verify state)"}},
	}
}

// compareValue reports whether the argument after a bare --compare is its
// KEY=A,B value: it has that shape and is not an existing job file.
func compareValue(arg string) bool {
	if !compare.LooksLikeAB(arg) {
		return false
	}
	_, err := os.Stat(arg)
	return err != nil
}

// newApp builds the urfave/cli app for gofio's own flags. The job options
// and job files never reach it: splitArgv takes them out first.
func newApp(st *State, action cli.ActionFunc) *cli.App {
	var flags []cli.Flag
	for _, f := range flagTable() {
		flags = append(flags, f.Flag)
	}
	return &cli.App{
		Name:      "gofio",
		Usage:     "a fio-compatible storage load generator built on io_uring",
		UsageText: "gofio [options] [job options] <job file(s)>\n   gofio --name=JOB --ioengine=io_uring --rw=randread ... (jobs on the command line, as with fio)\n   gofio COMMAND [arguments] (the commands below)",
		// The one command table: --help lists it, the man page and the
		// completions describe it, and the first argument selects from it.
		Commands:                  st.subcommands(),
		HideHelpCommand:           true,
		Version:                   versionString(),
		HideHelp:                  true,
		HideVersion:               true,
		DisableSliceFlagSeparator: true,
		Writer:                    st.Stdout,
		ErrWriter:                 st.Stderr,
		Flags:                     flags,
		Action:                    action,
		ExitErrHandler:            func(*cli.Context, error) {},
	}
}

// configFrom fills Config from the parsed flags and the job options and
// files splitArgv set apart, and checks the values.
func configFrom(c *cli.Context, sp *splitArgs) (*Config, error) {
	cfg := &Config{
		Help:               c.Bool("help"),
		Version:            c.Bool("version"),
		Verbose:            c.Bool("verbose"),
		JobFiles:           sp.files,
		JobOptions:         sp.jobOpts,
		Output:             c.String("output"),
		ParseOnly:          c.Bool("parse-only"),
		ShowCmd:            c.Bool("showcmd"),
		Sections:           c.StringSlice("section"),
		Eta:                c.String("eta"),
		Sets:               c.StringSlice("set"),
		Repeat:             c.Int("repeat"),
		RepeatSet:          c.IsSet("repeat"),
		GateMetric:         c.String("gate-metric"),
		KernelRef:          c.Bool("kernel-ref"),
		Diff:               sp.diff,
		Baseline:           c.String("baseline"),
		History:            c.String("history"),
		JUnit:              c.String("junit"),
		Benchfmt:           c.String("benchfmt"),
		GitHubBenchmark:    c.String("github-benchmark"),
		Bencher:            c.String("bencher"),
		AllowDifferentJobs: c.Bool("allow-different-jobs"),
		Sweeps:             c.StringSlice("sweep"),
		CompareCSV:         c.String("compare-csv"),
		JSONDir:            c.String("json-dir"),
		Plot:               c.String("plot"),
		FailIfSlower:       c.Float64("fail-if-slower"),
		Capacity:           capacityFlags{SLO: c.String("slo"), Plot: c.String("capacity-plot"), Below: c.String("fail-if-capacity-below")},
		Drift:              c.Float64("drift"),
	}
	if err := fioFlagsFrom(c, cfg); err != nil {
		return nil, err
	}
	var err error
	if cfg.AllowRunner, err = fingerprint.ParseAllowed(c.String("allow-runner-change")); err != nil {
		return nil, fmt.Errorf("--allow-runner-change: %w", err)
	}
	if cfg.IOTimeout, err = flagTime(c, "io-timeout", time.Millisecond); err != nil {
		return nil, err
	}
	if v := c.String("kernel-stages"); v != "" {
		if cfg.KernelStages, err = jobfile.ParseTracerMode("kernel_stages", v); err != nil {
			return nil, fmt.Errorf("invalid --kernel-stages %q (valid: 0, 1, required)", v)
		}
	}
	if v := c.String("kernel-locks"); v != "" {
		if cfg.KernelLocks, err = jobfile.ParseTracerMode("kernel_locks", v); err != nil {
			return nil, fmt.Errorf("invalid --kernel-locks %q (valid: 0, 1, required)", v)
		}
	}
	cfg.KernelTraceCost = c.Bool("kernel-trace-cost")
	if cfg.Budget, err = flagTime(c, "budget", 0); err != nil {
		return nil, err
	}
	if c.IsSet("compare") {
		v := c.String("compare")
		cfg.Compare = &v
	}
	switch late := c.String("start-at-late"); late {
	case "error", "run":
		cfg.StartLate = late == "run"
	default:
		return nil, fmt.Errorf("invalid --start-at-late %q (valid: error, run)", late)
	}
	if err := fleetFlagsFrom(c, cfg); err != nil {
		return nil, err
	}
	if c.IsSet("cmdhelp") {
		v := c.String("cmdhelp")
		cfg.CmdHelp = &v
	}
	if c.IsSet("enghelp") {
		v := c.String("enghelp")
		cfg.EngHelp = &v
	}
	if err := outputFormatsFrom(c, cfg); err != nil {
		return nil, err
	}
	return cfg, checkConfig(c, cfg)
}

// fleetFlagsFrom takes the flags of a fleet run: --start-at and
// --start-at-late, --run-id (a new one when not given), --hostname and
// --fallback-engine.
func fleetFlagsFrom(c *cli.Context, cfg *Config) error {
	at, err := parseStartAt(c.String("start-at"), c.String("start-at-late"), time.Now())
	if err != nil {
		return err
	}
	cfg.StartAt = at
	cfg.RunID = c.String("run-id")
	if c.IsSet("run-id") {
		if err := checkRunID(cfg.RunID); err != nil {
			return err
		}
	} else {
		cfg.RunID = newRunID()
	}
	cfg.Hostname = c.String("hostname")
	if c.IsSet("hostname") && (cfg.Hostname == "" || strings.ContainsAny(cfg.Hostname, " \t\n\"")) {
		return fmt.Errorf("--hostname %q: want a name without spaces or quotes", cfg.Hostname)
	}
	cfg.FallbackEngine = c.String("fallback-engine")
	return checkFallbackEngine(cfg.FallbackEngine)
}

// outputFormatsFrom takes --output-format's comma lists (normal when none
// is given) after fio's --minimal and --append-terse.
func outputFormatsFrom(c *cli.Context, cfg *Config) error {
	for _, v := range c.StringSlice("output-format") {
		for _, f := range strings.Split(v, ",") {
			if !slices.Contains(formatNames(false), f) {
				return fmt.Errorf("invalid --output-format %q (valid: %s)", f, strings.Join(formatNames(false), ", "))
			}
			cfg.OutputFormats = append(cfg.OutputFormats, f)
		}
	}
	cfg.OutputFormatSet = len(cfg.OutputFormats) > 0
	if len(cfg.OutputFormats) == 0 {
		cfg.OutputFormats = []string{"normal"}
	}
	return nil
}

// checkConfig refuses flag values outside what each flag allows.
func checkConfig(c *cli.Context, cfg *Config) error {
	switch cfg.Eta {
	case "auto", "always", "never":
	default:
		return fmt.Errorf("invalid --eta %q (valid: auto, always, never)", cfg.Eta)
	}
	for _, s := range cfg.Sections {
		if s == "global" {
			return errors.New("can't use global as only section")
		}
	}
	for _, s := range cfg.Sets {
		if !strings.Contains(s, "=") {
			return fmt.Errorf("--set %q: want KEY=VALUE", s)
		}
	}
	if cfg.Repeat < 1 {
		return fmt.Errorf("--repeat %d: want at least 1", cfg.Repeat)
	}
	if c.IsSet("drift") && cfg.Drift < 0 {
		return fmt.Errorf("--drift %g: want a percentage of 0 or more", cfg.Drift)
	}
	if c.IsSet("fail-if-slower") && cfg.FailIfSlower < 0 {
		return fmt.Errorf("--fail-if-slower %g: want a percentage of 0 or more", cfg.FailIfSlower)
	}
	if !report.ValidGateMetric(cfg.GateMetric) {
		return fmt.Errorf("invalid --gate-metric %q (valid: %s)", cfg.GateMetric, strings.Join(report.GateMetrics(), ", "))
	}
	if cfg.Plot != "" && !strings.HasSuffix(cfg.Plot, ".svg") {
		return fmt.Errorf("--plot %q: want a .svg file name", cfg.Plot)
	}
	return checkCapacityFlags(&cfg.Capacity)
}

// mergeOnly is --merge-blktrace-only: each job's merge_blktrace_file is
// written from its read_iolog= blktraces, and, with the normal format,
// the jobs' lines are printed as fio prints them on that path (fio 3.33
// prints each line before its merge; gofio prints them once every merge
// has succeeded, so a failed merge writes nothing).
func mergeOnly(st *State, cfg *Config, jobs []*jobfile.Job) int {
	if err := verifylog.MergeBlktraces(jobs); err != nil {
		return st.fail(err)
	}
	if !hasFormat(cfg, "normal") {
		return ExitOK
	}
	out, closeOut, err := openOutput(st, cfg)
	if err != nil {
		return st.fail(err)
	}
	defer closeOut()
	if err := report.WriteJobLines(out, jobs); err != nil {
		return st.fail(err)
	}
	return ExitOK
}

// act does what the flags ask once they are parsed. showHelp prints the
// usage text.
func act(ctx context.Context, st *State, cfg *Config, showHelp func() error) int {
	switch {
	case cfg.Help:
		if err := showHelp(); err != nil {
			return st.fail(err)
		}
		return ExitOK
	case cfg.Version:
		if err := writeVersion(st.Stdout, st.Uring, cfg.Verbose); err != nil {
			return st.fail(err)
		}
		return ExitOK
	case cfg.Verbose:
		return st.fail(errors.New("--verbose goes with --version (or use gofio version)"))
	case cfg.CmdHelp != nil:
		help := jobfile.CmdHelp
		if p := profileInArgs(cfg.JobOptions); p != "" {
			// fio's --cmdhelp under --profile=NAME shows only the
			// profile's options.
			help = func(w io.Writer, opt string) error { return jobfile.ProfileCmdHelp(w, p, opt) }
		}
		if err := help(st.Stdout, *cfg.CmdHelp); err != nil {
			return st.fail(err)
		}
		return ExitOK
	case len(cfg.Debug) > 0 && (cfg.Debug[0] == "?" || cfg.Debug[0] == "help"):
		fmt.Fprintf(st.Stdout, "Available debug options:\n%s\n(gofio prints parse; the others are accepted)\n", strings.Join(debugCategories, "\n"))
		return ExitOK
	case cfg.EngHelp != nil:
		if err := jobfile.EngHelp(st.Stdout, *cfg.EngHelp); err != nil {
			return st.fail(err)
		}
		return ExitOK
	}
	in := jobfile.Input{
		Files:         cfg.JobFiles,
		CmdLine:       cfg.JobOptions,
		Sections:      cfg.Sections,
		Sets:          cfg.Sets,
		Getenv:        st.Getenv,
		Stdin:         st.Stdin,
		Warn:          st.Stderr,
		ReadOnly:      cfg.ReadOnly,
		WarningsFatal: cfg.WarningsFatal,
	}
	if cfg.debugs("parse") {
		in.Debug = st.Stderr
	}
	if cfg.Diff {
		return runDiff(st, cfg)
	}
	if len(cfg.JobFiles) == 0 && len(cfg.JobOptions) == 0 {
		st.fail(errors.New("no job(s) defined"))
		_ = showHelp()
		return ExitBadInput
	}
	if cfg.ShowCmd {
		if err := jobfile.ShowCmd(in, st.Stdout); err != nil {
			return st.fail(err)
		}
		return ExitOK
	}
	jobs, err := jobfile.Parse(in)
	if err != nil {
		return st.fail(err)
	}
	if err := applyRunOptions(cfg, jobs); err != nil {
		return st.fail(err)
	}
	if cfg.ParseOnly {
		return ExitOK
	}
	if cfg.MergeBlktraceOnly {
		return mergeOnly(st, cfg, jobs)
	}
	return execute(ctx, st, cfg, jobs, in)
}
