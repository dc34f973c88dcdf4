package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gofio/gofio/internal/kstage"
)

// WriteCompareCSV writes the comparison as CSV (--compare-csv): a header,
// then one record per sweep point. The first columns are the swept keys,
// then "new" and "old" name the sides by their values (tw_priority=1), then
// the statistics of the gate metric (medians, Δ%, its interval, p-value,
// verdict), then every figure of each side with a new_ and an old_ column:
// first the table's own (cmpSideFigures), then csvSideFigures. Each
// column's name ends with its statistic (_median over the repeats, _mean,
// _all_ios over every I/O of every repeat), so a name means one figure
// wherever it appears. A side that did not run, or a statistic that does
// not exist, leaves its cells empty. Per-repeat figures are listed in
// repeat order, separated by ";". rounds_to_decide and projected_verdict
// are an undecided row's projection (Projection), empty otherwise.
func WriteCompareCSV(w io.Writer, c *Comparison) error {
	cw := csv.NewWriter(w)
	header := append([]string(nil), c.Keys...)
	if len(header) == 0 {
		header = []string{"iodepth"}
	}
	nkeys := len(header)
	header = append(header, "new", "old", "gate_metric", "new_median", "old_median", "delta_pct",
		"ci_lo_pct", "ci_hi_pct", "ci_confidence", "p_value", "verdict")
	for _, f := range csvTableFigures {
		header = append(header, "new_"+f.csv, "old_"+f.csv)
	}
	for _, f := range csvAllSideFigures {
		header = append(header, "new_"+f.name, "old_"+f.name)
	}
	header = append(header, "metric", "same_schedule", "p_adjusted", "no_result_reason", "rounds_to_decide", "projected_verdict")
	header = append(header, csvKernelRefHeader()...)
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
				csvNum(s.LoPct, 2), csvNum(s.HiPct, 2), csvNum(s.Confidence, 4), csvNum(s.P, 4))
		} else {
			rec = append(rec, "", "", "", "", "", "", "")
		}
		rec = append(rec, c.RowVerdict(r))
		for _, f := range csvTableFigures {
			rec = append(rec, csvFigure(n, f), csvFigure(o, f))
		}
		for _, f := range csvAllSideFigures {
			rec = append(rec, f.cell(c, n, c.New), f.cell(c, o, c.Old))
		}
		padj := ""
		if r.Stats != nil {
			padj = csvNum(r.Stats.PAdj, 4)
		}
		rec = append(rec, c.Metric, strconv.FormatBool(c.SameSchedule(r)), padj, c.RowNoResultReason(r))
		rec = append(rec, csvProjection(c, r)...)
		rec = append(rec, csvKernelRefCells(r)...)
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

// csvSideFigure is a per-side CSV column pair beyond the table's own.
type csvSideFigure struct {
	name string // after "new_"/"old_", ending in its statistic
	cell func(c *Comparison, s *ComparisonSide, spec SideSpec) string
}

// csvNumFig is a csvSideFigure cell of a number with prec decimals.
func csvNumFig(prec int, v func(s *ComparisonSide) float64) func(*Comparison, *ComparisonSide, SideSpec) string {
	return func(_ *Comparison, s *ComparisonSide, _ SideSpec) string { return cmpCSVNum(s, v(s), prec) }
}

// csvSideFigures are the CSV's per-side columns after cmpSideFigures.
var csvSideFigures = []csvSideFigure{
	{"avg_lat_us_mean", csvNumFig(3, func(s *ComparisonSide) float64 { return s.AvgLatUs })},
	{"p50_us_all_ios", csvNumFig(3, func(s *ComparisonSide) float64 { return s.P50Us })},
	{"p99_us_all_ios", csvNumFig(3, func(s *ComparisonSide) float64 { return s.P99Us })},
	{"iops_mean", csvNumFig(1, func(s *ComparisonSide) float64 { return s.IOPS })},
	{"min_avg_lat_us", csvNumFig(3, func(s *ComparisonSide) float64 { return s.MinAvgUs })},
	{"max_avg_lat_us", csvNumFig(3, func(s *ComparisonSide) float64 { return s.MaxAvgUs })},
	{"spread_pct", func(_ *Comparison, s *ComparisonSide, _ SideSpec) string { return cmpCSVSpread(s) }},
	{"repeats", func(_ *Comparison, s *ComparisonSide, _ SideSpec) string { return strconv.Itoa(len(s.Repeats)) }},
	{"avg_lat_us_per_repeat", func(_ *Comparison, s *ComparisonSide, _ SideSpec) string { return cmpCSVPerRepeat(s, GateAvg) }},
	{"p99_us_per_repeat", func(_ *Comparison, s *ComparisonSide, _ SideSpec) string { return cmpCSVPerRepeat(s, GateP99) }},
	{"iops_per_repeat", func(_ *Comparison, s *ComparisonSide, _ SideSpec) string { return cmpCSVPerRepeat(s, GateIOPS) }},
	{"sq_thread", func(c *Comparison, s *ComparisonSide, spec SideSpec) string {
		if !s.Ran() {
			return ""
		}
		return spec.SQThread
	}},
	{"taskrun", func(_ *Comparison, s *ComparisonSide, _ SideSpec) string { return s.TaskRun }},
}

// csvAllSideFigures are csvSideFigures, then the kernel stages' columns.
var csvAllSideFigures = append(append(csvSideFigures[:len(csvSideFigures):len(csvSideFigures)], csvKStageFigures()...),
	csvKLockFigures()...)

// csvTableFigures are the table's figures in the CSV: every one, the
// kernel's tw included (empty cells where not traced), so the columns do
// not depend on the run.
var csvTableFigures = append(cmpSideFigures[:len(cmpSideFigures):len(cmpSideFigures)], cmpKernelFigures...)

// csvFigure is a side's cell of figure f, at least one decimal.
func csvFigure(s *ComparisonSide, f cmpSideFigure) string {
	if !s.Ran() || f.has != nil && !f.has(s) {
		return ""
	}
	return cmpCSVNum(s, f.value(s), max(f.prec, 1))
}

// csvKStageFigures are the CSV's kernel stage columns: each stage's mean,
// the join rate and why tracing was unavailable.
func csvKStageFigures() []csvSideFigure {
	var out []csvSideFigure
	for i := kstage.Stage(0); i < kstage.NumStages; i++ {
		out = append(out, csvSideFigure{"kstage_" + i.String() + "_us_mean", func(_ *Comparison, s *ComparisonSide, _ SideSpec) string {
			if !s.Ran() || !s.KStages.Measured() {
				return ""
			}
			return strconv.FormatFloat(s.KStages.MeanUs[i], 'f', 3, 64)
		}})
	}
	return append(out,
		csvSideFigure{"kstage_join_rate", func(_ *Comparison, s *ComparisonSide, _ SideSpec) string {
			if !s.Ran() || s.KStages == nil || !s.KStages.Available {
				return ""
			}
			return strconv.FormatFloat(s.KStages.JoinRate(), 'f', 4, 64)
		}},
		csvSideFigure{"kstage_unavailable", func(_ *Comparison, s *ComparisonSide, _ SideSpec) string {
			if !s.Ran() || s.KStages == nil || s.KStages.Available {
				return ""
			}
			return s.KStages.Reason
		}})
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
