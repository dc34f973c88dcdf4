package compare

import (
	"math"
	"sort"
)

// FamilyAlpha is the family-wise error level at which the rows of one
// comparison are judged together: the chance that a comparison of two
// identical sides reads faster or slower at any row, over every row and
// every look of the sequential rule, is at most FamilyAlpha, and the
// chance that it reads slower (fails --fail-if-slower) at most half of it.
const FamilyAlpha = 0.01

// Holm returns which of the hypotheses with p-values ps the Holm–Bonferroni
// procedure rejects at family-wise level alpha: sorted ascending, the i-th
// smallest (0-based) is compared with alpha/(m-i), and every hypothesis up
// to the first that fails is rejected. It controls the chance of any false
// rejection at alpha whatever the dependence between the tests, and rejects
// everything Bonferroni (alpha/m each) does and more. NaN p-values are
// never rejected.
func Holm(ps []float64, alpha float64) []bool {
	adj := HolmAdjust(ps)
	out := make([]bool, len(ps))
	for i, p := range adj {
		out[i] = p <= alpha
	}
	return out
}

// HolmAdjust returns the Holm-adjusted p-values of ps, in the order given:
// the i-th smallest (0-based) becomes max over j <= i of (m-j)·p_(j),
// capped at 1, so that a hypothesis is rejected at family-wise level alpha
// exactly when its adjusted p-value is at most alpha. A NaN stays NaN and
// takes no part.
func HolmAdjust(ps []float64) []float64 {
	idx := make([]int, 0, len(ps))
	for i, p := range ps {
		if !math.IsNaN(p) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	out := make([]float64, len(ps))
	for i := range out {
		out[i] = math.NaN()
	}
	m, run := len(idx), 0.0
	for rank, i := range idx {
		run = math.Max(run, math.Min(1, float64(m-rank)*ps[i]))
		out[i] = run
	}
	return out
}
