package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteCompareCSV writes the comparison as CSV (--compare-csv): a header,
// then one record per sweep point. The first columns are the swept keys;
// every figure has a priority_ and a fifo_ column (µs, IOPS, percent), and
// a side that did not run leaves its cells empty. The per-repeat average
// latencies are listed in repeat order, separated by ";".
func WriteCompareCSV(w io.Writer, c *Comparison) error {
	cw := csv.NewWriter(w)
	header := append([]string(nil), c.Keys...)
	if len(header) == 0 {
		header = []string{"iodepth"}
	}
	nkeys := len(header)
	header = append(header, "priority_avg_lat_us", "fifo_avg_lat_us", "delta_pct", "within_noise")
	for _, col := range []string{"p50_us", "p99_us", "iops", "min_avg_lat_us", "max_avg_lat_us",
		"spread_pct", "repeats", "avg_lat_us_per_repeat"} {
		header = append(header, PolicyPriority+"_"+col, PolicyFIFO+"_"+col)
	}
	header = append(header, "metric")
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("compare csv: %w", err)
	}
	for i := range c.Rows {
		r := &c.Rows[i]
		p, o := &r.Priority, &r.Baseline
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
		delta, noise := "", ""
		if r.HasDelta {
			delta = strconv.FormatFloat(r.DeltaPct, 'f', 2, 64)
			noise = strconv.FormatBool(r.Noise)
		}
		rec = append(rec, cmpCSVNum(p, p.AvgLatUs, 3), cmpCSVNum(o, o.AvgLatUs, 3), delta, noise,
			cmpCSVNum(p, p.P50Us, 3), cmpCSVNum(o, o.P50Us, 3),
			cmpCSVNum(p, p.P99Us, 3), cmpCSVNum(o, o.P99Us, 3),
			cmpCSVNum(p, p.IOPS, 1), cmpCSVNum(o, o.IOPS, 1),
			cmpCSVNum(p, p.MinAvgUs, 3), cmpCSVNum(o, o.MinAvgUs, 3),
			cmpCSVNum(p, p.MaxAvgUs, 3), cmpCSVNum(o, o.MaxAvgUs, 3),
			cmpCSVSpread(p), cmpCSVSpread(o),
			strconv.Itoa(len(p.Repeats)), strconv.Itoa(len(o.Repeats)),
			cmpCSVPerRepeat(p), cmpCSVPerRepeat(o),
			c.Metric)
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

func cmpCSVPerRepeat(s *ComparisonSide) string {
	vs := make([]string, len(s.Repeats))
	for i, r := range s.Repeats {
		vs[i] = strconv.FormatFloat(r.AvgLatUs, 'f', 3, 64)
	}
	return strings.Join(vs, ";")
}
