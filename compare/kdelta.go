package compare

import (
	"math"

	"github.com/aclements/go-moremath/stats"

	"github.com/gofio/gofio/internal/kstage"
	"github.com/gofio/gofio/report"
)

// StageConfidence is the level of the kernel stage deltas' intervals.
const StageConfidence = 0.95

// ExplainStages gives every row whose two sides both have per-repeat
// kernel stages its KStageDeltas: for each stage, and for their sum, new -
// old of the per-repeat means with a Student t interval at
// StageConfidence. Within one run the sides ran in pairs (one repeat of
// each, interleaved), and the interval is the paired one over the
// repeats' differences; a diff of two runs compares two independent
// samples (Welch's interval). A row without stages on a side gets none.
func ExplainStages(c *report.Comparison) {
	paired := c.Compared && c.New.Key != report.DiffSideKey
	for i := range c.Rows {
		r := &c.Rows[i]
		r.KStageDeltas = nil
		n, o := stageSamples(&r.New), stageSamples(&r.Old)
		if len(n) == 0 || len(o) == 0 {
			continue
		}
		d := &report.KStageDeltas{Confidence: StageConfidence}
		if pn, po, ok := pairByRepeat(&r.New, &r.Old); paired && ok {
			d.Paired, d.N = true, len(pn)
			for s := range d.Stages {
				d.Stages[s] = pairedDelta(pn, po, func(v *[kstage.NumStages + 1]float64) float64 { return v[s] })
			}
			d.Sum = pairedDelta(pn, po, func(v *[kstage.NumStages + 1]float64) float64 { return v[kstage.NumStages] })
		} else {
			d.N = min(len(n), len(o))
			for s := range d.Stages {
				d.Stages[s] = welchDelta(n, o, s)
			}
			d.Sum = welchDelta(n, o, int(kstage.NumStages))
		}
		r.KStageDeltas = d
	}
}

// stageSample is one repeat's stage means, µs, and their sum last.
type stageSample = [kstage.NumStages + 1]float64

func sampleOf(k *report.RepeatKStages) stageSample {
	var v stageSample
	for s := range kstage.NumStages {
		v[s] = k.MeanUs[s]
		v[kstage.NumStages] += k.MeanUs[s]
	}
	return v
}

// stageSamples are the side's repeats that have stages.
func stageSamples(s *report.ComparisonSide) []stageSample {
	var out []stageSample
	for _, r := range s.Repeats {
		if r.KStages != nil && r.KStages.Joined > 0 {
			out = append(out, sampleOf(r.KStages))
		}
	}
	return out
}

// pairByRepeat pairs the sides' repeats by index, each pair with stages
// on both sides; false when their repeat indexes differ (not run in
// pairs).
func pairByRepeat(n, o *report.ComparisonSide) (pn, po []stageSample, ok bool) {
	if len(n.Repeats) != len(o.Repeats) {
		return nil, nil, false
	}
	byRepeat := make(map[int]*report.RepeatKStages, len(o.Repeats))
	for _, r := range o.Repeats {
		byRepeat[r.Repeat] = r.KStages
	}
	for _, r := range n.Repeats {
		ko, had := byRepeat[r.Repeat]
		if !had {
			return nil, nil, false
		}
		if r.KStages == nil || r.KStages.Joined == 0 || ko == nil || ko.Joined == 0 {
			continue
		}
		pn = append(pn, sampleOf(r.KStages))
		po = append(po, sampleOf(ko))
	}
	return pn, po, len(pn) > 0
}

// pairedDelta is the mean of the pairs' differences of figure f, with
// its t interval (NaN bounds with fewer than two pairs).
func pairedDelta(pn, po []stageSample, f func(v *stageSample) float64) report.KStageDelta {
	d := make([]float64, len(pn))
	for i := range pn {
		d[i] = f(&pn[i]) - f(&po[i])
	}
	mean, sd := meanSD(d)
	out := report.KStageDelta{MeanUs: mean, LoUs: math.NaN(), HiUs: math.NaN()}
	if n := float64(len(d)); n >= 2 {
		h := tQuantile(n-1) * sd / math.Sqrt(n)
		out.LoUs, out.HiUs = mean-h, mean+h
	}
	return out
}

// welchDelta is the difference of the sides' means of figure k with
// Welch's t interval (NaN bounds with fewer than two repeats a side).
func welchDelta(n, o []stageSample, k int) report.KStageDelta {
	col := func(xs []stageSample) []float64 {
		v := make([]float64, len(xs))
		for i := range xs {
			v[i] = xs[i][k]
		}
		return v
	}
	mn, sn := meanSD(col(n))
	mo, so := meanSD(col(o))
	out := report.KStageDelta{MeanUs: mn - mo, LoUs: math.NaN(), HiUs: math.NaN()}
	nn, no := float64(len(n)), float64(len(o))
	if nn < 2 || no < 2 {
		return out
	}
	vn, vo := sn*sn/nn, so*so/no
	se := math.Sqrt(vn + vo)
	if se == 0 {
		out.LoUs, out.HiUs = out.MeanUs, out.MeanUs
		return out
	}
	df := (vn + vo) * (vn + vo) / (vn*vn/(nn-1) + vo*vo/(no-1))
	h := tQuantile(df) * se
	out.LoUs, out.HiUs = out.MeanUs-h, out.MeanUs+h
	return out
}

// meanSD is the mean and sample standard deviation of xs (sd 0 for one).
func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// tQuantile is Student's t quantile at (1 + StageConfidence) / 2 with df
// degrees of freedom.
func tQuantile(df float64) float64 {
	return stats.InvCDF(stats.TDist{V: df})((1 + StageConfidence) / 2)
}
