package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gofio/gofio/compare"
	"github.com/gofio/gofio/internal/buildinfo"
	"github.com/gofio/gofio/internal/hostinfo"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// This file is what gofio does for CI: the self-description of a run, the
// --baseline and gofio diff comparisons, the Markdown, step summary and
// JUnit reports, and the --fail-if-slower gate over them all.

// titled is a judged comparison with what it compares, for the reports:
// the run's own --compare (title "") or a diff against a baseline. gated
// says whether --fail-if-slower applies to it (a plain sweep has nothing
// to gate).
type titled struct {
	title string
	cmp   *report.Comparison
	gated bool
}

// driftFor returns the between-run drift allowance of a diff against old:
// --drift when given, else the one old stores (RunInfo.DriftPct), else 0
// with a warning, since runs made apart in time drift beyond the spread
// within each (docs/ci.md).
func driftFor(st *State, cfg *Config, old *compare.Saved) float64 {
	if cfg.Drift >= 0 {
		return cfg.Drift
	}
	if old.Info != nil && old.Info.DriftPct != nil {
		return *old.Info.DriftPct
	}
	if cfg.FailIfSlower >= 0 {
		st.logf("warning: %s carries no drift allowance and --drift was not given: the gate assumes two runs made apart in time differ only by their within-run noise, which a loaded or drifting runner breaks; measure the drift with gofio drift and pass --drift (docs/ci.md)", old.Path)
	}
	return 0
}

// judgeDiff judges a diff against a baseline and grants it the drift
// allowance.
func judgeDiff(st *State, cfg *Config, d *report.Comparison, old *compare.Saved) {
	compare.Judge(d, cfg.GateMetric)
	compare.ApplyDrift(d, driftFor(st, cfg, old))
}

// verdictLine says in one line what a gated or baseline comparison
// concluded: the rows by verdict and, under --fail-if-slower, pass or
// fail, e.g. "gofio verdict against the baseline b.json: pass: no row
// slower by more than 5% (+ 8% drift) beyond noise; 4 rows: 1 faster, 3 ~".
func verdictLine(cfg *Config, c titled) string {
	counts := map[string]int{}
	var order []string
	for i := range c.cmp.Rows {
		v := "not compared"
		if s := c.cmp.Rows[i].Stats; s != nil {
			v = s.Verdict
		}
		if c.cmp.SameSchedule(&c.cmp.Rows[i]) {
			v = "same schedule"
		}
		if counts[v] == 0 {
			order = append(order, v)
		}
		counts[v]++
	}
	parts := make([]string, len(order))
	for i, v := range order {
		parts[i] = fmt.Sprintf("%d %s", counts[v], v)
	}
	what := "gofio verdict"
	if c.title != "" {
		what += " " + c.title
	}
	rows := fmt.Sprintf("%d rows: %s", len(c.cmp.Rows), strings.Join(parts, ", "))
	drift := ""
	if c.cmp.DriftPct > 0 {
		drift = fmt.Sprintf(" (+ %g%% drift)", c.cmp.DriftPct)
	}
	switch {
	case !c.gated || cfg.FailIfSlower < 0:
		return fmt.Sprintf("%s: not gated (no --fail-if-slower); %s", what, rows)
	case len(compare.Gate(c.cmp, cfg.FailIfSlower)) > 0:
		return fmt.Sprintf("%s: FAIL: slower by more than %g%%%s beyond noise; %s", what, cfg.FailIfSlower, drift, rows)
	}
	return fmt.Sprintf("%s: pass: no row slower by more than %g%%%s beyond noise; %s", what, cfg.FailIfSlower, drift, rows)
}

// writeVerdicts writes the verdict line of every comparison that compared
// two sides: to stdout, or to stderr where stdout carries JSON that a line
// after it would spoil.
func writeVerdicts(st *State, cfg *Config, cmps []titled) {
	w := st.Stdout
	if cfg.Output == "" && (hasFormat(cfg, "json") || hasFormat(cfg, "json+")) {
		w = st.Stderr
	}
	for _, c := range cmps {
		if c.cmp.Compared {
			fmt.Fprintln(w, verdictLine(cfg, c))
		}
	}
}

