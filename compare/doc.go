// Package compare runs gofio's --compare and --sweep: it expands sweep lists
// into a plan of runs (Plan), pairs the priority task-work policy with the
// FIFO baseline, parses every point of the plan once before any run
// (ParsePoints), runs the plan through a caller's RunFunc and folds the
// results into a report.Comparison, with the statistics behind the CI gate
// (CheckSlower).
//
// Its rules: it handles parsed jobfile.Jobs but never reads a job file or
// opens an engine itself; the caller supplies the parser (ParseFunc) and
// the run (RunFunc). Every point is parsed and checked before the first
// run, so a bad swept value does no I/O. A run cut short by a signal is
// not part of the comparison.
package compare
