package compare

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"
)

// This file is the history gate's prediction rule, made for the noise of
// a shared runner: between runs it is heavy-tailed (a neighbour's burst
// slows a whole run), and a rule that assumes normal noise reads such a
// run as a slowdown. The new run's log median y is compared with the
// earlier runs' by their median and their scale s = 1.4826·MAD (the
// median absolute deviation, scaled to be the standard deviation under
// normal noise), which an odd earlier run moves little; the statistic
//
//	Z = (y - median) / (s·√(1 + 1/n))
//
// is location- and scale-free, so its law under no change depends only on
// n and the shape of the noise. It is taken for Student's t with
// robustPredictionDF degrees of freedom, the heaviest tails whose
// variance is finite and a common model of benchmark outliers: for light
// tails (normal noise) the rule is then conservative, for t3 it is exact.
// Its tail is computed as P(Z >= z) = E[1 - F(median_k + z·s_k·√(1+1/n))]
// over robustPredictionHistories simulated histories of n draws (F the t
// distribution function, exact for the new run's own draw): a smooth
// average that is accurate far into the tail, the same for every call
// (the histories are drawn from a fixed seed per n) and cheap enough to
// evaluate per row.

// robustPredictionDF is the degrees of freedom of the Student's t noise
// the rule is exact for (studentT3CDF is its distribution function).
const robustPredictionDF = 3

// robustPredictionHistories is how many simulated histories the tail is
// averaged over.
const robustPredictionHistories = 2000

// madScale makes the median absolute deviation the standard deviation of
// normal noise: 1/Φ⁻¹(3/4).
const madScale = 1.482602218505602

// predictRobust is the history gate's prediction of y from the earlier log
// figures xs (at least two): the difference from their median, its scale
// 1.4826·MAD·√(1+1/n), and the tail of Z under Student's t noise with
// robustPredictionDF degrees of freedom.
func predictRobust(xs []float64, y float64) prediction {
	n := len(xs)
	med, mad := medianMAD(xs)
	ref := robustReference(n)
	return prediction{diff: y - med, se: madScale * mad * math.Sqrt(1+1/float64(n)), tailOf: ref.tail}
}

// medianMAD returns the median of xs and their median absolute deviation
// from it.
func medianMAD(xs []float64) (med, mad float64) {
	s := sortedCopy(xs)
	med = median(s)
	for i, x := range s {
		s[i] = math.Abs(x - med)
	}
	sort.Float64s(s)
	return med, median(s)
}

// robustRef is the simulated histories of one n: each one's median and
// scale, in units of the noise's scale, the scale times √(1+1/n); and
// the log of the tail at z = e^u on an even grid of u, from which tail
// interpolates.
type robustRef struct {
	med, scale []float64
	logTail    []float64
}

// The grid of robustRef.logTail: u from tailGridLow in tailGridSteps steps
// of tailGridStep, z from 0.01 to about 10^4, where the tail of any n is
// below 10^-9.
const (
	tailGridLow   = -4.605170185988091 // log 0.01
	tailGridStep  = 0.0115
	tailGridSteps = 1202
)

// robustRefs caches the references by n.
var robustRefs = struct {
	sync.Mutex
	byN map[int]*robustRef
}{byN: map[int]*robustRef{}}

// robustReference returns the simulated histories of n runs, drawing them
// the first time from a seed of n.
func robustReference(n int) *robustRef {
	robustRefs.Lock()
	defer robustRefs.Unlock()
	if r, ok := robustRefs.byN[n]; ok {
		return r
	}
	rng := rand.New(rand.NewPCG(uint64(n), 0x6f66696f))
	r := &robustRef{med: make([]float64, robustPredictionHistories), scale: make([]float64, robustPredictionHistories)}
	xs := make([]float64, n)
	for k := range r.med {
		for i := range xs {
			xs[i] = studentTDraw(rng, robustPredictionDF)
		}
		med, mad := medianMAD(xs)
		r.med[k], r.scale[k] = med, madScale*mad*math.Sqrt(1+1/float64(n))
	}
	r.logTail = make([]float64, tailGridSteps+1)
	for i := range r.logTail {
		r.logTail[i] = math.Log(r.sum(math.Exp(tailGridLow + float64(i)*tailGridStep)))
	}
	robustRefs.byN[n] = r
	return r
}

// sum returns P(Z >= z) under no change, averaged over the histories.
func (r *robustRef) sum(z float64) float64 {
	sum := 0.0
	for k, m := range r.med {
		sum += 1 - studentT3CDF(m+z*r.scale[k])
	}
	return sum / float64(len(r.med))
}

// tail returns P(Z >= z) under no change: from the grid, linear in log z
// and log tail, within it; averaged afresh below it; beyond it, the t3
// law's own decay as z⁻³; for z < 0, 1 - tail(-z) (Z is symmetric).
func (r *robustRef) tail(z float64) float64 {
	switch {
	case math.Abs(z) <= math.Exp(tailGridLow):
		return r.sum(z)
	case z < 0:
		return 1 - r.tail(-z)
	}
	f := (math.Log(z) - tailGridLow) / tailGridStep
	i := int(f)
	if i >= tailGridSteps {
		last := tailGridLow + tailGridSteps*tailGridStep
		return math.Exp(r.logTail[tailGridSteps] - 3*(math.Log(z)-last))
	}
	f -= float64(i)
	return math.Exp(r.logTail[i]*(1-f) + r.logTail[i+1]*f)
}

// studentT3CDF is the distribution function of Student's t with 3 degrees
// of freedom, in closed form.
func studentT3CDF(t float64) float64 {
	u := t / math.Sqrt(3)
	return 0.5 + (math.Atan(u)+u/(1+u*u))/math.Pi
}

// studentTDraw draws from Student's t with nu degrees of freedom: a
// normal over the root of a chi-square (a sum of nu squared normals) over
// nu.
func studentTDraw(rng *rand.Rand, nu int) float64 {
	chi := 0.0
	for range nu {
		z := rng.NormFloat64()
		chi += z * z
	}
	return rng.NormFloat64() / math.Sqrt(chi/float64(nu))
}