// applyRunOptions takes compare=, sweep=, repeat= and fail_if_slower= from
// the job files' [global] where the command line did not give --compare,
// --sweep, --repeat or --fail-if-slower: a job file can carry its own
// sweep and gate. Every job must agree on them.
func applyRunOptions(cfg *Config, jobs []*jobfile.Job) error {
	if len(jobs) == 0 {
		spec, err := compare.ParseSpec(cfg.Compare, cfg.Sweeps, canonicalOption)
		cfg.Spec = spec
		return err
	}
	ro := jobs[0].Run
	for _, j := range jobs[1:] {
		if !reflect.DeepEqual(j.Run, ro) {
			return fmt.Errorf("%s and %s: jobs disagree on compare=, sweep=, repeat= or fail_if_slower=; give them once, in the first file's [global]",
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
	return nil
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
	return gateError(cfg, fmt.Errorf("--fail-if-slower needs --repeat %d or more (got %d): with fewer repeats a side, the Mann-Whitney U test has too little power to tell a slowdown from noise at p < %g (see the README)",
		compare.MinGateRepeats, repeats, compare.Alpha))
}

// describeRun says where and how this run is made, for its JSON output.
func describeRun(jobs []*jobfile.Job, ab *compare.AB, sweeps []compare.Sweep, repeat int) *report.RunInfo {
	info := &report.RunInfo{Version: versionString(), CPUs: runtime.NumCPU(), Repeat: repeat, Sweeps: []string{}}
	info.Host, info.Kernel = hostinfo.Hostname(), hostinfo.Kernel()
	info.CPUModel = hostinfo.CPUModel()
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
	if _, _, err := compare.Diff(old, &compare.Saved{Info: info, Comparison: stub}, cfg.AllowDifferentJobs); err != nil {
		return nil, fmt.Errorf("--baseline %s: %w", cfg.Baseline, err)
	}
	return old, nil
}

// minRepeats is the fewest repeats any side of c ran.
func minRepeats(c *report.Comparison) int {
	n := -1
	for _, r := range c.Rows {
		for _, s := range []*report.ComparisonSide{&r.New, &r.Old} {
			if s.Ran() && (n < 0 || len(s.Repeats) < n) {
				n = len(s.Repeats)
			}
		}
	}
	return max(n, 0)
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

// gate applies --fail-if-slower to every gated comparison: ExitSlower
// when any row of any of them is slower beyond noise, after saying which.
func gate(st *State, cfg *Config, cmps []titled) int {
	if cfg.FailIfSlower < 0 {
		return ExitOK
	}
	code := ExitOK
	for _, c := range cmps {
		if !c.gated {
			continue
		}
		if err := compare.CheckSlower(c.cmp, cfg.FailIfSlower); err != nil {
			if c.title != "" {
				st.logf("%s: %v", c.title, err)
			} else {
				st.logf("%v", err)
			}
			code = ExitSlower
		}
	}
	return code
}

// runDiff is gofio diff OLD.json NEW.json: the two saved runs compared
// point by point with the same statistics, reports and gate as --compare.
func runDiff(st *State, cfg *Config) int {
	if len(cfg.JobFiles) != 2 || len(cfg.JobOptions) > 0 {
		return st.fail(errors.New("usage: gofio diff [--fail-if-slower PCT] [--drift PCT] [--gate-metric avg|p99|iops] [--allow-different-jobs] [--output-format compare|markdown|json] [--junit FILE] OLD.json NEW.json"))
	}
	old, err := compare.ReadSaved(cfg.JobFiles[0])
	if err != nil {
		return st.fail(err)
	}
	cur, err := compare.ReadSaved(cfg.JobFiles[1])
	if err != nil {
		return st.fail(err)
	}
	if err := checkGate(cfg, min(minRepeats(old.Comparison), minRepeats(cur.Comparison))); err != nil {
		return st.fail(err)
	}
	d, warnings, err := compare.Diff(old, cur, cfg.AllowDifferentJobs)
	for _, w := range warnings {
		st.logf("warning: %s", w)
	}
	if err != nil {
		return st.fail(err)
	}
	judgeDiff(st, cfg, d, old)
	out, closeOut, err := openOutput(st, cfg)
	if err != nil {
		return st.fail(err)
	}
	defer closeOut()
	cmps := []titled{{cfg.JobFiles[0] + " -> " + cfg.JobFiles[1], d, true}}
	var errs []error
	errs = append(errs, writeComparisons(cfg, out, comparisons{cmps: cmps, json: func(w io.Writer, _ bool) error { return report.WriteCompareJSON(w, d) }}))
	errs = append(errs, writeComparisonFiles(st, cfg, cmps))
	if err := errors.Join(errs...); err != nil {
		return st.fail(err)
	}
	writeVerdicts(st, cfg, cmps)
	return gate(st, cfg, cmps)
}

// drift is gofio drift RUN.json...: the between-run drift of same-setting
// runs (compare.DriftPct), row by row, and the --drift it recommends.
func (st *State) drift(files []string, gateMetric string) error {
	switch gateMetric {
	case report.GateAvg, report.GateP99, report.GateIOPS:
	default:
		return fmt.Errorf("drift: invalid --gate-metric %q (valid: avg, p99, iops)", gateMetric)
	}
	var runs []*compare.Saved
	for _, f := range files {
		r, err := compare.ReadSaved(f)
		if err != nil {
			return fmt.Errorf("drift: %w", err)
		}
		runs = append(runs, r)
	}
	rows, pct, err := compare.DriftPct(runs, gateMetric)
	if err != nil {
		return fmt.Errorf("drift: %w", err)
	}
	tw := tabwriter.NewWriter(st.Stdout, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "row\tmedian %s of each run\tsd of log\tdrift %%\t\n", gateMetric)
	for _, r := range rows {
		ms := make([]string, len(r.Medians))
		for i, m := range r.Medians {
			ms[i] = strconv.FormatFloat(m, 'g', 5, 64)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.4f\t%.1f\t\n", r.Value, strings.Join(ms, " "), r.SDLog, r.Pct)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("drift: %w", err)
	}
	_, err = fmt.Fprintf(st.Stdout, "\n%d runs; drift allowance = exp(t·√2·sd) - 1 with t the %g quantile of Student's t, %d degrees of freedom: "+
		"a fresh pair of runs of the unchanged job drifts further one way with probability %g per row\n--drift %s\n",
		len(runs), 1-compare.DriftFalseAlarm, len(runs)-1, compare.DriftFalseAlarm, strconv.FormatFloat(math.Ceil(pct), 'f', -1, 64))
	return err
}
