package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"

	"github.com/gofio/gofio/compare"
	"github.com/gofio/gofio/internal/buildinfo"
	"github.com/gofio/gofio/internal/canary"
	"github.com/gofio/gofio/internal/hostinfo"
	"github.com/gofio/gofio/internal/target"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// This file is the comparison command (--compare, --sweep, --repeat,
// --baseline): the plan made ready before any I/O, the runs, the
// self-description of a run, the verdicts, the Markdown, step summary and
// JUnit reports, and the --fail-if-slower gate, which gofio diff shares.

// titled is a judged comparison with what it compares, for the reports:
// the run's own --compare (title "") or a diff against a baseline. gated
// says whether --fail-if-slower applies to it (a plain sweep has nothing
// to gate).
type titled struct {
	title string
	cmp   *report.Comparison
	gated bool
	// runner is the canary's check of the runner between the two runs
	// of a comparison across runs (diff, --baseline); nil within a run,
	// whose sides are interleaved.
	runner *report.RunnerCheck
	// noDrift marks a gated diff with no drift allowance that goes on
	// only because the runner moved: its verdict is runner changed.
	noDrift bool
}

// outcome is a comparison's overall verdict (its Verdict: pass, fail,
// inconclusive, not gated), or report.VerdictRunnerChanged when the
// runner's canary moved the way that could explain a gated outcome
// (compare.CheckRunner), or a gated diff with no drift allowance goes on
// only because the runner moved.
func (c titled) outcome() string {
	if c.cmp.Gated && (c.noDrift || c.runner.Explains(c.cmp.Verdict == report.GateFail)) {
		return report.VerdictRunnerChanged
	}
	return c.cmp.Verdict
}

// driftFor returns the between-run drift allowance of a diff against old:
// --drift when given, else the one old stores (RunInfo.DriftPct), else 0
// (checkDriftKnown refuses a gate without one).
func driftFor(cfg *Config, old *compare.Saved) float64 {
	if cfg.Drift >= 0 {
		return cfg.Drift
	}
	if old.Info != nil && old.Info.DriftPct != nil {
		return *old.Info.DriftPct
	}
	return 0
}

// checkDriftKnown refuses --fail-if-slower on a diff against old when no
// drift allowance is known: two runs made apart in time differ by more
// than the spread within either (docs/ci.md), and without a measure of
// that, their diff cannot tell a slower run from a drifting runner.
// --drift 0 says the runner does not drift.
func checkDriftKnown(cfg *Config, old *compare.Saved) error {
	if cfg.FailIfSlower < 0 || cfg.Drift >= 0 || old.Info != nil && old.Info.DriftPct != nil {
		return nil
	}
	return gateError(cfg, fmt.Errorf("--fail-if-slower on a diff of two runs needs the drift between runs: %s carries no drift allowance and --drift was not given; "+
		"measure it with gofio drift and pass --drift PCT (--drift 0 for a runner known not to drift), or judge against the history of runs with gofio history / --history (docs/ci.md)", old.Path))
}

// judgeDiff judges a diff against a baseline, grants it the drift
// allowance and concludes it under --fail-if-slower.
func judgeDiff(cfg *Config, d *report.Comparison, old *compare.Saved) {
	compare.Judge(d, cfg.GateMetric)
	compare.ApplyDrift(d, driftFor(cfg, old))
	compare.SetGate(d, cfg.FailIfSlower)
}

