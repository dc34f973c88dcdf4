package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/gofio/gofio/compare"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/run"
)

// execute runs the parsed jobs and writes the reports: a plain run, or a
// --compare/--sweep plan of runs folded into a comparison.
func execute(ctx context.Context, st *State, cfg *Config, jobs []*jobfile.Job, in jobfile.Input) int {
	if cfg.Compare != nil || len(cfg.Sweeps) > 0 || cfg.Repeat > 1 || cfg.Baseline != "" ||
		hasFormat(cfg, "compare") || hasFormat(cfg, "markdown") || cfg.JUnit != "" {
		if !cfg.StartAt.IsZero() || cfg.FallbackEngine != "" {
			return st.fail(errors.New("--start-at and --fallback-engine apply to a plain run, not to --compare, --sweep, --repeat or --baseline"))
		}
		return executeCompare(ctx, st, cfg, jobs, in)
	}
	if cfg.FailIfSlower >= 0 || cfg.Plot != "" || cfg.CompareCSV != "" || cfg.JSONDir != "" {
		err := errors.New("--fail-if-slower, --plot, --compare-csv and --json-dir need --compare, --sweep, --repeat or --baseline: a plain run has nothing to compare")
		if cfg.Plot == "" && cfg.CompareCSV == "" && cfg.JSONDir == "" {
			err = gateError(cfg, err)
		}
		return st.fail(err)
	}
	notes := fallback(st, cfg, jobs, st.Uring.CheckAvailable)
	out, closeOut, err := openOutput(st, cfg)
	if err != nil {
		return st.fail(err)
	}
	defer closeOut()
	// The header waits until the run core has checked every job, so a job
	// it refuses leaves stdout empty.
	var header bytes.Buffer
	if hasFormat(cfg, "normal") {
		if err := report.WriteHeader(&header, jobs, versionString()); err != nil {
			st.logf("%v", err)
		}
	}
	res, err := runWithETA(ctx, st, cfg, jobs, out, header.Bytes())
	if res == nil {
		return st.fail(err)
	}
	noteFallback(res, notes)
	res.Run = withFleet(cfg, describeRun(jobs, nil, nil, 1))
	if code := writeReports(st, cfg, out, res); code != ExitOK {
		return code
	}
	if err != nil {
		return st.fail(err)
	}
	return exitCode(res)
}

// runWithETA runs jobs once with the ETA line where --eta asks for it. header
// is written to info once the run core has accepted every job, before any
// starts; layout notes ("Laying out IO file") go to info when the normal
// format is on.
func runWithETA(ctx context.Context, st *State, cfg *Config, jobs []*jobfile.Job, info io.Writer, header []byte) (*report.Result, error) {
	opts := run.Options{Warn: st.Stderr, Info: io.Discard, Version: versionString(), Compare: cfg.Compare != nil, AuxPath: cfg.AuxPath,
		StartAt: cfg.StartAt, StartLate: cfg.StartLate}
	if hasFormat(cfg, "normal") {
		opts.Info = info
	}
	var eta *report.ETA
	stop := make(chan struct{})
	done := make(chan struct{})
	var agg *aggBWLog
	aggDone := make(chan struct{})
	wantETA := etaWanted(st, cfg) && len(jobs) > 0
	if wantETA || len(header) > 0 || cfg.BandwidthLog {
		opts.OnProgress = func(ps []*report.Progress) {
			if _, err := info.Write(header); err != nil {
				st.logf("%v", err)
			}
			if cfg.BandwidthLog {
				agg = &aggBWLog{}
				go agg.run(ps, time.Now(), stop, aggDone)
			}
			if !wantETA {
				return
			}
			eta = report.NewETA(st.Stderr, ps, jobs[0].KBBase, jobs[0].UnitBase)
			eta.NewlineEvery = cfg.EtaNewline
			go func() {
				defer close(done)
				eta.Run(stop, time.Now(), time.Second)
			}()
		}
	}
	opts.IOTimeout = cfg.IOTimeout
	opts.KernelStages = cfg.KernelStages
	if cfg.StatusInterval > 0 {
		var mu sync.Mutex
		opts.StatusInterval = cfg.StatusInterval
		opts.OnStatus = func(r *report.Result) {
			mu.Lock()
			defer mu.Unlock()
			if err := writeFormats(cfg, info, r); err != nil {
				st.logf("%v", err)
			}
		}
	}
	res, err := st.runCore(ctx, jobs, opts)
	close(stop)
	if eta != nil {
		<-done
	}
	if agg != nil {
		<-aggDone
		if werr := report.WriteAggBWLogs(".", agg.samples); werr != nil {
			st.logf("%v", werr)
		}
	}
	return res, err
}

