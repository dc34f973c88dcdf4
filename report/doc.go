// Package report holds gofio's results and writes them. Result, JobResult
// and Comparison are the data model (result.go, comparison.go): the run
// core and package compare fill them; nothing here runs I/O or reads a job
// file.
//
// The writers print a Result as fio 3.33 does: the normal text layout
// (WriteHeader, WriteNormal), JSON and json+ (WriteJSON), terse
// (WriteTerse), the write_*_log files (WriteLogs); and a Comparison as the
// side-by-side table, CSV, JSON, Markdown, JUnit and SVG (compare_*.go,
// junit.go, svg.go). The numbers are fio's: histograms with fio's bucket
// layout (hist.go), percentiles as calc_clat_percentiles computes them,
// group_reporting merges as sum_thread_stats does (merge.go), and fio's
// num2str rounding.
//
// Its rules, after vegeta: a writer is a function of (io.Writer, data); it
// changes nothing in the data and keeps no state between calls, so a new
// output format is one new function and a golden file in testdata/
// (refreshed with -update). Figures derived from a job's options come from
// jobfile's Job methods, not from copies here. UI state such as the ETA
// line (eta.go) stays apart from the data model.
package report