// applyRunOptions takes compare=, sweep=, repeat=, fail_if_slower= and
// slo= from the job files' [global] where the command line did not give
// --compare, --sweep, --repeat, --fail-if-slower or --slo: a job file can
// carry its own sweep, objective and gate. Every job must agree on them.
func applyRunOptions(cfg *Config, jobs []*jobfile.Job) error {
	if len(jobs) == 0 {
		spec, err := compare.ParseSpec(cfg.Compare, cfg.Sweeps, canonicalOption)
		cfg.Spec = spec
		return cmp.Or(err, requireSLO(&cfg.Capacity))
	}
	ro := jobs[0].Run
	for _, j := range jobs[1:] {
		if !reflect.DeepEqual(j.Run, ro) {
			return fmt.Errorf("%s and %s: jobs disagree on compare=, sweep=, repeat=, fail_if_slower= or slo=; give them once, in the first file's [global]",
				jobs[0].Name, j.Name)
		}
	}
	// The command line's --compare and --sweep override the file's; the
	// comparison is parsed once, from where each part came, and what a
	// job file gave fails at its file and line as every other job-file
	// error does.
	compareFromFile := cfg.Compare == nil && ro.Compare != ""
	if compareFromFile {
		cfg.Compare = &ro.Compare
		cfg.tookRunOption(jobs[0], "compare")
	}
	sweepFromFile := len(cfg.Sweeps) == 0 && len(ro.Sweeps) > 0
	if sweepFromFile {
		cfg.Sweeps = ro.Sweeps
		cfg.tookRunOption(jobs[0], "sweep")
	}
	spec, err := compare.ParseSpec(cfg.Compare, cfg.Sweeps, canonicalOption)
	switch {
	case err == nil:
		cfg.Spec = spec
	case errors.Is(err, compare.ErrBadSweep) && sweepFromFile:
		return runOptionError(jobs[0], "sweep", err)
	case errors.Is(err, compare.ErrBadCompare) && compareFromFile:
		return runOptionError(jobs[0], "compare", err)
	default:
		return err
	}
	if !cfg.RepeatSet && ro.Repeat > 0 {
		cfg.Repeat = ro.Repeat
	}
	if cfg.FailIfSlower < 0 && ro.HasFailIfSlower {
		cfg.FailIfSlower = ro.FailIfSlower
		cfg.tookRunOption(jobs[0], "fail_if_slower")
	}
	if cfg.Capacity.SLO == "" && ro.SLO != "" {
		cfg.Capacity.SLO = ro.SLO
		cfg.tookRunOption(jobs[0], "slo")
		if err := checkCapacityFlags(&cfg.Capacity); err != nil {
			return runOptionError(jobs[0], "slo", err)
		}
	}
	return requireSLO(&cfg.Capacity)
}

// tookRunOption records where j's job file gave the run option name=.
func (cfg *Config) tookRunOption(j *jobfile.Job, name string) {
	if o, ok := runOptionAt(j, name); ok {
		if cfg.RunOptionsAt == nil {
			cfg.RunOptionsAt = map[string]jobfile.Option{}
		}
		cfg.RunOptionsAt[name] = o
	}
}

// runOptionAt returns the job-file option name= that j took its run
// option from: the last one given, as it is the one in effect.
func runOptionAt(j *jobfile.Job, name string) (jobfile.Option, bool) {
	for i := len(j.Options) - 1; i >= 0; i-- {
		if o := j.Options[i]; o.Name == name && o.File != "" {
			return o, true
		}
	}
	return jobfile.Option{}, false
}

// runOptionError is err about the run option name= of j's job file, with
// its file and line; the grammar's "bad --flag "VALUE": " prefix is left
// out, the option's text saying it.
func runOptionError(j *jobfile.Job, name string, err error) error {
	o, ok := runOptionAt(j, name)
	if !ok {
		return err
	}
	return atOption(o, err)
}

// atOption is err as a *jobfile.Error at the job-file option o.
func atOption(o jobfile.Option, err error) error {
	msg := err.Error()
	if strings.HasPrefix(msg, "bad --") {
		if _, rest, ok := strings.Cut(msg, "\": "); ok {
			msg = rest
		}
	}
	return &jobfile.Error{File: o.File, Line: o.Line, Option: o.Name + "=" + o.Value, Msg: msg}
}

// gateError is err about --fail-if-slower, placed at fail_if_slower= in
// the job file when the file set it.
func gateError(cfg *Config, err error) error {
	if o, ok := cfg.RunOptionsAt["fail_if_slower"]; ok {
		return atOption(o, err)
	}
	return err
}

// pointError is err from parsing a point of the plan: a bad value of the
// compared or a swept option is placed at the job file's compare= or
// sweep= when the file gave it.
func pointError(cfg *Config, ab *compare.AB, sweeps []compare.Sweep, err error) error {
	var je *jobfile.Error
	if !errors.As(err, &je) || je.File != "--set" {
		return err
	}
	key, _, _ := strings.Cut(je.Option, "=")
	name := ""
	if ab != nil && ab.Key == key {
		name = "compare"
	}
	for _, sw := range sweeps {
		if sw.Key == key {
			name = "sweep"
		}
	}
	if o, ok := cfg.RunOptionsAt[name]; ok {
		return &jobfile.Error{File: o.File, Line: o.Line, Option: o.Name + "=" + o.Value, Msg: je.Option + ": " + je.Msg}
	}
	return err
}

