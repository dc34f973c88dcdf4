package cmd

// This file is gofio history DIR [NEW.json] (a run judged against the
// earlier runs of the same jobs on the same runner) and --history DIR, the
// same judgement at the end of a run.

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gofio/gofio/compare"
	"github.com/gofio/gofio/report"
)

// historyFlags are gofio history's options.
type historyFlags struct {
	last         int
	failIfSlower float64
	gateMetric   string
	format       string // "text" or "json"
}

// history is gofio history DIR [NEW.json]: NEW.json, or the newest run in
// DIR, judged against the earlier runs in DIR; the table (or JSON) on
// stdout, then the verdict line; exit ExitSlower, ExitRunnerChanged or 0.
func (st *State) history(args []string, f historyFlags) int {
	if len(args) < 1 || len(args) > 2 {
		return st.fail(errors.New("usage: gofio history [--last N] [--fail-if-slower PCT] [--gate-metric avg|p99|iops] [--output-format text|json] DIR [NEW.json]"))
	}
	switch f.gateMetric {
	case report.GateAvg, report.GateP99, report.GateIOPS:
	default:
		return st.fail(fmt.Errorf("history: invalid --gate-metric %q (valid: avg, p99, iops)", f.gateMetric))
	}
	if f.format != "text" && f.format != "json" {
		return st.fail(fmt.Errorf("history: invalid --output-format %q (valid: text, json)", f.format))
	}
	dir := args[0]
	runs, skipped, err := compare.ReadHistory(dir)
	if err != nil {
		return st.fail(err)
	}
	var cur *compare.Saved
	if len(args) == 2 {
		if cur, err = compare.ReadSaved(args[1]); err != nil {
			return st.fail(fmt.Errorf("history: %w", err))
		}
	} else if len(runs) > 0 {
		cur = runs[len(runs)-1]
	} else {
		return st.fail(fmt.Errorf("history: no saved gofio run in %s", dir))
	}
	h, err := judgeHistory(st, dir, runs, skipped, cur, f)
	if err != nil {
		return st.fail(err)
	}
	if f.format == "json" {
		err = report.WriteHistoryJSON(st.Stdout, h)
	} else {
		err = report.WriteHistoryTable(st.Stdout, h)
	}
	if err != nil {
		return st.fail(err)
	}
	fmt.Fprintln(st.Stdout, historyVerdictLine(h))
	return historyExit(st, h)
}

// judgeHistory judges cur against runs (compare.History) and settles the
// verdict: a failed gate, a runner change that explains the outcome, a
// pass, or not gated.
func judgeHistory(st *State, dir string, runs []*compare.Saved, skipped []string, cur *compare.Saved, f historyFlags) (*report.History, error) {
	h, err := compare.History(runs, cur, compare.HistoryOptions{Dir: dir, Last: f.last, GateMetric: f.gateMetric, FailIfSlower: f.failIfSlower})
	if h != nil {
		h.Skipped = append(skipped, h.Skipped...)
	}
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	failed := len(compare.HistoryFailed(h)) > 0
	switch {
	case f.failIfSlower < 0:
		h.Verdict = "not gated"
	case h.Runner.Explains(failed):
		h.Verdict = report.VerdictRunnerChanged
	case failed:
		h.Verdict = "fail"
	default:
		h.Verdict = "pass"
	}
	if h.Runner != nil && h.Runner.Unchecked != "" && f.failIfSlower >= 0 {
		st.logf("warning: %s: the runner is not checked, and a slower runner would read as slower code", h.Runner.Unchecked)
	}
	return h, nil
}

// historyVerdictLine says in one line what the history concluded, e.g.
// "gofio verdict against the history runs/: pass: no row slower by more
// than 5% beyond the runs' own spread; 4 rows: 4 ~".
func historyVerdictLine(h *report.History) string {
	counts := map[string]int{}
	var order []string
	for _, r := range h.Rows {
		if counts[r.Verdict] == 0 {
			order = append(order, r.Verdict)
		}
		counts[r.Verdict]++
	}
	parts := make([]string, len(order))
	for i, v := range order {
		parts[i] = fmt.Sprintf("%d %s", counts[v], v)
	}
	rows := fmt.Sprintf("%d rows: %s", len(h.Rows), strings.Join(parts, ", "))
	what := "gofio verdict against the history " + h.Dir
	note := ""
	if w := h.Runner.Words(); w != "" {
		note = " (" + strings.Replace(w, "than in the old run", "than in the history", 1) + ")"
	}
	judged := counts[report.VerdictTooFewRuns] < len(h.Rows)
	switch {
	case !judged:
		return fmt.Sprintf("%s: not judged: fewer than %d earlier runs of these jobs on this runner; %s", what, compare.MinHistoryRuns, rows)
	case h.Verdict == "not gated":
		return fmt.Sprintf("%s: not gated (no --fail-if-slower)%s; %s", what, note, rows)
	case h.Verdict == report.VerdictRunnerChanged:
		return fmt.Sprintf("%s: RUNNER CHANGED%s: the rows cannot tell code from runner; %s", what, note, rows)
	case h.Verdict == "fail":
		var failed []string
		for _, r := range compare.HistoryFailed(h) {
			failed = append(failed, fmt.Sprintf("%s %+.1f%% [%+.1f%%, %+.1f%%]", r.Key, r.DeltaPct, r.LoPct, r.HiPct))
		}
		return fmt.Sprintf("%s: FAIL: slower by more than %g%% beyond the runs' own spread at %s; %s", what, h.FailIfSlower, strings.Join(failed, ", "), rows)
	}
	return fmt.Sprintf("%s: pass: no row slower by more than %g%% beyond the runs' own spread%s; %s", what, h.FailIfSlower, note, rows)
}

// historyExit is the exit code of a judged history.
func historyExit(st *State, h *report.History) int {
	switch h.Verdict {
	case "fail":
		return ExitSlower
	case report.VerdictRunnerChanged:
		st.logf("%s: %s", report.VerdictRunnerChanged, h.Runner.Words())
		return ExitRunnerChanged
	}
	return ExitOK
}

// worseExit is the exit code that says more of two gates' outcomes: a
// failed gate over a runner change over an inconclusive one over a pass.
func worseExit(a, b int) int {
	rank := func(c int) int {
		switch c {
		case ExitSlower:
			return 3
		case ExitRunnerChanged:
			return 2
		case ExitInconclusive:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// writeHistoryVerdict writes the --history verdict line where the other
// verdict lines go.
func writeHistoryVerdict(st *State, cfg *Config, h *report.History) {
	w := io.Writer(st.Stdout)
	if cfg.Output == "" && (hasFormat(cfg, "json") || hasFormat(cfg, "json+")) {
		w = st.Stderr
	}
	fmt.Fprintln(w, historyVerdictLine(h))
}

// historyOfRun judges the run just made (its comparison cmp) against the
// --history directory's runs; nil, after saying why, when there is no
// earlier run of these jobs on this runner to judge against (the first
// run of a pipeline).
func historyOfRun(st *State, cfg *Config, p *comparisonPlan, cmp *report.Comparison) *report.History {
	cur := &compare.Saved{Path: "this run", Info: p.info, Comparison: cmp, Time: time.Now().UTC()}
	f := historyFlags{last: compare.HistoryLast, failIfSlower: cfg.FailIfSlower, gateMetric: cfg.GateMetric}
	h, err := judgeHistory(st, cfg.History, p.history, p.historySkipped, cur, f)
	if err != nil {
		st.logf("--history %s: not judged: %v", cfg.History, err)
		return nil
	}
	return h
}
