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
	fmt.Fprintf(&b, "%s; %s\n\n", cmpSidesLine(c), cmpMetricLine(c))

	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t\n", strings.Join(cmpHeader(c), "\t"))
	for i := range c.Rows {
		fmt.Fprintf(tw, "%s\t\n", strings.Join(cmpCells(c, &c.Rows[i]), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("compare table: %w", err)
	}
	fmt.Fprintf(&b, "\n%s\n%s\n", StatsRule, TWRule)
	fmt.Fprintf(&b, "%s\n", cmpFooter(c))
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("compare table: %w", err)
	}
	return nil
}

// cmpHeader is the header row of the text and markdown tables.
func cmpHeader(c *Comparison) []string {
	return []string{c.KeyLabel(), "new", "old", "Δ%", cmpCILabel(c), "p", "verdict",
		"new p99", "old p99", "new tw", "old tw", "new tw p99", "old tw p99", "new IOPS", "old IOPS"}
}

// cmpCells is one row of the text and markdown tables.
func cmpCells(c *Comparison, r *ComparisonRow) []string {
	m := c.GateMetricOrDefault()
	n, o := &r.New, &r.Old
	delta, ci, p, verdict := "-", "-", "-", "-"
	if s := r.Stats; s != nil {
		delta = fmt.Sprintf("%+.2f%%", s.DeltaPct)
		if s.HasInterval() {
			ci = fmt.Sprintf("[%+.1f%%, %+.1f%%]", s.LoPct, s.HiPct)
		}
		p = strconv.FormatFloat(s.P, 'f', 3, 64)
		if s.P < 0.001 {
			p = "<0.001"
		}
		verdict = s.Verdict
	} else if c.Compared && !o.Ran() {
		verdict = "old missing"
	} else if c.Compared {
		verdict = "new missing"
	}
	if c.SameSchedule(r) {
		verdict = "same schedule"
	}
	return []string{
		r.Value,
		cmpFig(n, m), cmpFig(o, m), delta, ci, p, verdict,
		cmpFig(n, GateP99), cmpFig(o, GateP99),
		cmpUs(n, n.TWWaitUs), cmpUs(o, o.TWWaitUs), cmpUs(n, n.TWWaitP99Us), cmpUs(o, o.TWWaitP99Us),
		cmpIOPS(n), cmpIOPS(o),
	}
}

// cmpSidesLine names the two sides by their values.
func cmpSidesLine(c *Comparison) string {
	if !c.Compared {
		return "one side: " + cmpOr(c.New.Label())
	}
	return "new = " + cmpOr(c.New.Label()) + ", old = " + cmpOr(c.Old.Label())
}

// cmpMetricLine says what the new and old columns hold.
func cmpMetricLine(c *Comparison) string {
	lat := c.Metric
	if lat == "" {
		lat = "lat"
	}
	switch c.GateMetricOrDefault() {
	case GateP99:
		return fmt.Sprintf("new, old = median of the per-repeat p99 %s in usec", lat)
	case GateIOPS:
		return "new, old = median of the per-repeat IOPS"
	}
	return fmt.Sprintf("new, old = median of the per-repeat avg %s in usec", lat)
}

// cmpCILabel heads the interval column with its confidence, the smallest
// over the rows (each row's is at least 95%).
func cmpCILabel(c *Comparison) string {
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
	if c.Repeat > 1 {
		t += fmt.Sprintf(", %d repeats", c.Repeat)
	}
	return t
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
func sideMedian(s *ComparisonSide, metric string) float64 {
	vs := s.Values(metric)
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

func cmpIOPS(s *ComparisonSide) string { return cmpFig(s, GateIOPS) }

// cmpUs formats a µs figure of a side with two decimals, "-" for a side
// that did not run.
func cmpUs(s *ComparisonSide, v float64) string {
	if !s.Ran() {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
