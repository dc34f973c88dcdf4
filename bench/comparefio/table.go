package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// tableHeader is the column list of both renderings.
var tableHeader = []string{"case", "metric", "gofio median", "fio median", "ratio", "min ratio", "max ratio", "target", "status"}

// fmtRatio formats a ratio with two decimals, "-" when undefined.
func fmtRatio(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return fmt.Sprintf("%.2f", x)
}

// fmtValue formats a metric value with a precision that suits its size.
func fmtValue(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "-"
	case math.Abs(x) >= 1000:
		return fmt.Sprintf("%.0f", x)
	case math.Abs(x) >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

// rowCells renders one row's cells in tableHeader order.
func rowCells(r Row) []string {
	lo, hi := r.RatioRange()
	return []string{r.Case, r.Metric.Name, fmtValue(r.GofioMedian()), fmtValue(r.FioMedian()),
		fmtRatio(r.Ratio()), fmtRatio(lo), fmtRatio(hi), r.Metric.TargetText(), r.Status()}
}

// WriteText writes the table aligned in columns, for a terminal.
func WriteText(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(tableHeader, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(rowCells(r), "\t"))
	}
	return tw.Flush()
}

// WriteMarkdown writes the table as a GitHub markdown table.
func WriteMarkdown(w io.Writer, rows []Row) error {
	line := func(cells []string) string { return "| " + strings.Join(cells, " | ") + " |\n" }
	sep := make([]string, len(tableHeader))
	for i := range sep {
		sep[i] = "---"
		if i >= 2 && i <= 6 {
			sep[i] = "---:"
		}
	}
	var b strings.Builder
	b.WriteString(line(tableHeader))
	b.WriteString(line(sep))
	for _, r := range rows {
		b.WriteString(line(rowCells(r)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