// checkGate refuses --fail-if-slower with fewer than compare.MinGateRepeats
// repeats a side: the test could never, or only by chance, reject.
func checkGate(cfg *Config, repeats int) error {
	if cfg.FailIfSlower < 0 || repeats >= compare.MinGateRepeats {
		return nil
	}
	return gateError(cfg, fmt.Errorf("--fail-if-slower needs --repeat %d or more (got %d): with fewer repeats a side, the Mann-Whitney U test has too little power to tell a slowdown from noise at p < %g (see docs/ci.md)",
		compare.MinGateRepeats, repeats, compare.Alpha))
}

// describeRun says where and how this run is made, for its JSON output.
func describeRun(jobs []*jobfile.Job, ab *compare.AB, sweeps []compare.Sweep, repeat int) *report.RunInfo {
	info := &report.RunInfo{Version: versionString(), CPUs: runtime.NumCPU(), Repeat: repeat, Sweeps: []string{}}
	info.Host, info.Kernel = hostinfo.Hostname(), hostinfo.Kernel()
	info.CPUModel = hostinfo.CPUModel()
	info.Env = sysfs.Read(nil) // the disks once the run has used them: recordDisks
	bi := buildinfo.Read()
	info.Commit = cmp.Or(bi.Commit(), "unknown")
	info.Jobs, info.JobsHash = compare.DescribeJobs(jobs)
	if ab != nil {
		info.Compare = ab.String()
	}
	for _, s := range sweeps {
		info.Sweeps = append(info.Sweeps, s.String())
	}
	return info
}

// preflightBaseline reads the --baseline file and checks, before any I/O,
// that this run can be compared with it: the same jobs and the same
// --compare (unless --allow-different-jobs), and enough repeats in it for
// the gate.
func preflightBaseline(cfg *Config, info *report.RunInfo, ab *compare.AB, sweeps []compare.Sweep) (*compare.Saved, error) {
	old, err := compare.ReadSaved(cfg.Baseline)
	if err != nil {
		return nil, fmt.Errorf("--baseline: %w", err)
	}
	if err := checkGate(cfg, minRepeats(old.Comparison)); err != nil {
		return nil, fmt.Errorf("--baseline %s: %w", cfg.Baseline, err)
	}
	if err := checkDriftKnown(cfg, old); err != nil {
		return nil, fmt.Errorf("--baseline: %w", err)
	}
	stub := &report.Comparison{Key: "iodepth", Compared: ab != nil}
	if len(sweeps) > 0 {
		var keys []string
		for _, s := range sweeps {
			keys = append(keys, s.Key)
		}
		stub.Key = strings.Join(keys, ",")
	}
	if ab != nil {
		stub.New, stub.Old = ab.Sides()
	}
	if _, _, err := compare.Diff(old, &compare.Saved{Info: info, Comparison: stub}, cfg.allowDiff()); err != nil {
		return nil, fmt.Errorf("--baseline %s: %w", cfg.Baseline, err)
	}
	return old, nil
}

// writeTitledTable writes one comparison's text table, after a line
// saying what it compares when it is not the run's own.
func writeTitledTable(w io.Writer, c titled) error {
	head := "\n"
	if c.title != "" {
		head = "\ngofio diff " + c.title + ":\n"
	}
	if _, err := io.WriteString(w, head); err != nil {
		return fmt.Errorf("compare table: %w", err)
	}
	return report.WriteCompareTable(w, c.cmp)
}

// writeMarkdown writes every comparison as Markdown, each under a heading
// when it is not the run's own.
func writeMarkdown(w io.Writer, cfg *Config, cmps []titled) error {
	for i, c := range cmps {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return fmt.Errorf("markdown: %w", err)
			}
		}
		if c.title != "" {
			if _, err := fmt.Fprintf(w, "#### gofio diff %s\n\n", c.title); err != nil {
				return fmt.Errorf("markdown: %w", err)
			}
		}
		gate := -1.0
		if c.gated {
			gate = cfg.FailIfSlower
		}
		if err := report.WriteCompareMarkdown(w, c.cmp, gate); err != nil {
			return err
		}
	}
	return nil
}

