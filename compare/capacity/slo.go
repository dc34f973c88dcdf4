// Package capacity finds the capacity of a sweep: the highest IOPS at
// which a latency objective (--slo 'p99<=2ms') holds, the knee of the
// latency-IOPS curve, the bisection over depths of --sweep iodepth=auto
// and the fractions of --sweep rate_iops=10%..100%.
//
// Its rules: it reads runs and comparisons that compare measured, never
// runs anything itself (the command line drives the runs it proposes),
// and fills report.Capacity, which report writes. The curve's figures
// are the comparison's own: IOPS the mean of the repeats' IOPS, the
// percentiles those of the latency histograms of all repeats merged,
// fio's total latency (or, for an open-loop job, the response latency
// from each I/O's intended time).
package capacity

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SLO is a latency objective: a statistic of the latency at or below a
// limit, such as p99<=2ms.
type SLO struct {
	// Stat is the statistic: "avg", "p50", "p90", "p99", "p99.9" or
	// "p99.99".
	Stat string
	// Percentile is the percentile Stat names, 0 for avg.
	Percentile float64
	// LimitUs is the limit in µs.
	LimitUs float64
	// Strict is true for "<": the statistic must stay below the limit.
	Strict bool
	// Limit is the limit as given, "2ms".
	Limit string
}

// ErrBadSLO is wrapped by every error of the --slo grammar.
var ErrBadSLO = errors.New("bad --slo")

// stats are the statistics an objective may name, with their percentile.
var stats = map[string]float64{"avg": 0, "p50": 50, "p90": 90, "p99": 99, "p99.9": 99.9, "p99.99": 99.99}

// units are the time units a limit may carry, in µs.
var units = map[string]float64{"ns": 1e-3, "nsec": 1e-3, "us": 1, "usec": 1, "µs": 1, "ms": 1e3, "msec": 1e3, "s": 1e6, "sec": 1e6}

// ParseSLO parses an objective: STAT<=LIMIT or STAT<LIMIT, STAT one of
// avg, p50, p90, p99, p99.9 and p99.99, LIMIT a positive number with a
// unit (ns, us, ms, s; usec, msec, sec and µs too), e.g. "p99<=2ms",
// "avg<500us". Blanks are ignored.
func ParseSLO(s string) (SLO, error) {
	t := strings.Join(strings.Fields(s), "")
	op := "<="
	i := strings.Index(t, op)
	if i < 0 {
		op = "<"
		i = strings.Index(t, op)
	}
	if i < 0 {
		return SLO{}, fmt.Errorf("%w %q: want STAT<=LIMIT, e.g. p99<=2ms or avg<=500us", ErrBadSLO, s)
	}
	name, limit := strings.ToLower(t[:i]), t[i+len(op):]
	pct, ok := stats[name]
	if !ok {
		return SLO{}, fmt.Errorf("%w %q: %q is not one of avg, p50, p90, p99, p99.9, p99.99", ErrBadSLO, s, t[:i])
	}
	j := 0
	for j < len(limit) && (limit[j] >= '0' && limit[j] <= '9' || limit[j] == '.') {
		j++
	}
	v, err := strconv.ParseFloat(limit[:j], 64)
	mult, unitOK := units[strings.ToLower(limit[j:])]
	switch {
	case j == 0 || err != nil:
		return SLO{}, fmt.Errorf("%w %q: the limit %q is not a number with a unit (2ms, 500us)", ErrBadSLO, s, limit)
	case limit[j:] == "":
		return SLO{}, fmt.Errorf("%w %q: the limit %q has no unit: give ns, us, ms or s", ErrBadSLO, s, limit)
	case !unitOK:
		return SLO{}, fmt.Errorf("%w %q: unknown unit %q: give ns, us, ms or s", ErrBadSLO, s, limit[j:])
	case v <= 0:
		return SLO{}, fmt.Errorf("%w %q: the limit must be greater than 0", ErrBadSLO, s)
	}
	return SLO{Stat: name, Percentile: pct, LimitUs: v * mult, Strict: op == "<", Limit: limit}, nil
}

// String returns the objective as it is printed: "p99<=2ms".
func (o SLO) String() string {
	if o.Strict {
		return o.Stat + "<" + o.Limit
	}
	return o.Stat + "<=" + o.Limit
}

// Met reports whether a statistic of v µs meets the objective.
func (o SLO) Met(v float64) bool {
	if o.Strict {
		return v < o.LimitUs
	}
	return v <= o.LimitUs
}

// Op returns the comparison as printed between value and limit: "<=" or
// "<" when met, ">" or ">=" when not.
func (o SLO) Op(met bool) string {
	switch {
	case met && o.Strict:
		return "<"
	case met:
		return "<="
	case o.Strict:
		return ">="
	}
	return ">"
}
