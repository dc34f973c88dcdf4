package cmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/gofio/gofio/compare"
	"github.com/gofio/gofio/report"
)

// This file is what a comparison concludes, as a CI job reads it: the
// verdict line, the exit code of --fail-if-slower, and the budget of a
// gated --compare checked before any I/O.

// verdictLine says in one line what a comparison concluded (its Verdict):
// pass, FAIL with the failing rows, INCONCLUSIVE with the undecided rows
// and the interval each reached, or not gated; then the rows by verdict
// and, for rounds, what they took (and, inconclusive, what the undecided
// rows would need: report.DecideNote), e.g. "gofio verdict: pass: no row
// slower by more than 5% beyond noise; 3 rows: 2 same, 1 no result; 16 to
// 24 rounds a row, 1m40s of the 15m budget".
func verdictLine(c titled) string {
	cmp := c.cmp
	what := "gofio verdict"
	if c.title != "" {
		what += " " + c.title
	}
	tail := "; " + rowCounts(cmp) + roundsNote(cmp)
	if !cmp.Compared {
		return what + ": one side, nothing to judge (no --compare)" + tail
	}
	beyond := fmt.Sprintf("by more than %g%%", cmp.ThresholdPct)
	if cmp.DriftPct > 0 {
		beyond += fmt.Sprintf(" (+ %g%% drift)", cmp.DriftPct)
	}
	note := "" // what the runner's canary saw, when it moved but explains nothing
	if w := c.runner.Words(); w != "" {
		note = " (" + w + ")"
	}
	switch c.outcome() {
	case report.VerdictRunnerChanged:
		why := "a faster runner could hide a slowdown"
		switch {
		case c.noDrift:
			why = "no drift allowance is known, so nothing tells the runner's drift from the code's"
		case cmp.Verdict == report.GateFail:
			why = "a slower runner explains the rows that are slower"
		}
		return fmt.Sprintf("%s: RUNNER CHANGED: %s, and %s: the rows cannot tell code from runner%s", what, c.runner.Words(), why, tail)
	case report.GateFail:
		return fmt.Sprintf("%s: FAIL: slower %s beyond noise%s at %s%s", what, beyond, note, rowList(cmp, compare.Gate(cmp, cmp.ThresholdPct)), tail)
	case report.GateInconclusive:
		var undecided []report.ComparisonRow
		for i := range cmp.Rows {
			if cmp.RowVerdict(&cmp.Rows[i]) == report.VerdictInconclusive {
				undecided = append(undecided, cmp.Rows[i])
			}
		}
		why := "after the most rounds the rule takes"
		if cmp.Design != nil && cmp.Design.BudgetSpent {
			why = fmt.Sprintf("when the --budget of %s ran out", shortDuration(time.Duration(cmp.Design.Budget*float64(time.Second))))
		}
		if l := report.DecideNote(cmp); l != "" {
			tail += "; " + l
		}
		return fmt.Sprintf("%s: INCONCLUSIVE: no row slower %s beyond noise%s, but %d undecided %s: %s%s",
			what, beyond, note, len(undecided), why, rowList(cmp, undecided), tail)
	case report.GatePass:
		return fmt.Sprintf("%s: pass: no row slower %s beyond noise%s%s", what, beyond, note, tail)
	}
	if d := cmp.Design; d != nil && strings.Contains(tail, report.VerdictTooFew) {
		tail += fmt.Sprintf("; a verdict needs %d rounds a row here (--repeat %d)", d.IntervalRounds, d.IntervalRounds)
	}
	if note != "" {
		tail += "; " + c.runner.Words()
	}
	return what + ": not gated (no --fail-if-slower)" + tail
}