// writeCIReports appends the Markdown tables to $GITHUB_STEP_SUMMARY when
// it is set, and writes --junit.
func writeCIReports(st *State, cfg *Config, cmps []titled) error {
	if len(cmps) == 0 {
		return nil
	}
	var errs []error
	if path, ok := st.Getenv("GITHUB_STEP_SUMMARY"); ok && path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			errs = append(errs, fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err))
		} else {
			errs = append(errs, writeMarkdown(f, cfg, cmps), f.Close())
		}
	}
	if cfg.JUnit != "" {
		var suites []*report.Comparison
		var gates []float64
		for _, c := range cmps {
			if !c.cmp.Compared {
				continue // one side: no test to pass or fail
			}
			suites = append(suites, c.cmp)
			g := -1.0
			if c.gated {
				g = cfg.FailIfSlower
			}
			gates = append(gates, g)
		}
		errs = append(errs, writeFile(cfg.JUnit, func(w io.Writer) error { return report.WriteJUnit(w, suites, gates) }))
	}
	return errors.Join(errs...)
}

// executeCompare runs the --compare/--sweep/--repeat plan: every point is
// parsed first, and a --baseline read and checked, so bad input exits 1
// before any I/O; then the points run in plan order. jobs are the jobs as
// resolved without the plan's overrides: what the run describes itself by.
func executeCompare(ctx context.Context, st *State, cfg *Config, jobs []*jobfile.Job, in jobfile.Input) int {
	defaultComparisonFormat(cfg)
	p, err := prepareComparison(cfg, jobs, in)
	if err != nil {
		return st.fail(err)
	}
	if err := checkOutputDirs(cfg); err != nil {
		return st.fail(err)
	}
	out, closeOut, err := openOutput(st, cfg)
	if err != nil {
		return st.fail(err)
	}
	defer closeOut()

	normal := hasFormat(cfg, "normal")
	var all compare.Concat
	runAt := func(ctx context.Context, sets []string) (*report.Result, error) {
		return runWithETA(ctx, st, cfg, p.parsed.Jobs(sets), io.Discard, nil)
	}
	var writeErrs []error
	jsonDir := &compare.JSONDir{Dir: cfg.JSONDir}
	onResult := func(pt compare.Point, res *report.Result) {
		st.logf("ran %s", pt)
		if normal {
			fmt.Fprintf(out, "\ngofio point: %s\n", pt)
			writeErrs = append(writeErrs, report.WriteNormal(out, res))
		}
		if cfg.JSONDir != "" {
			writeErrs = append(writeErrs, writeJSONFile(jsonDir.Add(pt, res), compare.ForFioPlot(res)))
		}
		all.Add(res)
		p.capacity.add(pt, res)
	}
	cmp, runErr := runPlan(ctx, st, cfg, p, runAt, onResult)
	if runErr != nil && !errors.Is(runErr, compare.ErrInterrupted) && len(all.Result().Jobs) == 0 {
		// Nothing ran: no report, table or file, as for a plain run the
		// run core refuses.
		return st.fail(runErr)
	}
	if cfg.JSONDir != "" {
		writeErrs = append(writeErrs, jsonDir.Finish())
	}
	var cmps []titled
	var hist *report.History
	if cmp != nil {
		recordDisks(p.info, all.Result())
		p.capacity.finish(cmp)
		if p.ab == nil {
			compare.Judge(cmp, cfg.GateMetric)
			compare.SetGate(cmp, -1)
		}
		cmps = append(cmps, titled{"", cmp, p.ab != nil, nil, false})
		if p.baseline != nil && runErr == nil {
			d, err := diffBaseline(st, cfg, p, cmp)
			if err != nil {
				writeErrs = append(writeErrs, err)
			} else {
				cmps = append(cmps, titled{"against the baseline " + cfg.Baseline, d, true, checkRunner(st, cfg, p.baseline.Info, p.info), false})
			}
		}
		if cfg.History != "" && runErr == nil {
			hist = historyOfRun(st, cfg, p, cmp)
		}
		writeErrs = append(writeErrs, writeComparisons(cfg, out, comparisons{cmps: cmps, headings: true, json: func(w io.Writer, plus bool) error {
			res := all.Result()
			res.Comparison, res.Run, res.History, res.Capacity = cmp, p.info, hist, p.capacity.report()
			if len(cmps) > 1 {
				res.Baseline = baselineVerdict(cfg, cmps[1])
			}
			return report.WriteJSON(w, res, plus)
		}}))
		writeErrs = append(writeErrs, writeComparisonFiles(st, cfg, cmps, p.info), p.capacity.writeFiles(cfg, cmp))
	}
	if err := errors.Join(writeErrs...); err != nil {
		return st.fail(err)
	}
	switch {
	case errors.Is(runErr, compare.ErrInterrupted):
		st.logf("%v", runErr)
		return ExitInterrupted
	case runErr != nil:
		return st.fail(runErr)
	}
	if code := exitCode(all.Result()); code != ExitOK {
		return code
	}
	writeVerdicts(st, cfg, cmps)
	p.capacity.writeLines(st, cfg)
	code := worseExit(gate(st, cfg, cmps), p.capacity.exit(st))
	if hist != nil {
		writeHistoryVerdict(st, cfg, hist)
		code = worseExit(code, historyExit(st, hist))
	}
	return code
}

