package compare

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aclements/go-moremath/stats"

	"github.com/gofio/gofio/internal/canary"
	"github.com/gofio/gofio/report"
)

// This file is gofio history: a run judged against the earlier runs of the
// same jobs on the same runner instead of against one baseline. The runs'
// own spread is the between-run noise that a single baseline cannot show.

// MinHistoryRuns is the fewest earlier runs a row is judged against: the
// prediction interval's t quantile has n-1 degrees of freedom, and below
// five it is too wide to gate on (as for gofio drift).
const MinHistoryRuns = MinDriftRuns

// HistoryLast is the default of how many runs, at most, a row is judged
// against: the most recent since its last change point.
const HistoryLast = 30

// HistoryOptions say how History judges.
type HistoryOptions struct {
	Dir          string  // where the runs came from, for the report
	Last         int     // at most this many earlier runs per row; 0 means HistoryLast
	GateMetric   string  // "" means report.GateAvg
	FailIfSlower float64 // the gate in percent; < 0 when not gated
}

// ReadHistory reads every *.json file in dir (not below) that is a saved
// gofio run, oldest first by the time the run was made (the file's
// modification time where the run does not say). Files that are not
// gofio runs are left out and said.
func ReadHistory(dir string) (runs []*Saved, skipped []string, err error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, nil, fmt.Errorf("history %s: %w", dir, err)
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	for _, p := range paths {
		s, err := ReadSaved(p)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: not a saved gofio run (%v)", filepath.Base(p), err))
			continue
		}
		if s.Time.IsZero() {
			if fi, err := os.Stat(p); err == nil {
				s.Time = fi.ModTime().UTC()
			}
		}
		runs = append(runs, s)
	}
	slices.SortStableFunc(runs, func(a, b *Saved) int { return a.Time.Compare(b.Time) })
	return runs, skipped, nil
}

// ErrNoHistory is History's error when no earlier run of the same jobs on
// the same runner is left to judge against.
var ErrNoHistory = errors.New("no earlier run of these jobs on this runner")

// History judges cur against the runs made before it of the same jobs,
// comparison and runner fingerprint (Diff's checks; others are left out,
// each said): per row, the series of per-run medians of the gate metric,
// its change points (ChangePoints on the log medians, naming the run where
// the row moved), and cur's median against the runs since the row's last
// change point before cur, at most opt.Last, by a prediction test on the
// log scale: under the two-level model of docs/ci.md the log median of an
// unchanged run is normal around the history's mean with the history's
// spread, so (y - mean)/(s·√(1+1/n)) follows Student's t with n-1 degrees
// of freedom. The rows are judged together, Holm-adjusted at FamilyAlpha;
// the gate fails a row whose one-sided p of "slower by more than
// FailIfSlower percent" is rejected. The canary is checked the same way
// against the history's canaries (historyRunner).
func History(runs []*Saved, cur *Saved, opt HistoryOptions) (*report.History, error) {
	if opt.Last <= 0 {
		opt.Last = HistoryLast
	}
	if opt.GateMetric == "" {
		opt.GateMetric = report.GateAvg
	}
	h := &report.History{Dir: opt.Dir, Last: opt.Last, GateMetric: opt.GateMetric, Alpha: FamilyAlpha, FailIfSlower: opt.FailIfSlower}
	var series []*Saved
	for _, r := range earlier(runs, cur) {
		if why := historyMismatch(r, cur); why != "" {
			h.Skipped = append(h.Skipped, filepath.Base(r.Path)+": "+why)
			continue
		}
		series = append(series, r)
	}
	if len(series) == 0 {
		return h, fmt.Errorf("%w in %s (%d left out)", ErrNoHistory, opt.Dir, len(h.Skipped))
	}
	series = append(series, cur)
	for _, r := range series {
		h.Runs = append(h.Runs, report.HistoryRun{Path: filepath.Base(r.Path), Time: r.Time})
	}
	keys, _ := runRows(cur, opt.GateMetric)
	meds := make([]map[string]float64, len(series))
	for i, r := range series {
		_, meds[i] = runRows(r, opt.GateMetric)
	}
	for _, k := range keys {
		h.Rows = append(h.Rows, historyRow(h, k, meds, opt))
	}
	judgeHistory(h)
	h.Runner = historyRunner(series, opt.Last)
	return h, nil
}

