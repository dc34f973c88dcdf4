package cmd

// This file is gofio diff (two saved runs compared point by point) and
// gofio drift (the between-run drift of same-setting runs).

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gofio/gofio/compare"
	"github.com/gofio/gofio/report"
)

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

// runDiff is gofio diff OLD.json NEW.json: the two saved runs compared
// point by point with the same statistics, reports and gate as --compare.
func runDiff(st *State, cfg *Config) int {
	if len(cfg.JobFiles) != 2 || len(cfg.JobOptions) > 0 {
		return st.fail(errors.New("usage: gofio diff " + diffUsage))
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
	d, warnings, err := compare.Diff(old, cur, cfg.allowDiff())
	for _, w := range warnings {
		st.logf("warning: %s", w)
	}
	if err != nil {
		return st.fail(err)
	}
	rc := checkRunner(st, cfg, old.Info, cur.Info)
	// Without a drift allowance the gate cannot judge the code; if the
	// runner moved, that is the verdict, else the diff is refused.
	noDrift := false
	if err := checkDriftKnown(cfg, old); err != nil {
		if !rc.Moved() {
			return st.fail(err)
		}
		noDrift = true
	}
	judgeDiff(cfg, d, old)
	caps, err := diffCapacities(st, cfg)
	if err != nil {
		return st.fail(err)
	}
	out, closeOut, err := openOutput(st, cfg)
	if err != nil {
		return st.fail(err)
	}
	defer closeOut()
	cmps := []titled{{cfg.JobFiles[0] + " -> " + cfg.JobFiles[1], d, true, rc, noDrift}}
	var errs []error
	errs = append(errs, writeComparisons(cfg, out, comparisons{cmps: cmps, json: func(w io.Writer, _ bool) error { return report.WriteDiffJSON(w, d, caps) }}))
	errs = append(errs, writeComparisonFiles(st, cfg, cmps, cur.Info), writeCapacityDiffPlot(cfg, caps, d))
	if err := errors.Join(errs...); err != nil {
		return st.fail(err)
	}
	writeVerdicts(st, cfg, cmps)
	writeCapacityLines(st, cfg, caps)
	return worseExit(gate(st, cfg, cmps), capacityExit(st, caps))
}

// diffUsage is gofio diff's arguments.
const diffUsage = "[--fail-if-slower PCT] [--drift PCT] [--gate-metric avg|p99|iops|STAGE] [--allow-different-jobs] [--allow-runner-change FIELDS] " +
	"[--slo OBJECTIVE] [--fail-if-capacity-below N|N%] [--capacity-plot FILE.svg] [--output-format compare|markdown|json] [--junit FILE] OLD.json NEW.json"

// drift is gofio drift RUN.json...: the between-run drift of same-setting
// runs (compare.DriftPct), row by row, and the --drift it recommends; or,
// when that allowance would leave no gate for a slowdown of detect percent
// under --fail-if-slower gate, no allowance: the runner is too noisy, by
// how much, and ExitRunnerChanged.
func (st *State) drift(files []string, gateMetric string, gate, detect float64) int {
	if !report.ValidGateMetric(gateMetric) {
		return st.fail(fmt.Errorf("drift: invalid --gate-metric %q (valid: %s)", gateMetric, strings.Join(report.GateMetrics(), ", ")))
	}
	if gate < 0 || detect <= gate {
		return st.fail(fmt.Errorf("drift: --detect %g must exceed --fail-if-slower %g (a gate of 0 or more)", detect, gate))
	}
	var runs []*compare.Saved
	for _, f := range files {
		r, err := compare.ReadSaved(f)
		if err != nil {
			return st.fail(fmt.Errorf("drift: %w", err))
		}
		runs = append(runs, r)
	}
	rows, pct, err := compare.DriftPct(runs, gateMetric)
	if err != nil {
		return st.fail(fmt.Errorf("drift: %w", err))
	}
	limit := compare.DriftLimit(gate, detect)
	tw := tabwriter.NewWriter(st.Stdout, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "row\tmedian %s of each run\tsd of log\tdrift %%\t\t\n", gateMetric)
	for _, r := range rows {
		ms := make([]string, len(r.Medians))
		for i, m := range r.Medians {
			ms[i] = strconv.FormatFloat(m, 'g', 5, 64)
		}
		over := ""
		if r.Pct >= limit {
			over = "too noisy"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.4f\t%.1f\t%s\t\n", r.Value, strings.Join(ms, " "), r.SDLog, r.Pct, over)
	}
	if err := tw.Flush(); err != nil {
		return st.fail(fmt.Errorf("drift: %w", err))
	}
	fmt.Fprintf(st.Stdout, "\n%d runs; drift allowance = exp(t·√2·sd) - 1 with t the %g quantile of Student's t, %d degrees of freedom: "+
		"a fresh pair of runs of the unchanged job drifts further one way with probability %g per row\n",
		len(runs), 1-compare.DriftFalseAlarm, len(runs)-1, compare.DriftFalseAlarm)
	if err := compare.CheckDrift(rows, gate, detect); err != nil {
		fmt.Fprintf(st.Stdout, "no --drift: %v. An allowance that large would let any slowdown pass. Quiet the runner (pin the job with cpus_allowed=, stop other work, lengthen runtime=), gate on a figure the load moves less (--gate-metric), judge against the history of runs (gofio history, which measures this noise run by run), or compare within one run (--compare)\n", err)
		return ExitRunnerChanged
	}
	fmt.Fprintf(st.Stdout, "--drift %s\n", strconv.FormatFloat(math.Ceil(pct), 'f', -1, 64))
	return ExitOK
}
