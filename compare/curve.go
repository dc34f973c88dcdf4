package compare

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gofio/gofio/report"
)

// This file gives compare/capacity the figures a comparison keeps of a
// run, so that a latency curve and the comparison's table agree.

// RunLatency returns what one run measured for a latency curve as a
// comparison's repeat records it: its IOPS and mean latency in µs, and
// adds to h the latency histogram of every job and direction (fio's
// total latency where it was recorded, else the completion latency).
func RunLatency(res *report.Result, h *report.Hist) (iops, avgUs float64) {
	var m measurement
	measure(res, &m)
	h.Merge(&m.hist)
	return m.stats.IOPS, m.stats.AvgLatUs
}

// PercentileUs returns percentile p of h in µs as the comparison's P50Us
// and P99Us are computed (fio's: the midpoint of the first bucket where
// the running count reaches p/100 of all samples); 0 for an empty one.
func PercentileUs(h *report.Hist, p float64) float64 { return percentileUs(h, p) }

// MergeRows returns one comparison of the rows of cmps, the comparisons of
// the points a search ran one at a time (--sweep iodepth=auto), ordered
// by the swept value (Row.X): the first comparison's title, sides and
// design, with the time every one took. Each row keeps the statistics it
// was judged with, alone. Nil for none.
func MergeRows(cmps []*report.Comparison) *report.Comparison {
	if len(cmps) == 0 {
		return nil
	}
	c := *cmps[0]
	c.Rows = nil
	if c.Design != nil {
		d := *c.Design
		c.Design = &d
	}
	for _, o := range cmps {
		c.Rows = append(c.Rows, o.Rows...)
		if o.Metric != c.Metric {
			c.Metric = "mixed"
		}
		if o != cmps[0] && c.Design != nil && o.Design != nil {
			c.Design.Elapsed += o.Design.Elapsed
			c.Design.BudgetSpent = c.Design.BudgetSpent || o.Design.BudgetSpent
		}
	}
	slices.SortStableFunc(c.Rows, func(a, b report.ComparisonRow) int { return cmp.Compare(a.X, b.X) })
	return &c
}

// Add parses the points of the plan that p does not hold yet with parse,
// as ParsePoints does, for a search that plans its points as it goes.
func (p *Parsed) Add(points []Point, parse ParseFunc) error {
	for _, pt := range points {
		key := setsKey(pt.Sets)
		if _, ok := p.jobs[key]; ok {
			continue
		}
		jobs, err := parse(pt.Sets)
		if err != nil {
			return fmt.Errorf("%s: %w", pt, err)
		}
		p.jobs[key] = jobs
	}
	return nil
}

// expandPercent expands the range lo%..hi% in steps of lo: 10%..100% is
// 10%, 20%, ..., 100%; the last step is cut to hi (30%..100% ends 90%,
// 100%). Both are whole percentages, lo from 1 to hi, hi at most 1000.
func expandPercent(lo, hi string) ([]string, error) {
	a, errA := strconv.Atoi(strings.TrimSuffix(lo, "%"))
	b, errB := strconv.Atoi(strings.TrimSuffix(hi, "%"))
	switch {
	case !strings.HasSuffix(lo, "%") || errA != nil || errB != nil:
		return nil, fmt.Errorf("a range of percentages needs whole percentages at both ends, as in 10%%..100%%")
	case a < 1 || a > b || b > 1000:
		return nil, fmt.Errorf("range %s..%s: want 1%% <= start <= end <= 1000%%", lo, hi)
	}
	var values []string
	for v := a; ; v += a {
		v = min(v, b)
		values = append(values, strconv.Itoa(v)+"%")
		if v == b {
			return values, nil
		}
	}
}

// JudgeTogether judges again, all rows together, an ungated comparison in
// rounds whose rows ran one search step at a time and were each judged
// alone (MergeRows of Rounds.Run's comparisons): every row with a result
// at its one look, with the family-wise level spread over the rows it
// holds, as one Rounds.Run of them all would have judged it.
func JudgeTogether(c *report.Comparison, d Design) {
	if c == nil || !c.Paired || c.Gated {
		return
	}
	d.Rows, d.Gated = len(c.Rows), false
	n := d.LookRounds()[0]
	var judged []*report.ComparisonRow
	for i := range c.Rows {
		if row := &c.Rows[i]; row.Stats != nil && row.Verdict != report.VerdictNoResult {
			judged = append(judged, row)
		}
	}
	stepDown(Open{Slower: d.Rows, Faster: d.Rows}, len(judged), func(i int, open Open) string {
		row := judged[i]
		s := JudgeRounds(roundValues(&row.New, n, d.GateMetric), roundValues(&row.Old, n, d.GateMetric), d, 1, open)
		row.Stats, row.Verdict = &s, s.Verdict
		return s.Verdict
	})
}