// earlier returns the runs made before cur: those before it in runs
// when cur is one of them (the same file), else those not made after it.
func earlier(runs []*Saved, cur *Saved) []*Saved {
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	for i, r := range runs {
		if r == cur || abs(r.Path) == abs(cur.Path) {
			return runs[:i]
		}
	}
	var out []*Saved
	for _, r := range runs {
		if cur.Time.IsZero() || !r.Time.After(cur.Time) {
			out = append(out, r)
		}
	}
	return out
}

// historyMismatch says why run r is not in cur's series, "" when it is:
// other jobs or comparison, another runner, or no description.
func historyMismatch(r, cur *Saved) string {
	if r.Info == nil || cur.Info == nil {
		return "the run does not describe itself (no " + report.RunJSONKey + ")"
	}
	_, jobs, runner := comparable(r, cur)
	if len(jobs) > 0 {
		return strings.Join(jobs, "; ")
	}
	if len(runner) > 0 {
		var parts []string
		for _, c := range runner {
			parts = append(parts, c.String())
		}
		return "another runner: " + strings.Join(parts, "; ")
	}
	return ""
}

// historyRow builds row k's series, change points and prediction (not yet
// Holm-adjusted) from each run's medians; the last run is the new one.
func historyRow(h *report.History, k string, meds []map[string]float64, opt HistoryOptions) report.HistoryRow {
	row := report.HistoryRow{Key: k, LoPct: math.NaN(), HiPct: math.NaN(), P: 1, PGate: 1, Verdict: report.VerdictTooFewRuns}
	var logs []float64
	var at []int // the run index of each point of logs
	for i, m := range meds {
		v, ok := m[k]
		if !ok || !(v > 0) {
			row.Medians = append(row.Medians, math.NaN())
			continue
		}
		row.Medians = append(row.Medians, v)
		logs = append(logs, math.Log(v))
		at = append(at, i)
	}
	n := len(meds) - 1
	if len(at) == 0 || at[len(at)-1] != n {
		return row // the new run lacks the row
	}
	row.New = row.Medians[n]
	for _, c := range ChangePoints(logs, ChangeOptions{}) {
		i := at[c.Index]
		row.Changes = append(row.Changes, report.HistoryChange{Run: i, Path: h.Runs[i].Path, DeltaPct: math.Expm1(c.After-c.Before) * 100, P: c.P})
	}
	// The runs judged against: those since the last change point of the
	// history alone (so the new run cannot move the baseline it is judged
	// against), at most opt.Last.
	hist := logs[:len(logs)-1]
	from := 0
	if cps := ChangePoints(hist, ChangeOptions{}); len(cps) > 0 {
		from = cps[len(cps)-1].Index
	}
	base := hist[from:]
	if len(base) > opt.Last {
		base = base[len(base)-opt.Last:]
	}
	row.N = len(base)
	if len(base) > 0 {
		med, _ := medianMAD(base)
		row.Median = math.Exp(med)
		row.DeltaPct = (row.New/row.Median - 1) * 100
	}
	if len(base) < MinHistoryRuns {
		return row
	}
	y := logs[len(logs)-1]
	p := predictRobust(base, y)
	row.DeltaPct, row.LoPct, row.HiPct, row.P = p.delta(), p.bound(-1, FamilyAlpha), p.bound(1, FamilyAlpha), p.twoSided()
	gate := math.Max(opt.FailIfSlower, 0)
	row.PGate = p.slowerBeyond(gate, report.HigherIsBetter(opt.GateMetric))
	row.Verdict = report.VerdictNoEvidence
	return row
}

// judgeHistory Holm-adjusts the rows' p-values over the rows judged and
// names their verdicts, then the history's.
func judgeHistory(h *report.History) {
	var idx []int
	var ps, gs []float64
	for i, r := range h.Rows {
		if r.Verdict != report.VerdictTooFewRuns {
			idx = append(idx, i)
			ps = append(ps, r.P)
			gs = append(gs, r.PGate)
		}
	}
	pa, ga := HolmAdjust(ps), HolmAdjust(gs)
	for k, i := range idx {
		r := &h.Rows[i]
		r.P, r.PGate = pa[k], ga[k]
		if r.P <= h.Alpha {
			r.Verdict = report.VerdictSlower
			if (r.DeltaPct > 0) == report.HigherIsBetter(h.GateMetric) {
				r.Verdict = report.VerdictFaster
			}
		}
	}
}