// rowCounts counts the rows by verdict, in order of first appearance:
// "3 rows: 2 same, 1 no result".
func rowCounts(c *report.Comparison) string {
	counts := map[string]int{}
	var order []string
	for i := range c.Rows {
		v := c.RowVerdict(&c.Rows[i])
		if v == "" {
			continue
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
	s := plural(len(c.Rows), "row")
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return s
}

// rowList names rows with the change each showed and its interval, e.g.
// "iodepth=64 (+7.10% [+6.02%, +8.31%] after 16 rounds)".
func rowList(c *report.Comparison, rows []report.ComparisonRow) string {
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = c.Key + "=" + r.Value
		s := r.Stats
		if s == nil {
			continue
		}
		ci := "no interval yet"
		if s.HasInterval() {
			ci = fmt.Sprintf("[%+.2f%%, %+.2f%%]", s.LoPct, s.HiPct)
		}
		if s.Paired {
			parts[i] += fmt.Sprintf(" (%+.2f%% %s after %d rounds)", s.DeltaPct, ci, s.NewN)
		} else {
			parts[i] += fmt.Sprintf(" (%+.2f%% %s p=%.3g)", s.DeltaPct, ci, s.P)
		}
	}
	return strings.Join(parts, ", ")
}

// roundsNote says what the rounds of a paired comparison took: "; 16 to
// 24 rounds a row, 1m40s of the 15m budget"; "" for other comparisons.
func roundsNote(c *report.Comparison) string {
	if c.Design == nil {
		return ""
	}
	lo, hi := 0, 0
	for i := range c.Rows {
		n := len(c.Rows[i].New.Repeats)
		if i == 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	s := fmt.Sprintf("; %d rounds a row", lo)
	if hi != lo {
		s = fmt.Sprintf("; %d to %d rounds a row", lo, hi)
	}
	took := shortDuration(time.Duration(c.Design.Elapsed * float64(time.Second)))
	if c.Design.Budget > 0 {
		return s + fmt.Sprintf(", %s of the %s budget", took, shortDuration(time.Duration(c.Design.Budget*float64(time.Second))))
	}
	return s + ", " + took
}

// shortDuration writes d to the second, without a trailing zero unit:
// "15m", "1m40s", "2h".
func shortDuration(d time.Duration) string {
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// plural writes "1 row", "2 rows".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// writeVerdicts writes the verdict line of every comparison: to stdout,
// or to stderr where stdout carries JSON that a line after it would spoil.
func writeVerdicts(st *State, cfg *Config, cmps []titled) {
	w := st.Stdout
	if cfg.Output == "" && (hasFormat(cfg, "json") || hasFormat(cfg, "json+")) {
		w = st.Stderr
	}
	for _, c := range cmps {
		fmt.Fprintln(w, verdictLine(c))
	}
}

// gate returns the exit code of the gated comparisons: ExitSlower when any
// of them fails (after saying which rows, on stderr), else
// ExitRunnerChanged when a comparison across runs blames the runner, else
// ExitInconclusive when any is inconclusive, else ExitOK.
func gate(st *State, cfg *Config, cmps []titled) int {
	if cfg.FailIfSlower < 0 {
		return ExitOK
	}
	code := ExitOK
	for _, c := range cmps {
		if !c.gated {
			continue
		}
		prefix := ""
		if c.title != "" {
			prefix = c.title + ": "
		}
		switch c.outcome() {
		case report.VerdictRunnerChanged:
			st.logf("%s%s: %s", prefix, report.VerdictRunnerChanged, c.runner.Words())
			if code != ExitSlower {
				code = ExitRunnerChanged
			}
		case report.GateFail:
			st.logf("%s%v", prefix, compare.CheckSlower(c.cmp, cfg.FailIfSlower))
			code = ExitSlower
		case report.GateInconclusive:
			if code == ExitOK {
				code = ExitInconclusive
			}
		}
	}
	return code
}

// planBudget plans a gated --compare within its --budget, before any I/O:
// it refuses one whose budget cannot cover the first look of every row
// (rows x rounds x 2 sides x the longest time-based job's runtime and
// ramp_time: such a run could only end inconclusive), and sets the most
// rounds a row is planned for to what the budget gives it
// (compare.PlanRounds), so that short runs are not stopped by the looks
// long before the budget.
func planBudget(p *comparisonPlan) error {
	d := &p.design
	if !d.Gated || d.Budget <= 0 {
		return nil
	}
	var run time.Duration
	for _, pt := range p.points {
		for _, j := range p.parsed.Jobs(pt.Sets) {
			if j.TimeBased {
				run = max(run, j.Runtime+j.RampTime)
			}
		}
	}
	d.MaxRounds = compare.PlanRounds(d.Budget, run, d.Rows)
	first := d.LookRounds()[0]
	need := time.Duration(d.Rows*first*2) * run
	if need <= d.Budget {
		return nil
	}
	return fmt.Errorf("--budget %s cannot cover the first look of the gate: %s x %d rounds x 2 sides x %s = %s; shorten the runs (e.g. --set runtime=1s: many short rounds decide sooner than a few long ones) or raise --budget",
		shortDuration(d.Budget), plural(d.Rows, "row"), first, shortDuration(run), shortDuration(need))
}
