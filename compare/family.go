package compare

import (
	"math"
	"sort"

	"github.com/gofio/gofio/report"
)

// FamilyAlpha is the family-wise error level at which the rows of one
// comparison in rounds are judged together: the chance that a comparison
// of two identical sides reads slower (fails --fail-if-slower) at any
// row, over every row and every look of the sequential rule, is at most
// FamilyAlpha, and so is the chance that it reads faster at any row.
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

// stepDown runs Holm's step-down procedure over n rows judged at one look
// of the sequential rule, in the graphical form Maurer and Bretz (2013)
// give for group-sequential designs: judge(i, open) judges row i with
// open the rows whose hypothesis is still open in each family, and
// returns its verdict; while rows are read slower or faster, each such
// row's share of its family's error passes to the rows still open, and
// every row not yet read slower or faster is judged again. open is where
// the families stood before the look; stepDown returns where they stand
// after it.
func stepDown(open Open, n int, judge func(i int, open Open) string) Open {
	rejected := make([]bool, n)
	for {
		next := open
		for i := range n {
			if rejected[i] {
				continue
			}
			switch judge(i, open) {
			case report.VerdictSlower:
				rejected[i] = true
				next.Slower--
			case report.VerdictFaster:
				rejected[i] = true
				next.Faster--
			}
		}
		if next == open {
			return open
		}
		open = next
	}
}

// adjustTogether judges rows' statistics together, as Judge and JudgeKLock
// do: each that is not too few gets its Holm-adjusted p-value over those
// (PAdj), and a faster or slower verdict whose adjusted p-value is not
// below Alpha becomes no evidence.
func adjustTogether(stats []*report.RowStats) {
	var ps []float64
	var judged []*report.RowStats
	for _, s := range stats {
		if s.Verdict != report.VerdictTooFew {
			ps = append(ps, s.P)
			judged = append(judged, s)
		}
	}
	for i, p := range HolmAdjust(ps) {
		s := judged[i]
		s.PAdj = p
		if p >= Alpha && (s.Verdict == report.VerdictFaster || s.Verdict == report.VerdictSlower) {
			s.Verdict = report.VerdictNoEvidence
		}
	}
}