// HistoryFailed returns the rows of h that fail its gate: judged, with the
// Holm-adjusted one-sided p of "slower by more than FailIfSlower" at most
// Alpha.
func HistoryFailed(h *report.History) []report.HistoryRow {
	var out []report.HistoryRow
	if h.FailIfSlower < 0 {
		return nil
	}
	for _, r := range h.Rows {
		if r.Verdict != report.VerdictTooFewRuns && r.PGate <= h.Alpha {
			out = append(out, r)
		}
	}
	return out
}

// prediction is a new log figure y against a sample of earlier ones: its
// difference from their centre, the scale of that difference, and the
// upper tail of the standardised difference under no change.
type prediction struct {
	diff, se float64
	tailOf   func(z float64) float64
}

// predict is the normal-theory prediction: the sample's mean, the
// standard error of y - mean, s·√(1+1/n), and Student's t with n-1
// degrees of freedom.
func predict(xs []float64, y float64) prediction {
	n := float64(len(xs))
	t := stats.TDist{V: n - 1}
	return prediction{diff: y - stats.Mean(xs), se: stats.StdDev(xs) * math.Sqrt(1+1/n), tailOf: func(z float64) float64 { return 1 - t.CDF(z) }}
}

// delta is the change in percent.
func (p prediction) delta() float64 { return math.Expm1(p.diff) * 100 }

// bound is the lower (side -1) or upper (+1) end of the 1-alpha
// prediction interval of the change, in percent.
func (p prediction) bound(side, alpha float64) float64 {
	lo, hi := 0.0, 1.0
	for p.tailOf(hi) > alpha/2 && hi < 1e9 {
		hi *= 2
	}
	for range 100 {
		mid := (lo + hi) / 2
		if p.tailOf(mid) > alpha/2 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Expm1(p.diff+side*hi*p.se) * 100
}

// tail is the chance under no change of a standardised difference beyond
// shift/se; with no spread at all, 0 or 1 by the sign.
func (p prediction) tail(shift float64) float64 {
	if p.se == 0 {
		if shift > 0 {
			return 0
		}
		return 1
	}
	return p.tailOf(shift / p.se)
}

// twoSided is the p-value of "no change".
func (p prediction) twoSided() float64 {
	return math.Min(1, 2*p.tail(math.Abs(p.diff)))
}

// slowerBeyond is the one-sided p-value of "slower by more than pct
// percent": a latency higher than (1+pct/100) times the history's, or
// IOPS lower than 1/(1+pct/100) of it.
func (p prediction) slowerBeyond(pct float64, higherIsBetter bool) float64 {
	margin := math.Log1p(pct / 100)
	if higherIsBetter {
		return p.tail(-p.diff - margin)
	}
	return p.tail(p.diff - margin)
}

// historyRunner checks the new run's canary against the canaries of the
// last runs of the history (at most last): per item, a prediction test on
// the log of each run's median figure; an item moved when p < CanaryAlpha
// and its whole interval lies beyond ±CanaryTolerancePct.
func historyRunner(series []*Saved, last int) *report.RunnerCheck {
	rc := &report.RunnerCheck{TolerancePct: CanaryTolerancePct, Alpha: CanaryAlpha}
	cur := series[len(series)-1]
	if cur.Info == nil || cur.Info.Canary == nil {
		rc.Unchecked = "the new run has no runner canary"
		return rc
	}
	for _, item := range []string{canary.ItemCPU, canary.ItemMem, canary.ItemNull} {
		var logs []float64
		for _, r := range series[:len(series)-1] {
			if r.Info == nil || r.Info.Canary == nil {
				continue
			}
			if v := r.Info.Canary.Pooled(item); len(v) > 0 {
				logs = append(logs, math.Log(median(sorted(v))))
			}
		}
		nv := cur.Info.Canary.Pooled(item)
		if len(nv) == 0 || len(logs) < MinHistoryRuns {
			continue
		}
		logs = logs[max(0, len(logs)-last):]
		y := median(sorted(nv))
		p := predict(logs, math.Log(y))
		c := report.CanaryChange{Item: item, OldNs: math.Exp(stats.Mean(logs)), NewNs: y, DeltaPct: p.delta(),
			LoPct: p.bound(-1, CanaryAlpha), HiPct: p.bound(1, CanaryAlpha), P: p.twoSided()}
		markMoved(&c, CanaryTolerancePct)
		rc.Items = append(rc.Items, c)
	}
	if len(rc.Items) == 0 {
		rc.Unchecked = cmp.Or(rc.Unchecked, fmt.Sprintf("fewer than %d earlier runs have a runner canary", MinHistoryRuns))
	}
	return rc
}
