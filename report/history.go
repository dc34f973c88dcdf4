package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// HistoryJSONKey is the top-level key of gofio history's JSON output.
const HistoryJSONKey = "gofio_history"

// VerdictTooFewRuns is a history row's verdict when the history holds
// fewer runs of it than a prediction needs.
const VerdictTooFewRuns = "too few runs"

// History is a run judged against the earlier runs of the same jobs on
// the same runner (gofio history): each row's series of per-run medians,
// the change points in it, and the new run's figure against the runs
// since the last change point.
type History struct {
	Dir string
	// Runs are the series, oldest first; the last is the run judged.
	Runs []HistoryRun
	// Skipped are the files left out of the series, each with why (other
	// jobs, another runner, not a gofio result).
	Skipped []string
	// Last is the most runs a row is judged against.
	Last       int
	GateMetric string
	// Alpha is the family-wise level the rows are judged at together
	// (Holm); FailIfSlower the gate in percent, < 0 when not gated.
	Alpha        float64
	FailIfSlower float64
	Rows         []HistoryRow
	// Runner is the new run's canary against the history's; nil when not
	// checked.
	Runner *RunnerCheck
	// Verdict is "pass", "fail", VerdictRunnerChanged or "not gated".
	Verdict string
}

// HistoryRun is one run of the series.
type HistoryRun struct {
	Path string
	Time time.Time
}

// HistoryRow is one row's series and judgement.
type HistoryRow struct {
	Key string // the row: its sweep value, and ",side" for a run made with --compare
	// Medians are each run's median of the gate metric, in Runs order;
	// NaN where a run lacks the row.
	Medians []float64
	// Changes are the change points of the series, each naming the run
	// where the row moved.
	Changes []HistoryChange
	// N is how many runs the new one was judged against (those since the
	// last change point before it, at most History.Last); Median their
	// median.
	N      int
	Median float64
	New    float64
	// DeltaPct is New against Median; LoPct and HiPct its prediction
	// interval at 1 - Alpha; P the two-sided p-value of the prediction
	// test and PGate the one-sided one of "slower by more than the gate",
	// both Holm-adjusted over the rows.
	DeltaPct, LoPct, HiPct float64
	P, PGate               float64
	Verdict                string
}

// HistoryChange is a change point of a row's series: the run where it
// moved (its index in History.Runs and its file), by how much, and the
// t-test's p-value.
type HistoryChange struct {
	Run      int
	Path     string
	DeltaPct float64
	P        float64
}