// writeReports writes res in every requested format, in fio's order (terse,
// json, normal), and the write_*_log files.
func writeReports(st *State, cfg *Config, out io.Writer, res *report.Result) int {
	errs := []error{writeFormats(cfg, out, res)}
	if wantsLogs(res) {
		errs = append(errs, report.WriteLogs(".", res))
	}
	if err := errors.Join(errs...); err != nil {
		return st.fail(err)
	}
	return ExitOK
}

// executeCompare runs the --compare/--sweep/--repeat plan: every point is
// parsed first, and a --baseline read and checked, so bad input exits 1
// before any I/O; then the points run in plan order. jobs are the jobs as
// resolved without the plan's overrides: what the run describes itself by.
func executeCompare(ctx context.Context, st *State, cfg *Config, jobs []*jobfile.Job, in jobfile.Input) int {
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
	}
	cmp, runErr := compare.Run(ctx, p.points, p.ab, runAt, onResult)
	if runErr != nil && !errors.Is(runErr, compare.ErrInterrupted) && len(all.Result().Jobs) == 0 {
		// Nothing ran: no report, table or file, as for a plain run the
		// run core refuses.
		return st.fail(runErr)
	}
	if cfg.JSONDir != "" {
		writeErrs = append(writeErrs, jsonDir.Finish())
	}
	var cmps []titled
	if cmp != nil {
		compare.Judge(cmp, cfg.GateMetric)
		cmps = append(cmps, titled{"", cmp, p.ab != nil})
		if p.baseline != nil && runErr == nil {
			d, err := diffBaseline(st, cfg, p, cmp)
			if err != nil {
				writeErrs = append(writeErrs, err)
			} else {
				cmps = append(cmps, titled{"against the baseline " + cfg.Baseline, d, true})
			}
		}
		writeErrs = append(writeErrs, writeComparisons(cfg, out, comparisons{cmps: cmps, headings: true, json: func(w io.Writer, plus bool) error {
			res := all.Result()
			res.Comparison, res.Run = cmp, p.info
			if len(cmps) > 1 {
				res.Baseline = baselineVerdict(cfg, cmps[1].cmp)
			}
			return report.WriteJSON(w, res, plus)
		}}))
		writeErrs = append(writeErrs, writeComparisonFiles(st, cfg, cmps))
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
	return gate(st, cfg, cmps)
}

// comparisonPlan is a --compare/--sweep/--repeat/--baseline run made ready
// before any I/O: its points with their jobs parsed, the run's description
// and the baseline it is judged against (nil without --baseline).
type comparisonPlan struct {
	ab       *compare.AB
	points   []compare.Point
	parsed   *compare.Parsed
	info     *report.RunInfo
	baseline *compare.Saved
}

