package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// WriteCompareCSV writes the comparison as CSV (--compare-csv): a header,
// then one record per sweep point. The first columns are the swept keys,
// then "new" and "old" name the sides by their values (tw_priority=1), then
// the statistics of the gate metric (medians, Δ%, its interval, p-value,
// verdict), then every figure of each side with a new_ and an old_ column
// (µs, IOPS, percent). A side that did not run, or a statistic that does
// not exist, leaves its cells empty. Per-repeat figures are listed in
// repeat order, separated by ";".
func WriteCompareCSV(w io.Writer, c *Comparison) error {
	cw := csv.NewWriter(w)
	header := append([]string(nil), c.Keys...)
	if len(header) == 0 {
		header = []string{"iodepth"}
	}
	nkeys := len(header)
	header = append(header, "new", "old", "gate_metric", "new_median", "old_median", "delta_pct",
		"ci_lo_pct", "ci_hi_pct", "ci_confidence", "p_value", "verdict")
	for _, col := range []string{"avg_lat_us", "p50_us", "p99_us", "tw_wait_us", "tw_wait_p99_us", "iops", "min_avg_lat_us", "max_avg_lat_us",
		"spread_pct", "repeats", "avg_lat_us_per_repeat", "p99_us_per_repeat", "iops_per_repeat"} {
		header = append(header, "new_"+col, "old_"+col)
	}
	header = append(header, "metric", "same_schedule")
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("compare csv: %w", err)
	}
	oldLabel := ""
	if c.Compared {
		oldLabel = c.Old.Label()
	}
	for i := range c.Rows {
		r := &c.Rows[i]
		n, o := &r.New, &r.Old
		rec := make([]string, 0, len(header))
		for k := 0; k < nkeys; k++ {
			v := ""
			if k < len(r.Values) {
				v = r.Values[k]
			} else if k == 0 {
				v = r.Value
			}
			rec = append(rec, v)
		}
		rec = append(rec, c.New.Label(), oldLabel, c.GateMetricOrDefault())
		if s := r.Stats; s != nil {
			rec = append(rec, csvNum(s.New, 3), csvNum(s.Old, 3), csvNum(s.DeltaPct, 2),
				csvNum(s.LoPct, 2), csvNum(s.HiPct, 2), csvNum(s.Confidence, 4), csvNum(s.P, 4), s.Verdict)
		} else {
			rec = append(rec, "", "", "", "", "", "", "", "")
		}
		rec = append(rec, cmpCSVNum(n, n.AvgLatUs, 3), cmpCSVNum(o, o.AvgLatUs, 3),
			cmpCSVNum(n, n.P50Us, 3), cmpCSVNum(o, o.P50Us, 3),
			cmpCSVNum(n, n.P99Us, 3), cmpCSVNum(o, o.P99Us, 3),
			cmpCSVNum(n, n.TWWaitUs, 3), cmpCSVNum(o, o.TWWaitUs, 3),
			cmpCSVNum(n, n.TWWaitP99Us, 3), cmpCSVNum(o, o.TWWaitP99Us, 3),
			cmpCSVNum(n, n.IOPS, 1), cmpCSVNum(o, o.IOPS, 1),
			cmpCSVNum(n, n.MinAvgUs, 3), cmpCSVNum(o, o.MinAvgUs, 3),
			cmpCSVNum(n, n.MaxAvgUs, 3), cmpCSVNum(o, o.MaxAvgUs, 3),
			cmpCSVSpread(n), cmpCSVSpread(o),
			strconv.Itoa(len(n.Repeats)), strconv.Itoa(len(o.Repeats)),
			cmpCSVPerRepeat(n, GateAvg), cmpCSVPerRepeat(o, GateAvg),
			cmpCSVPerRepeat(n, GateP99), cmpCSVPerRepeat(o, GateP99),
			cmpCSVPerRepeat(n, GateIOPS), cmpCSVPerRepeat(o, GateIOPS),
			c.Metric, strconv.FormatBool(c.SameSchedule(r)))
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("compare csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("compare csv: %w", err)
	}
	return nil
}

// csvNum formats v with prec decimals, "" for NaN.
func csvNum(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

func cmpCSVNum(s *ComparisonSide, v float64, prec int) string {
	if !s.Ran() {
		return ""
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

func cmpCSVSpread(s *ComparisonSide) string {
	if len(s.Repeats) < 2 {
		return ""
	}
	return strconv.FormatFloat(s.SpreadPct(), 'f', 2, 64)
}

func cmpCSVPerRepeat(s *ComparisonSide, metric string) string {
	vs := make([]string, len(s.Repeats))
	for i, r := range s.Repeats {
		vs[i] = strconv.FormatFloat(r.Value(metric), 'f', 3, 64)
	}
	return strings.Join(vs, ";")
}