// WriteHistoryTable writes the history as text: what was compared, one
// line per row, and the change points.
func WriteHistoryTable(w io.Writer, h *History) error {
	judged := "the last run"
	if n := len(h.Runs); n > 0 {
		judged = h.Runs[n-1].Path
	}
	fmt.Fprintf(w, "gofio history of %s: %d runs of these jobs on this runner, judging %s against the runs since each row's last change point (at most %d)\n",
		h.Dir, len(h.Runs), judged, h.Last)
	for _, s := range h.Skipped {
		fmt.Fprintf(w, "  left out: %s\n", s)
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "row\truns\tnew %s\thistory\tΔ%%\tinterval\tp\tverdict\tlast change point\t\n", h.GateMetric)
	for _, r := range h.Rows {
		interval, p := "", ""
		if r.N > 0 && !math.IsNaN(r.LoPct) {
			interval = fmt.Sprintf("[%+.1f%%, %+.1f%%]", r.LoPct, r.HiPct)
			p = strconv.FormatFloat(r.P, 'g', 3, 64)
		}
		last := "none"
		if n := len(r.Changes); n > 0 {
			c := r.Changes[n-1]
			last = fmt.Sprintf("run %d (%s) %+.1f%%", c.Run+1, c.Path, c.DeltaPct)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.4g\t%.4g\t%+.1f\t%s\t%s\t%s\t%s\t\n", r.Key, r.N, r.New, r.Median, r.DeltaPct, interval, p, r.Verdict, last)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("history table: %w", err)
	}
	for _, r := range h.Rows {
		for _, c := range r.Changes {
			fmt.Fprintf(w, "change point: row %s moved %+.1f%% at run %d, %s (t-test p=%.2g)\n", r.Key, c.DeltaPct, c.Run+1, c.Path, c.P)
		}
	}
	_, err := fmt.Fprintf(w, "runs: the history's runs of this row judged against; history: their geometric mean; interval: the %g%% prediction interval of the change; p: prediction test, Holm-adjusted over the rows\n",
		100*(1-h.Alpha))
	return err
}

// historyJSON is History's JSON shape.
type historyJSON struct {
	Dir          string           `json:"dir"`
	Runs         []historyRunJSON `json:"runs"`
	Skipped      []string         `json:"skipped"`
	Last         int              `json:"last"`
	GateMetric   string           `json:"gate_metric"`
	Alpha        float64          `json:"alpha"`
	FailIfSlower *float64         `json:"fail_if_slower"`
	Verdict      string           `json:"verdict"`
	Runner       *RunnerCheck     `json:"runner,omitempty"`
	Rows         []historyRowJSON `json:"rows"`
}

type historyRunJSON struct {
	Path string `json:"path"`
	Time string `json:"time,omitempty"`
}

type historyRowJSON struct {
	Key      string              `json:"row"`
	Medians  []*float64          `json:"medians"`
	Changes  []historyChangeJSON `json:"change_points"`
	N        int                 `json:"runs_judged_against"`
	Median   float64             `json:"history_median"`
	New      float64             `json:"new"`
	DeltaPct float64             `json:"delta_pct"`
	LoPct    float64             `json:"ci_lo_pct"`
	HiPct    float64             `json:"ci_hi_pct"`
	P        float64             `json:"p_value"`
	PGate    float64             `json:"p_gate"`
	Verdict  string              `json:"verdict"`
}

type historyChangeJSON struct {
	Run      int     `json:"run"`
	Path     string  `json:"path"`
	DeltaPct float64 `json:"delta_pct"`
	P        float64 `json:"p_value"`
}

// MarshalJSON writes h as HistoryJSONKey's value.
func (h *History) MarshalJSON() ([]byte, error) {
	j := historyJSON{Dir: h.Dir, Skipped: append([]string{}, h.Skipped...), Last: h.Last, GateMetric: h.GateMetric,
		Alpha: h.Alpha, Verdict: h.Verdict, Runner: h.Runner, Runs: []historyRunJSON{}, Rows: []historyRowJSON{}}
	if h.FailIfSlower >= 0 {
		g := h.FailIfSlower
		j.FailIfSlower = &g
	}
	for _, r := range h.Runs {
		rj := historyRunJSON{Path: r.Path}
		if !r.Time.IsZero() {
			rj.Time = r.Time.UTC().Format(time.RFC3339)
		}
		j.Runs = append(j.Runs, rj)
	}
	for _, r := range h.Rows {
		rj := historyRowJSON{Key: r.Key, Changes: []historyChangeJSON{}, N: r.N, Median: cmpRound(r.Median, 3), New: cmpRound(r.New, 3),
			DeltaPct: cmpRound(r.DeltaPct, 2), LoPct: cmpRound(r.LoPct, 2), HiPct: cmpRound(r.HiPct, 2),
			P: cmpRound(r.P, 6), PGate: cmpRound(r.PGate, 6), Verdict: r.Verdict}
		for _, m := range r.Medians {
			if math.IsNaN(m) {
				rj.Medians = append(rj.Medians, nil)
				continue
			}
			v := cmpRound(m, 3)
			rj.Medians = append(rj.Medians, &v)
		}
		for _, c := range r.Changes {
			rj.Changes = append(rj.Changes, historyChangeJSON{Run: c.Run, Path: c.Path, DeltaPct: cmpRound(c.DeltaPct, 2), P: cmpRound(c.P, 6)})
		}
		j.Rows = append(j.Rows, rj)
	}
	return json.Marshal(j)
}

// WriteHistoryJSON writes h as a JSON document with one key,
// HistoryJSONKey.
func WriteHistoryJSON(w io.Writer, h *History) error {
	b, err := json.MarshalIndent(map[string]*History{HistoryJSONKey: h}, "", "  ")
	if err != nil {
		return fmt.Errorf("history json: %w", err)
	}
	_, err = fmt.Fprintln(w, strings.TrimSpace(string(b)))
	return err
}
