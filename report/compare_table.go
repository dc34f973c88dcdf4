package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteCompareTable writes the comparison as a text table shaped like the
// patch's own ("depth new old"): one row per sweep point with the average
// latency of priority (new) and baseline (old) in µs, Δ%, p50 and p99 of
// both, IOPS of both and the spread of each across repeats. A Δ inside the
// spread is marked "within noise"; no row names a winner.
func WriteCompareTable(w io.Writer, c *Comparison) error {
	var b strings.Builder
	b.WriteString(cmpTitle(c) + "\n")
	metric := c.Metric
	if metric == "" {
		metric = "lat"
	}
	fmt.Fprintf(&b, "avg %s in usec; new = %s (tw_priority=1), old = %s (tw_priority=0); Δ%% = (new - old) / old\n\n",
		metric, PolicyPriority, PolicyFIFO)

	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tnew\told\tΔ%%\tnew p50\told p50\tnew p99\told p99\tnew IOPS\told IOPS\tnew spread\told spread\t\n",
		c.KeyLabel())
	for i := range c.Rows {
		r := &c.Rows[i]
		p, o := &r.Priority, &r.Baseline
		cells := []string{
			r.Value,
			cmpUs(p, p.AvgLatUs), cmpUs(o, o.AvgLatUs), cmpDelta(r),
			cmpUs(p, p.P50Us), cmpUs(o, o.P50Us),
			cmpUs(p, p.P99Us), cmpUs(o, o.P99Us),
			cmpIOPS(p), cmpIOPS(o),
			cmpSpread(p), cmpSpread(o),
		}
		note := ""
		if r.HasDelta && r.Noise {
			note = "  within noise"
		}
		fmt.Fprintf(tw, "%s\t%s\n", strings.Join(cells, "\t"), note)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("compare table: %w", err)
	}
	fmt.Fprintf(&b, "\nspread = (max - min) / mean of the per-repeat avg %s; %s\n", metric, NoiseRule)
	fmt.Fprintf(&b, "%s\n", cmpFooter(c))
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("compare table: %w", err)
	}
	return nil
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

// cmpUs formats a µs figure with two decimals, "-" for a side that did not
// run.
func cmpUs(s *ComparisonSide, v float64) string {
	if !s.Ran() {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func cmpIOPS(s *ComparisonSide) string {
	if !s.Ran() {
		return "-"
	}
	return strconv.FormatFloat(s.IOPS, 'f', 0, 64)
}

func cmpSpread(s *ComparisonSide) string {
	if len(s.Repeats) < 2 {
		return "-"
	}
	return strconv.FormatFloat(s.SpreadPct(), 'f', 2, 64) + "%"
}

func cmpDelta(r *ComparisonRow) string {
	if !r.HasDelta {
		return "-"
	}
	return fmt.Sprintf("%+.2f%%", r.DeltaPct)
}
