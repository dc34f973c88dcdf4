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

// spreadTail is the one-sided tail of the interval a row's spread is read
// from: one normal standard deviation either side of the estimate. The
// ends of the intervals that decide (the family's at about 1e-4 a side,
// the equivalence's at about 1%) overstate the spread at the few rounds an
// undecided row has: there they reach into the tails of the Walsh
// averages' distribution, which bend away from the straight line that
// normal theory scales by (at 22 rounds the family ends read a per-round
// spread 1.7 times what a central interval reads, on normal data).
var spreadTail = normalCDF(-1)

// rowSpreads returns the spread of one round's difference below and
// above the centre theta of n rounds whose sorted Walsh averages are a:
// the distance of each end of the central signed-rank interval
// (spreadTail) from theta, times √n, over the normal quantile of the tail
// that end holds exactly; the standard deviation of one round's
// Hodges–Lehmann estimate, side by side. ok is false when n rounds have
// no such interval.
func rowSpreads(a []float64, n int, theta float64) (lo, hi float64, ok bool) {
	k := signedRankCritical(n, spreadTail)
	if k <= 0 {
		return 0, 0, false
	}
	z := -normalQuantile(signedRankLowerTail(n, float64(k-1)))
	if !(z > 0) {
		return 0, 0, false
	}
	f := math.Sqrt(float64(n)) / z
	return math.Max(0, theta-a[k-1]) * f, math.Max(0, a[len(a)-k]-theta) * f, true
}

// project returns the projection of a gated row judged undecided
// (JudgeRounds): how many rounds in all would decide it with even odds,
// were the true change its estimate theta and one round's spread what its
// rounds showed (rowSpreads), at the levels d's last look would use
// (Levels, with open the rows still open in each family: the multiplicity
// correction stays), at the threshold and at twice it. It is normal-theory
// scaling, an approximation: at n rounds the estimate is normal about
// theta with the spread over √n, and each interval end lies its level's
// normal quantile of that from the estimate, so a half-width shrinks as
// 1/√n. The decisions open to the row are those of verdict: higher
// (lower) when the estimate lies beyond the threshold, at the rounds whose
// family interval's lower (upper) end reaches 0; the same when it lies
// strictly within ± the threshold, at the rounds where the equivalence
// interval's half-width is below the threshold less |theta| with even
// odds, counting the estimate's own noise (sameRounds; it matters only
// for an estimate near 0). The projection is at least the next pair; none
// (Rounds 0) when the estimate sits at ± the threshold, where neither
// decision is open. It returns nil when the row has too few rounds for a
// spread.
func (d Design) project(a []float64, n int, open Open, fromPct func(float64) float64) *report.Projection {
	theta := median(a)
	slo, shi, ok := rowSpreads(a, n, theta)
	if !ok {
		return nil
	}
	looks := d.LookRounds()
	last := d.lookLevels(len(looks), looks[len(looks)-1], open)
	zlo, zhi, zeq := -normalQuantile(last.lo), -normalQuantile(last.hi), -normalQuantile(last.eq)
	at := func(pct float64) (int, string) {
		u, l := fromPct(pct), fromPct(-pct)
		higher := true
		var rounds float64
		switch {
		case theta > u && theta > 0:
			rounds = math.Pow(zlo*slo/theta, 2)
		case theta < l && theta < 0:
			rounds, higher = math.Pow(zhi*shi/theta, 2), false
		case theta > l && theta < u:
			return projectedRounds(sameRounds(theta, l, u, zeq, slo, shi), n), report.VerdictSame
		default:
			return 0, ""
		}
		if higher != report.HigherIsBetter(d.GateMetric) {
			return projectedRounds(rounds, n), report.VerdictSlower
		}
		return projectedRounds(rounds, n), report.VerdictFaster
	}
	p := &report.Projection{RoundSD: (slo + shi) / 2 / math.Sqrt(math.Pi/3)}
	p.Rounds, p.Decision = at(d.ThresholdPct)
	p.Rounds2x, p.Decision2x = at(2 * d.ThresholdPct)
	return p
}

// sameRounds returns the rounds at which a row of true change theta,
// strictly within (l, u), reads the same with even odds: its estimate,
// normal about theta with the mean of the spreads slo and shi over
// √rounds, lies at least z·slo/√rounds above l and z·shi/√rounds below u.
// The chance grows with the rounds, so it is found by bisection, up to
// maxProjectedRounds.
func sameRounds(theta, l, u, z, slo, shi float64) float64 {
	sd := (slo + shi) / 2
	chance := func(n float64) float64 {
		r := math.Sqrt(n)
		if sd == 0 {
			return 1
		}
		return normalCDF((u-z*shi/r-theta)*r/sd) - normalCDF((l+z*slo/r-theta)*r/sd)
	}
	lo, hi := 1.0, maxProjectedRounds
	if chance(hi) < 0.5 {
		return hi
	}
	for hi-lo > 0.5 {
		mid := math.Sqrt(lo * hi) // the rounds span decades
		if chance(mid) >= 0.5 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// projectedRounds rounds a projection of x rounds up to whole ABBA pairs,
// at least the pair after the n rounds run, at most maxProjectedRounds.
func projectedRounds(x float64, n int) int {
	x = math.Min(math.Ceil(x), maxProjectedRounds)
	return max(even(int(x)), even(n+1))
}
