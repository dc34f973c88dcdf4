package compare

import (
	"math"

	"github.com/gofio/gofio/report"
)

// This file projects how far a gated row still undecided stands from a
// decision: the rounds it would need at the spread its own rounds showed.
// docs/ci.md says how to read it.

// maxProjectedRounds bounds a projection: an estimate a hair from the
// threshold would otherwise project rounds beyond any count worth
// printing (it is out of reach long before, report.DesignInfo.RoundsCap).
const maxProjectedRounds = 1e12

// spreadTail is the one-sided tail of the central interval a projection
// reads a row's spread from near its estimate: one normal standard
// deviation either side.
var spreadTail = normalCDF(-1)

// projector projects the intervals of a row of rounds to more rounds.
// The signed-rank interval of m rounds at a one-sided normal quantile z
// cuts the sorted Walsh averages at the fraction 0.5 - z·sd/M of them from
// either end (T+'s normal approximation: mean M/2 = m(m+1)/4, standard
// deviation sd); the Walsh averages of more rounds of the same runner
// spread as those of the rounds run do, so the projected end is the
// current Walsh averages' quantile at that fraction. That reads the
// nonlinear tails of their distribution (which, read as a standard
// deviation, would overstate the spread at few rounds: 1.7 times at 22
// rounds for the family interval's ends on normal data) and ties (a p99
// of histogram buckets) as they are. Nearer the centre than the central
// interval (spreadTail) the rounds run resolve too few averages, and the
// end moves linearly between that interval's end and the estimate: the
// 1/√m of normal theory.
type projector struct {
	a        []float64 // the Walsh averages, sorted
	theta    float64   // the estimate, their median
	fc       float64   // the fraction the central interval cuts at
	clo, chi float64   // its ends
	sd       float64   // one round's Hodges–Lehmann sd (√n times the estimate's)
}

// newProjector returns the projector of n rounds whose sorted Walsh
// averages are a; ok is false when n rounds have no central interval.
func newProjector(a []float64, n int) (p projector, ok bool) {
	k := signedRankCritical(n, spreadTail)
	if k <= 0 {
		return p, false
	}
	p = projector{a: a, theta: median(a), fc: (float64(k) - 0.5) / float64(len(a)), clo: a[k-1], chi: a[len(a)-k]}
	if z := -normalQuantile(signedRankLowerTail(n, float64(k-1))); z > 0 {
		p.sd = (p.chi - p.clo) / 2 * math.Sqrt(float64(n)) / z
	}
	return p, true
}

// end returns the lower end (upper: the upper end) of the interval m
// rounds would give at the one-sided normal quantile z.
func (p projector) end(m, z float64, upper bool) float64 {
	pairs := m * (m + 1) / 2
	f := math.Max(0, 0.5-z*math.Sqrt(m*(m+1)*(2*m+1)/24)/pairs)
	if f < p.fc {
		if upper {
			return walshQuantile(p.a, 1-f)
		}
		return walshQuantile(p.a, f)
	}
	t := (0.5 - f) / (0.5 - p.fc)
	if upper {
		return p.theta + t*(p.chi-p.theta)
	}
	return p.theta - t*(p.theta-p.clo)
}

// walshQuantile returns the quantile at fraction f of the sorted a, the
// i-th (0-based) at (i+0.5)/len(a), linear between them.
func walshQuantile(a []float64, f float64) float64 {
	x := f*float64(len(a)) - 0.5
	switch {
	case x <= 0:
		return a[0]
	case x >= float64(len(a)-1):
		return a[len(a)-1]
	}
	i := int(x)
	return a[i] + (x-float64(i))*(a[i+1]-a[i])
}

// fewest returns the fewest rounds from n on at which decided holds (it
// holds from some count on), by bisection on a log scale, up to
// maxProjectedRounds.
func fewest(n int, decided func(m float64) bool) float64 {
	lo, hi := float64(n), maxProjectedRounds
	if decided(lo) {
		return lo
	}
	if !decided(hi) {
		return hi
	}
	for hi-lo > 0.5 {
		mid := math.Sqrt(lo * hi)
		if decided(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// project returns the projection of a gated row judged undecided
// (JudgeRounds) from its n rounds: w, its sorted per-round differences,
// and a, their sorted Walsh averages. It is how many rounds in all would
// decide the row with even odds were the Walsh averages of further rounds
// to spread as these do about the estimate (projector), at the levels d's
// last look would use (Levels, with open the rows still open in each
// family: the multiplicity correction stays), at the threshold and at
// twice it: normal-theory scaling, an approximation. The decisions open
// to the row are those of verdict: higher (lower) when the estimate lies
// beyond the threshold, at the rounds whose family interval's lower
// (upper) end passes 0; the same when it lies strictly within ± the
// threshold, at the rounds where both ends of the equivalence interval
// lie within it, with even odds counting the estimate's own noise at
// those rounds (it matters only for an estimate near 0). The projection
// is at least the next pair; none (Rounds 0) when the estimate sits at ±
// the threshold, where neither decision is open. It returns nil when the
// row has too few rounds for a central interval.
func (d Design) project(w walsh, a []float64, open Open, fromPct func(float64) float64) *report.Projection {
	n := len(w)
	pr, ok := newProjector(a, n)
	if !ok {
		return nil
	}
	looks := d.LookRounds()
	last := d.lookLevels(len(looks), looks[len(looks)-1], open)
	zlo, zhi, zeq := -normalQuantile(last.lo), -normalQuantile(last.hi), -normalQuantile(last.eq)
	theta := pr.theta
	at := func(pct float64) (int, string) {
		u, l := fromPct(pct), fromPct(-pct)
		higher := true
		var rounds float64
		switch {
		case theta > u && theta > 0:
			rounds = fewest(n, func(m float64) bool { return pr.end(m, zlo, false) > 0 })
		case theta < l && theta < 0:
			rounds, higher = fewest(n, func(m float64) bool { return pr.end(m, zhi, true) < 0 }), false
		case theta > l && theta < u:
			return projectedRounds(fewest(n, func(m float64) bool {
				lo, hi := pr.end(m, zeq, false), pr.end(m, zeq, true)
				if pr.sd <= 0 {
					return lo > l && hi < u
				}
				se := pr.sd / math.Sqrt(m)
				return normalCDF((u-hi)/se)-normalCDF((l-lo)/se) >= 0.5
			}), n), report.VerdictSame
		default:
			return 0, ""
		}
		if higher != report.HigherIsBetter(d.GateMetric) {
			return projectedRounds(rounds, n), report.VerdictSlower
		}
		return projectedRounds(rounds, n), report.VerdictFaster
	}
	p := &report.Projection{RoundSD: stddev(w)}
	p.Rounds, p.Decision = at(d.ThresholdPct)
	p.Rounds2x, p.Decision2x = at(2 * d.ThresholdPct)
	return p
}

// stddev returns the sample standard deviation of xs (0 for fewer than
// two).
func stddev(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}

// projectedRounds rounds a projection of x rounds up to whole ABBA pairs,
// at least the pair after the n rounds run, at most maxProjectedRounds.
func projectedRounds(x float64, n int) int {
	x = math.Min(math.Ceil(x), maxProjectedRounds)
	return max(even(int(x)), even(n+1))
}
