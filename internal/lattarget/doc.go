// Package lattarget is fio's latency_target depth search: a Search finds
// the deepest queue whose latency_percentile of I/Os complete within
// latency_target.
//
// Rule: the search is pure. The caller passes the time and its count of
// completed I/Os and carries out the Action each step returns; the
// package reads no clock, issues nothing and imports nothing of the run
// core.
package lattarget