// runPlan runs the plan between two readings of the runner's canary: a
// --compare in rounds (compare.Rounds, judged as it goes), a plan of one
// side point by point (compare.Run).
func runPlan(ctx context.Context, st *State, cfg *Config, p *comparisonPlan, run compare.RunFunc, onResult func(compare.Point, *report.Result)) (*report.Comparison, error) {
	p.info.Canary = &canary.Record{}
	st.readCanary(ctx, &p.info.Canary.Before)
	var cmp *report.Comparison
	var err error
	switch {
	case p.capacity.adaptive():
		cmp, err = p.capacity.run(ctx, cfg, p, run, onResult)
	case p.ab != nil:
		rounds := compare.Rounds{Design: p.design, KernelRef: p.kernelRef}
		cmp, err = rounds.Run(ctx, cfg.Spec.Sweeps, p.ab, run, onResult)
	default:
		cmp, err = compare.Run(ctx, p.points, nil, run, onResult)
	}
	if err == nil {
		st.readCanary(ctx, &p.info.Canary.After)
	}
	return cmp, err
}

// defaultComparisonFormat makes the table and its verdict line
// (--output-format=compare) the output of a --compare or --sweep run that
// did not ask for a format: the per-run fio reports of a sweep in rounds
// run to thousands of lines, and come only when asked for
// (--output-format=normal, --json-dir).
func defaultComparisonFormat(cfg *Config) {
	if !cfg.OutputFormatSet && (cfg.Compare != nil || len(cfg.Sweeps) > 0) {
		cfg.OutputFormats = []string{"compare"}
	}
}

// comparisonPlan is a --compare/--sweep/--repeat/--baseline run made ready
// before any I/O: its points with their jobs parsed, the run's description
// and the baseline it is judged against (nil without --baseline).
type comparisonPlan struct {
	ab *compare.AB
	// design is how the rounds of a --compare run (ab != nil); points are
	// the runs of a plan of one side.
	design compare.Design
	// kernelRef says the rounds run the kernel's SQPOLL reference too
	// (compare.WantsKernelRef, --kernel-ref).
	kernelRef bool
	points    []compare.Point
	parsed    *compare.Parsed
	info      *report.RunInfo
	baseline  *compare.Saved
	// history are the saved runs in --history's directory, read before
	// any I/O, and the files there that are not saved runs; nil without
	// --history.
	history        []*compare.Saved
	historySkipped []string
	// capacity is --slo's run (capacity.go), nil without it; parse
	// parses a point's jobs, for the points a search plans as it goes.
	capacity *capacityRun
	parse    compare.ParseFunc
}