// prepareComparison checks the gate, reads and checks --baseline and
// parses every point of the plan, so that bad input fails before any I/O.
func prepareComparison(cfg *Config, jobs []*jobfile.Job, in jobfile.Input) (*comparisonPlan, error) {
	ab, sweeps := cfg.Spec.AB, cfg.Spec.Sweeps
	if err := checkGate(cfg, cfg.Repeat); err != nil {
		return nil, err
	}
	if cfg.FailIfSlower >= 0 && ab == nil && cfg.Baseline == "" {
		return nil, gateError(cfg, errors.New("--fail-if-slower needs --compare or --baseline (or gofio diff): there is nothing to compare"))
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
	p.points = compare.Plan(sweeps, ab, cfg.Repeat)
	parsed, err := compare.ParsePoints(p.points, func(sets []string) ([]*jobfile.Job, error) {
		jobs, err := parsePoint(in, sets)
		if err != nil {
			return nil, err
		}
		for _, j := range jobs {
			if err := j.UnrunError(); err != nil {
				return nil, err
			}
		}
		return jobs, run.CheckTargets(jobs)
	})
	if err != nil {
		return nil, pointError(cfg, ab, sweeps, err)
	}
	p.parsed = parsed
	return p, nil
}

// diffBaseline compares this run's comparison cmp with the --baseline and
// judges it; a drift the diff settled on is recorded in the run's info.
func diffBaseline(st *State, cfg *Config, p *comparisonPlan, cmp *report.Comparison) (*report.Comparison, error) {
	d, warnings, err := compare.Diff(p.baseline, &compare.Saved{Path: "this run", Info: p.info, Comparison: cmp}, cfg.AllowDifferentJobs)
	for _, w := range warnings {
		st.logf("--baseline %s: %s", cfg.Baseline, w)
	}
	if err != nil {
		return nil, err
	}
	judgeDiff(st, cfg, d, p.baseline)
	if d.DriftPct > 0 && p.info.DriftPct == nil {
		p.info.DriftPct = &d.DriftPct
	}
	return d, nil
}

// baselineVerdict is the JSON's account of the diff d against --baseline:
// the gate and its verdict, "not gated" without --fail-if-slower.
func baselineVerdict(cfg *Config, d *report.Comparison) *report.Baseline {
	b := &report.Baseline{Path: cfg.Baseline, FailIfSlower: -1, Verdict: "not gated", Comparison: d}
	if cfg.FailIfSlower >= 0 {
		b.FailIfSlower, b.Verdict = cfg.FailIfSlower, "pass"
		if len(compare.Gate(d, cfg.FailIfSlower)) > 0 {
			b.Verdict = "fail"
		}
	}
	return b
}

// writeComparisonFiles writes the files a comparison asks for beside its
// output: --compare-csv and --plot of the first comparison, and the CI
// reports (--junit, $GITHUB_STEP_SUMMARY) of all.
func writeComparisonFiles(st *State, cfg *Config, cmps []titled) error {
	var errs []error
	if cfg.CompareCSV != "" {
		errs = append(errs, writeFile(cfg.CompareCSV, func(w io.Writer) error { return report.WriteCompareCSV(w, cmps[0].cmp) }))
	}
	if cfg.Plot != "" {
		errs = append(errs, writeFile(cfg.Plot, func(w io.Writer) error { return report.WriteSVG(w, cmps[0].cmp) }))
	}
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

// canonicalOption resolves a --sweep key through the option table.
func canonicalOption(key string) (string, error) {
	spec, ok := jobfile.Lookup(key)
	if !ok {
		return "", fmt.Errorf("unknown option %q", key)
	}
	return spec.Name, nil
}

// exitCode is fio's: the number of jobs that ended with an error, or
// ExitInterrupted when a signal cut the run short.
func exitCode(res *report.Result) int {
	if res.Signal != "" {
		return ExitInterrupted
	}
	failed := 0
	for _, j := range res.Jobs {
		if j.Error != 0 {
			failed++
		}
	}
	return min(failed, ExitJobErrorsMax)
}

func hasFormat(cfg *Config, f string) bool {
	for _, v := range cfg.OutputFormats {
		if v == f {
			return true
		}
	}
	return false
}

// etaWanted decides whether the status line is printed: --eta=always, or
// auto with stderr on a terminal and the normal format on.
func etaWanted(st *State, cfg *Config) bool {
	switch cfg.Eta {
	case "always":
		return true
	case "never":
		return false
	}
	return st.StderrIsTerminal && hasFormat(cfg, "normal")
}

func wantsLogs(res *report.Result) bool {
	for _, j := range res.Jobs {
		if j.Job != nil && (j.Job.WriteLatLog != "" || j.Job.WriteBWLog != "" || j.Job.WriteIOPSLog != "") {
			return true
		}
	}
	return false
}
