package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteCompareTable writes the comparison as a text table shaped like the
// patch's own ("depth new old"): one row per sweep point with the median
// of the gate metric on each side, Δ% of the medians with its confidence
// interval, the Mann–Whitney p-value and a verdict (faster, slower, ~ or
// too few repeats), then the median p99 and IOPS of both sides. The line
// above the table names the sides by their values.
func WriteCompareTable(w io.Writer, c *Comparison) error {
	var b strings.Builder
	b.WriteString(cmpTitle(c) + "\n")
	fmt.Fprintf(&b, "%s; %s\n", cmpSidesLine(c), cmpMetricLine(c))
	if l := cmpSQLine(c); l != "" {
		b.WriteString(l + "\n")
	}
	if l := cmpTaskRunLine(c); l != "" {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")

	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t\n", strings.Join(cmpHeader(c), "\t"))
	for i := range c.Rows {
		fmt.Fprintf(tw, "%s\t\n", strings.Join(cmpCells(c, &c.Rows[i]), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("compare table: %w", err)
	}
	if l := DecideNote(c); l != "" {
		b.WriteString("\n" + l + "\n")
	}
	if c.HasKStages() && !kstagesMeasuredAny(c) {
		b.WriteString("\n" + cmpKStagesUnavailable(c) + "\n")
	} else if c.HasKStages() {
		b.WriteString("\n")
		tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\t\n", strings.Join(cmpKStagesHeader(c), "\t"))
		for _, r := range cmpKStagesRows(c) {
			fmt.Fprintf(tw, "%s\t\n", strings.Join(r, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("compare table: %w", err)
		}
	}
	if lines := cmpKStageDeltaLines(c); len(lines) > 0 {
		b.WriteString("\nwhere the difference sits (new - old, usec):\n" + strings.Join(lines, "\n") + "\n")
	}
	if err := writeKLockTable(&b, c); err != nil {
		return err
	}
	fmt.Fprintf(&b, "\n%s\n%s\n", cmpStatsRule(c), TWRule)
	for _, r := range cmpKernelRules(c) {
		b.WriteString(r + "\n")
	}
	if c.HasKLock() {
		fmt.Fprintf(&b, "%s\n", KLockRule)
	}
	if l := cmpDriftLine(c); l != "" {
		b.WriteString(l + "\n")
	}
	fmt.Fprintf(&b, "%s\n", cmpFooter(c))
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("compare table: %w", err)
	}
	return nil
}

// cmpSideFigure is a figure the table gives for each side, as a "new"
// and an "old" column: one entry here is one column pair in the text,
// Markdown and JUnit tables and in the CSV.
type cmpSideFigure struct {
	head  string // the table's heading after "new "/"old ", e.g. "IOPS"
	csv   string // the CSV name after "new_"/"old_", naming its statistic, e.g. "iops_median"
	prec  int    // decimals
	value func(s *ComparisonSide) float64
	// has reports whether the side has the figure (nil: every side that
	// ran has it); a side without it shows "-" and an empty CSV cell.
	has func(s *ComparisonSide) bool
}

// cmpSideFigures are the per-side columns after the verdict. Each CSV
// name says its statistic, and the table's heading means the same figure.
var cmpSideFigures = []cmpSideFigure{
	{"p99", "p99_us_median", 2, func(s *ComparisonSide) float64 { return sideMedian(s, GateP99) }, nil},
	{"tw", "tw_wait_us_mean", 2, func(s *ComparisonSide) float64 { return s.TWWaitUs }, nil},
	{"tw p99", "tw_wait_p99_us_all_ios", 2, func(s *ComparisonSide) float64 { return s.TWWaitP99Us }, nil},
	{"IOPS", "iops_median", 0, func(s *ComparisonSide) float64 { return sideMedian(s, GateIOPS) }, nil},
}

// cmpHeader is the header row of the text and markdown tables. Without
// --compare only the one side's figures are shown: the gate metric's
// median under its own name, then the side figures. Rounds to decide
// follows the rounds where a row is undecided with a projection. A taskrun column (one
// per side) follows the key where the task-run mode differs between rows
// or sides (cmpTaskRunVaries).
func cmpHeader(c *Comparison) []string {
	h := []string{c.KeyLabel()}
	if !c.Compared {
		if cmpTaskRunVaries(c) {
			h = append(h, "taskrun")
		}
		h = append(h, cmpGateHead(c))
		for _, f := range cmpOneSideFigures(c) {
			h = append(h, f.head)
		}
		return append(h, cmpKernelRefHeader(c)...)
	}
	if cmpTaskRunVaries(c) {
		h = append(h, "new taskrun", "old taskrun")
	}
	h = append(h, "new", "old", "Δ%", cmpCILabel(c), "p", "verdict")
	if c.Paired {
		h = append(h, "rounds")
	}
	if cmpHasProjection(c) {
		h = append(h, "rounds to decide")
	}
	for _, f := range cmpTableFigures(c) {
		h = append(h, "new "+f.head, "old "+f.head)
	}
	return append(h, cmpKernelRefHeader(c)...)
}

// cmpGateHead heads the one-side table's column of the gate metric.
func cmpGateHead(c *Comparison) string {
	if _, ok := StageGateMetric(c.GateMetricOrDefault()); ok {
		return c.GateMetricOrDefault()
	}
	switch c.GateMetricOrDefault() {
	case GateP99:
		return "p99"
	case GateIOPS:
		return "IOPS"
	}
	if c.Metric == "clat" {
		return "avg clat"
	}
	return "avg lat"
}

// cmpOneSideFigures are the side figures of the one-side table: those of
// cmpSideFigures that do not repeat the gate metric's column.
func cmpOneSideFigures(c *Comparison) []cmpSideFigure {
	g := cmpGateHead(c)
	figs := cmpTableFigures(c)
	out := make([]cmpSideFigure, 0, len(figs))
	for _, f := range figs {
		if f.head != g {
			out = append(out, f)
		}
	}
	return out
}

// cmpVerdictColumn is the index of the verdict in cmpCells, -1 without
// --compare.
func cmpVerdictColumn(c *Comparison) int {
	if !c.Compared {
		return -1
	}
	if cmpTaskRunVaries(c) {
		return 8
	}
	return 6
}

// cmpTaskRunVaries reports whether the task-run mode differs between the
// rows or the sides that ran (a sweep or --compare of taskrun_mode), so
// the tables need a column for it rather than one line.
func cmpTaskRunVaries(c *Comparison) bool {
	seen := ""
	for s := range c.pairSides() {
		switch {
		case !s.Ran() || s.TaskRun == "":
		case s.TaskRun == SQMixed:
			return true
		case seen == "":
			seen = s.TaskRun
		case seen != s.TaskRun:
			return true
		}
	}
	return false
}

// cmpTaskRunLine says how the kernel ran the completion task work: in one
// line when every row and side ran the same mode, or as a legend of the
// taskrun column's values. It is "" when no side knows its mode.
func cmpTaskRunLine(c *Comparison) string {
	modes := c.pairSideValues(func(s *ComparisonSide) (string, bool) { return s.TaskRun, s.Ran() && s.TaskRun != "" })
	switch len(modes) {
	case 0:
		return ""
	case 1:
		if w := TaskRunWords(modes[0]); w != "" {
			return "task run: " + w
		}
		return "task run: " + modes[0]
	}
	parts := make([]string, len(modes))
	for i, m := range modes {
		parts[i] = m
		if w := TaskRunWords(m); w != "" && m != SQMixed {
			parts[i] = m + " = " + w
		}
	}
	return "taskrun = how the kernel ran the completion task work: " + strings.Join(parts, "; ")
}

// cmpCells is one row of the text and markdown tables.
func cmpCells(c *Comparison, r *ComparisonRow) []string {
	m := c.GateMetricOrDefault()
	n, o := &r.New, &r.Old
	if !c.Compared {
		cells := []string{r.Value}
		if cmpTaskRunVaries(c) {
			cells = append(cells, cmpTaskRunCell(n))
		}
		cells = append(cells, cmpFig(n, m))
		for _, f := range cmpOneSideFigures(c) {
			cells = append(cells, cmpSideCell(n, f))
		}
		return append(cells, cmpKernelRefCells(c, r)...)
	}
	delta, ci, p := "-", "-", "-"
	if s := r.Stats; s != nil {
		delta = fmt.Sprintf("%+.2f%%", s.DeltaPct)
		if s.HasInterval() {
			ci = fmt.Sprintf("[%+.1f%%, %+.1f%%]", s.LoPct, s.HiPct)
		}
		p = strconv.FormatFloat(s.PAdj, 'f', 3, 64)
		if s.PAdj < 0.001 {
			p = "<0.001"
		}
	}
	verdict := c.RowVerdict(r)
	cells := []string{r.Value}
	if cmpTaskRunVaries(c) {
		cells = append(cells, cmpTaskRunCell(n), cmpTaskRunCell(o))
	}
	cells = append(cells, cmpFig(n, m), cmpFig(o, m), delta, ci, p, verdict)
	if c.Paired {
		cells = append(cells, strconv.Itoa(min(len(n.Repeats), len(o.Repeats))))
	}
	if cmpHasProjection(c) {
		cells = append(cells, cmpProjectionCell(c, r))
	}
	for _, f := range cmpTableFigures(c) {
		cells = append(cells, cmpSideCell(n, f), cmpSideCell(o, f))
	}
	return append(cells, cmpKernelRefCells(c, r)...)
}

// cmpTaskRunCell is a side's task-run mode, "-" when unknown or not run.
func cmpTaskRunCell(s *ComparisonSide) string {
	if !s.Ran() || s.TaskRun == "" {
		return "-"
	}
	return s.TaskRun
}

// cmpSideCell formats figure f of a side, "-" for a side that did not
// run.
func cmpSideCell(s *ComparisonSide, f cmpSideFigure) string {
	if !s.Ran() || f.has != nil && !f.has(s) {
		return "-"
	}
	return strconv.FormatFloat(f.value(s), 'f', f.prec, 64)
}

// cmpSidesLine names the two sides by their values, each with what
// played its SQ thread.
func cmpSidesLine(c *Comparison) string {
	if !c.Compared {
		return "one side: " + cmpOr(c.New.Label()) + cmpSQ(c, c.New)
	}
	return "new = " + cmpOr(c.New.Label()) + cmpSQ(c, c.New) + ", old = " + cmpOr(c.Old.Label()) + cmpSQ(c, c.Old)
}

// cmpSharedSQ is what played the SQ thread on every side; SQMixed when
// the sides differ (the sides line then says which), "" when unknown.
func cmpSharedSQ(c *Comparison) string {
	if !c.Compared {
		return c.New.SQThread
	}
	return MergeSQThread(c.New.SQThread, c.Old.SQThread)
}

// cmpSQ is " [SQ thread: WHAT PLAYED IT]" for a side when the sides
// differ in it (the title says it when they agree), "" otherwise.
func cmpSQ(c *Comparison, s SideSpec) string {
	if cmpSharedSQ(c) != SQMixed || s.SQThread == "" || cmpTaskRunVaries(c) {
		return ""
	}
	return " [SQ thread: " + SQThreadWords(s.SQThread) + "]"
}

// cmpSQLine says what the comparison compares when a side ran gofio's
// SQPOLL goroutine where the job asks for the kernel's SQPOLL thread
// (tw_thread=auto under --compare): the figures are then gofio's model's,
// not the kernel's. It is "" otherwise.
func cmpSQLine(c *Comparison) string {
	if c.New.SQThread != SQGoroutine && c.Old.SQThread != SQGoroutine {
		return ""
	}
	return "SQ thread: gofio's model, not the kernel's: the job's sqthread_poll=1 ran on gofio's SQPOLL goroutine, " +
		"which orders the task work as the patch does (tw_thread=goroutine, the default under --compare); " +
		"--set tw_thread=kernel measures the kernel's SQPOLL thread instead"
}

// OneSideRule is what the figures of a table without --compare are.
const OneSideRule = "every figure but the tw waits (tw, ktw and their p99) is the median of the per-repeat values; " +
	"without --compare no side is judged against another"

// cmpStatsRule is the rule of the statistics the table's rows were judged
// by: OneSideRule for a table of one side, PairedStatsRule for rounds
// (with the gate's threshold and the design), StatsRule otherwise.
func cmpStatsRule(c *Comparison) string {
	switch {
	case !c.Compared:
		return OneSideRule
	case c.Paired:
		return PairedStatsRule + cmpGateRule(c)
	}
	return StatsRule
}

// cmpGateRule says how the verdicts of rounds were decided: at what
// threshold, over how many rows, at which looks and within what budget.
func cmpGateRule(c *Comparison) string {
	rows := fmt.Sprintf("; the %d rows are judged together", len(c.Rows))
	if len(c.Rows) == 1 {
		rows = "; one row"
	}
	if !c.Gated {
		return rows + "; not gated (no --fail-if-slower): each row ran its --repeat rounds and was judged once"
	}
	s := fmt.Sprintf("; gated at %g%% (--fail-if-slower)%s", c.ThresholdPct, rows)
	if d := c.Design; d != nil && len(d.Looks) > 0 {
		looks := make([]string, len(d.Looks))
		for i, n := range d.Looks {
			looks[i] = strconv.Itoa(n)
		}
		s += ", looked at after " + strings.Join(looks, ", ") + " rounds"
		if d.Budget > 0 {
			s += fmt.Sprintf(" within a budget of %gs (%.0fs spent)", d.Budget, d.Elapsed)
		}
	}
	if cmpHasProjection(c) {
		s += "; " + ProjectionRule
	}
	return s
}

// cmpMetricLine says what the new and old columns hold, or for one side
// what its first figure column holds.
func cmpMetricLine(c *Comparison) string {
	lat := c.Metric
	if lat == "" {
		lat = "lat"
	}
	if st, ok := StageGateMetric(c.GateMetricOrDefault()); ok {
		what := "new, old"
		if !c.Compared {
			what = cmpGateHead(c)
		}
		return fmt.Sprintf("%s = median of the per-repeat mean of the kernel's %s stage (--gate-metric %s) in usec",
			what, st, c.GateMetricOrDefault())
	}
	if !c.Compared {
		switch c.GateMetricOrDefault() {
		case GateP99:
			return fmt.Sprintf("p99 = median of the per-repeat p99 %s in usec", lat)
		case GateIOPS:
			return "IOPS = median of the per-repeat IOPS"
		}
		return fmt.Sprintf("%s = median of the per-repeat avg %s in usec", cmpGateHead(c), lat)
	}
	per := "per-repeat"
	if c.Paired {
		per = "per-round"
	}
	switch c.GateMetricOrDefault() {
	case GateP99:
		return fmt.Sprintf("new, old = median of the %s p99 %s in usec", per, lat)
	case GateIOPS:
		return "new, old = median of the " + per + " IOPS"
	}
	return fmt.Sprintf("new, old = median of the %s avg %s in usec", per, lat)
}

// cmpCILabel heads the interval column with its confidence: for rounds
// the family-wise one (each end at FamilyAlpha, so both at twice it),
// else the smallest over the rows (each row's is at least 95%).
func cmpCILabel(c *Comparison) string {
	if c.Paired && c.FamilyAlpha > 0 {
		return fmt.Sprintf("%s%% CI", strconv.FormatFloat((1-2*c.FamilyAlpha)*100, 'f', -1, 64))
	}
	conf := math.Inf(1)
	for _, r := range c.Rows {
		if r.Stats != nil && r.Stats.HasInterval() {
			conf = math.Min(conf, r.Stats.Confidence)
		}
	}
	if math.IsInf(conf, 1) {
		return "CI"
	}
	return fmt.Sprintf("%s%% CI", strconv.FormatFloat(math.Floor(conf*1000)/10, 'f', -1, 64))
}

// cmpTitle is the one-line title of the table and the chart.
func cmpTitle(c *Comparison) string {
	t := fmt.Sprintf("gofio compare: rw=%s bs=%s ioengine=%s sqthread_poll=%s",
		cmpOr(c.RW), cmpOr(c.BS), cmpOr(c.Engine), cmpOr(c.SQPoll))
	switch cmpSharedSQ(c) {
	case SQGoroutine:
		t += ", SQ thread: gofio's goroutine (the model), not the kernel's SQPOLL"
	case SQKernel:
		t += ", SQ thread: the kernel's SQPOLL"
	}
	switch {
	case c.Paired:
		t += ", rounds of both sides (ABBA)"
	case c.Repeat > 1:
		t += fmt.Sprintf(", %d repeats", c.Repeat)
	}
	return t
}

// cmpDriftLine says what drift between runs a diff of two runs grants:
// "" for a comparison within one run, whose sides are interleaved.
func cmpDriftLine(c *Comparison) string {
	switch {
	case c.DriftPct > 0:
		return fmt.Sprintf("drift allowance %g%%: the runs were made apart in time, and runs of one job drift by up to that much; "+
			"faster or slower needs the whole CI beyond ±%g%%, and --fail-if-slower G fails beyond G + %g%%", c.DriftPct, c.DriftPct, c.DriftPct)
	case c.New.Key == DiffSideKey:
		return "no drift allowance: the runs were made apart in time, and the CI holds only the noise within each run; " +
			"measure the drift with gofio drift and pass --drift"
	}
	return ""
}

// cmpFooter names the gofio version and kernel the figures come from.
func cmpFooter(c *Comparison) string {
	return fmt.Sprintf("%s, kernel %s", cmpOr(c.Version), cmpOr(c.Kernel))
}

func cmpOr(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

// sideMedian returns the median of the side's per-repeat values of metric.
func sideMedian(s *ComparisonSide, metric string) float64 { return medianOf(s.Values(metric)) }

// medianOf is the median of vs (which it sorts), 0 for none.
func medianOf(vs []float64) float64 {
	sort.Float64s(vs)
	n := len(vs)
	switch {
	case n == 0:
		return 0
	case n%2 == 1:
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// cmpFig formats the side's median of metric: µs with two decimals, IOPS
// whole; "-" for a side that did not run.
func cmpFig(s *ComparisonSide, metric string) string {
	if !s.Ran() {
		return "-"
	}
	if metric == GateIOPS {
		return strconv.FormatFloat(sideMedian(s, metric), 'f', 0, 64)
	}
	return strconv.FormatFloat(sideMedian(s, metric), 'f', 2, 64)
}