// prepareComparison checks the gate, reads and checks --baseline and
// parses every point of the plan, so that bad input fails before any I/O.
func prepareComparison(cfg *Config, jobs []*jobfile.Job, in jobfile.Input) (*comparisonPlan, error) {
	ab, sweeps := cfg.Spec.AB, cfg.Spec.Sweeps
	if ab == nil {
		// A --compare runs as many rounds as its rule needs; only a
		// baseline diff of one side's repeats needs enough of them.
		if err := checkGate(cfg, cfg.Repeat); err != nil {
			return nil, err
		}
	}
	if cfg.FailIfSlower >= 0 && ab == nil && cfg.Baseline == "" && cfg.History == "" {
		return nil, gateError(cfg, errors.New("--fail-if-slower needs --compare, --baseline or --history (or gofio diff): there is nothing to compare"))
	}
	p := &comparisonPlan{ab: ab, info: withFleet(cfg, describeRun(jobs, ab, sweeps, cfg.Repeat))}
	if cfg.Drift >= 0 {
		d := cfg.Drift
		p.info.DriftPct = &d
	}
	if cfg.Baseline != "" {
		var err error
		if p.baseline, err = preflightBaseline(cfg, p.info, ab, sweeps); err != nil {
			return nil, err
		}
	}
	if cfg.History != "" {
		var err error
		if p.history, p.historySkipped, err = compare.ReadHistory(cfg.History); err != nil {
			return nil, fmt.Errorf("--history: %w", err)
		}
	}
	var err error
	if p.capacity, sweeps, err = prepareCapacity(cfg, p, sweeps, jobs); err != nil {
		return nil, err
	}
	p.points = compare.Plan(sweeps, ab, cfg.Repeat)
	if ab != nil {
		// Every round runs the points of one repeat again.
		p.points = compare.Plan(sweeps, ab, 1)
		p.design = compare.Design{Rows: len(p.points) / 2, MinRounds: cfg.Repeat, Gated: cfg.FailIfSlower >= 0,
			ThresholdPct: max(cfg.FailIfSlower, 0), GateMetric: cfg.GateMetric, Budget: cfg.Budget}
		if p.kernelRef = cfg.KernelRef && compare.WantsKernelRef(ab, sweeps, jobs); p.kernelRef {
			p.points = compare.WithKernelRef(p.points) // parsed with the rest
		}
	}
	p.parse = func(sets []string) ([]*jobfile.Job, error) {
		jobs, err := parsePoint(in, sets)
		if err != nil {
			return nil, err
		}
		for _, j := range jobs {
			if err := j.UnrunError(); err != nil {
				return nil, err
			}
		}
		return jobs, target.CheckTargets(jobs)
	}
	parsed, err := compare.ParsePoints(p.points, p.parse)
	if err != nil {
		return nil, pointError(cfg, ab, sweeps, err)
	}
	p.parsed = parsed
	if ab != nil {
		if err := planBudget(p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// diffBaseline compares this run's comparison cmp with the --baseline and
// judges it; a drift the diff settled on is recorded in the run's info.
func diffBaseline(st *State, cfg *Config, p *comparisonPlan, cmp *report.Comparison) (*report.Comparison, error) {
	d, warnings, err := compare.Diff(p.baseline, &compare.Saved{Path: "this run", Info: p.info, Comparison: cmp}, cfg.allowDiff())
	for _, w := range warnings {
		st.logf("--baseline %s: %s", cfg.Baseline, w)
	}
	if err != nil {
		return nil, err
	}
	judgeDiff(cfg, d, p.baseline)
	if d.DriftPct > 0 && p.info.DriftPct == nil {
		p.info.DriftPct = &d.DriftPct
	}
	return d, nil
}

// baselineVerdict is the JSON's account of the diff d against --baseline:
// the gate and its verdict, "not gated" without --fail-if-slower.
func baselineVerdict(cfg *Config, c titled) *report.Baseline {
	b := &report.Baseline{Path: cfg.Baseline, FailIfSlower: -1, Verdict: c.outcome(), Comparison: c.cmp, Runner: c.runner}
	if cfg.FailIfSlower >= 0 {
		b.FailIfSlower = cfg.FailIfSlower
	}
	return b
}

// writeComparisonFiles writes the files a comparison asks for beside its
// output: --compare-csv, --plot and the CI benchmark files (--benchfmt,
// --github-benchmark, --bencher) of the first comparison, described by
// info, and the CI reports (--junit, $GITHUB_STEP_SUMMARY) of all.
func writeComparisonFiles(st *State, cfg *Config, cmps []titled, info *report.RunInfo) error {
	var errs []error
	if cfg.CompareCSV != "" {
		errs = append(errs, writeFile(cfg.CompareCSV, func(w io.Writer) error { return report.WriteCompareCSV(w, cmps[0].cmp) }))
	}
	if cfg.Plot != "" {
		errs = append(errs, writeFile(cfg.Plot, func(w io.Writer) error { return report.WriteSVG(w, cmps[0].cmp) }))
	}
	errs = append(errs, writeBenchFiles(cfg, cmps[0].cmp, info))
	errs = append(errs, writeCIReports(st, cfg, cmps))
	return errors.Join(errs...)
}

// parsePoint parses the jobs with a sweep point's overrides after the
// user's own --set values.
func parsePoint(in jobfile.Input, sets []string) ([]*jobfile.Job, error) {
	in.Sets = append(append([]string(nil), in.Sets...), sets...)
	in.Warn = io.Discard // warnings were printed by the first parse
	return jobfile.Parse(in)
}
