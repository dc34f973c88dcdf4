package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// CompareJSONKey is the top-level key under which --output-format=json
// carries the comparison, next to fio's own keys.
const CompareJSONKey = "gofio_compare"

// ComparisonJSON is the JSON shape of a Comparison. Figures are rounded to
// 3 decimals (µs, IOPS) and 2 (percent) so the output is stable. It is
// also what gofio diff and --baseline read back (Comparison).
type ComparisonJSON struct {
	RW         string        `json:"rw"`
	BS         string        `json:"bs"`
	IOEngine   string        `json:"ioengine"`
	SQPoll     string        `json:"sqthread_poll"`
	Version    string        `json:"version"`
	Kernel     string        `json:"kernel"`
	Key        string        `json:"key"`
	Keys       []string      `json:"keys"`
	New        SideSpecJSON  `json:"new"`
	Old        *SideSpecJSON `json:"old"`
	Metric     string        `json:"metric"`
	GateMetric string        `json:"gate_metric"`
	Repeat     int           `json:"repeat"`
	Compared   bool          `json:"compared"`
	DriftPct   float64       `json:"drift_pct"`
	Statistics string        `json:"statistics"`
	// Verdict is the comparison's overall verdict: "pass", "fail",
	// "inconclusive" or "not gated" (report.GatePass ...).
	Verdict string `json:"verdict"`
	// ThresholdPct is the --fail-if-slower threshold; null when not gated.
	ThresholdPct *float64 `json:"threshold_pct"`
	// Paired is true when the sides ran in rounds and the statistics are
	// those of the rounds' ratios.
	Paired bool `json:"paired"`
	// FamilyAlpha is the family-wise level the rows were judged at together.
	FamilyAlpha float64 `json:"family_alpha"`
	// Design is the rounds' design as it ran; absent for a diff of runs.
	Design *DesignJSON `json:"design,omitempty"`
	// BudgetToDecideS is, for a gate with undecided rows, the --budget in
	// seconds their projections ask for: the time spent plus the rounds
	// each still needs at its own time a round (DecideBudget); absent when
	// some undecided row is out of any budget's reach. DecideProjection
	// holds the sum behind it, at the threshold and at twice it.
	BudgetToDecideS  *float64           `json:"budget_to_decide_s,omitempty"`
	DecideProjection []DecideBudgetJSON `json:"decide_projection,omitempty"`
	Rows             []ComparisonRowJ   `json:"rows"`
}

// DecideBudgetJSON is the JSON shape of a DecideBudget.
type DecideBudgetJSON struct {
	ThresholdPct float64 `json:"threshold_pct"`
	Undecided    int     `json:"undecided"`
	// Within rows are decided by rounds a row can run (design.rounds_cap),
	// Beyond need more (up to BeyondRounds), Never sit at ± the
	// threshold, NoInterval reached no interval to project from.
	Within       int     `json:"within_reach"`
	Beyond       int     `json:"beyond_rounds_cap"`
	BeyondRounds int     `json:"beyond_rounds_most,omitempty"`
	Never        int     `json:"at_threshold"`
	NoInterval   int     `json:"no_interval"`
	MoreRounds   int     `json:"more_rounds"`
	MoreS        float64 `json:"more_s"`
	// BudgetS is the --budget suggested: the time spent plus MoreS, or
	// PlanS where more: the budget whose looks, planned to it, reach the
	// WidestRounds of WidestRow, the row within reach that needs most.
	BudgetS      float64 `json:"budget_s"`
	PlanS        float64 `json:"plan_s,omitempty"`
	WidestRow    string  `json:"widest_row,omitempty"`
	WidestRounds int     `json:"widest_rounds,omitempty"`
	// SlowerRows are the rows within reach headed for "slower": their
	// estimates lie beyond the threshold.
	SlowerRows []string `json:"slower_rows,omitempty"`
}

// DesignJSON is the JSON shape of a DesignInfo.
type DesignJSON struct {
	MinRounds      int     `json:"min_rounds"`
	Looks          []int   `json:"looks"`
	IntervalRounds int     `json:"interval_rounds"`
	BudgetS        float64 `json:"budget_s"`
	ElapsedS       float64 `json:"elapsed_s"`
	BudgetSpent    bool    `json:"budget_spent"`
	// RoundsCap is the most rounds a row can run under any --budget.
	RoundsCap int `json:"rounds_cap,omitempty"`
}

// SideSpecJSON is the JSON shape of a SideSpec.
type SideSpecJSON struct {
	Name  string `json:"name"`
	Key   string `json:"key"`
	Value string `json:"value"`
	// SQThread is what played the side's SQ thread: "kernel" (the
	// kernel's SQPOLL), "goroutine" (gofio's model), "none" or "mixed".
	SQThread string `json:"sq_thread,omitempty"`
}

// ComparisonRowJ is one row of ComparisonJSON. Stats is null when a side
// did not run; so is that side.
type ComparisonRowJ struct {
	Value  string        `json:"value"`
	Values []string      `json:"values"`
	X      float64       `json:"x"`
	Stats  *RowStatsJSON `json:"stats"`
	// SameSchedule is true when the row compares the two policies and
	// their mean tw waits are equal within 1%: the row is no result.
	SameSchedule bool `json:"same_schedule"`
	// Verdict is the row's verdict, the label every format prints:
	// "faster", "slower", "same", "~", "inconclusive", "no result" or
	// "too few repeats"; "" for a comparison of one side.
	Verdict string `json:"verdict"`
	// NoResultReason says why a row is "no result": "same schedule",
	// "old missing" or "new missing".
	NoResultReason string    `json:"no_result_reason,omitempty"`
	New            *SideJSON `json:"new"`
	Old            *SideJSON `json:"old"`
	// KernelLocks is the verdict on the sides' lock wait per I/O, absent
	// unless both measured kernel locks.
	KernelLocks *klockStatsJSON `json:"kernel_locks_stats,omitempty"`
	// KernelSQPoll is the kernel's own SQPOLL reference at this point
	// (the job run plain, tw_thread=kernel), and ModelCostPct the new
	// side's avg lat against it (KernelRefRule); absent without one.
	KernelSQPoll *SideJSON `json:"kernel_sqpoll,omitempty"`
	ModelCostPct *float64  `json:"model_cost_pct,omitempty"`
	// KStageDeltas is where the difference sits, stage by stage
	// (KStageDeltaRule); absent without kernel stages on both sides.
	KStageDeltas *KStageDeltasJSON `json:"kernel_stage_delta_us,omitempty"`
}

// RowStatsJSON is the JSON shape of RowStats; the interval is null when
// there is none.
type RowStatsJSON struct {
	Metric     string   `json:"metric"`
	New        float64  `json:"new_median"`
	Old        float64  `json:"old_median"`
	DeltaPct   float64  `json:"delta_pct"`
	LoPct      *float64 `json:"ci_lo_pct"`
	HiPct      *float64 `json:"ci_hi_pct"`
	Confidence float64  `json:"ci_confidence"`
	P          float64  `json:"p_value"`
	Alpha      float64  `json:"alpha"`
	Verdict    string   `json:"verdict"`
	DriftPct   float64  `json:"drift_pct"`
	// PAdjusted is the p-value adjusted for the rows judged together (and
	// the looks of rounds).
	PAdjusted float64 `json:"p_adjusted"`
	// Paired, Rounds and Look describe statistics of rounds: the rounds
	// they are over and the look of the sequential rule they come from.
	Paired bool `json:"paired"`
	Rounds int  `json:"rounds,omitempty"`
	Look   int  `json:"look,omitempty"`
	// EqLoPct and EqHiPct bound the equivalence interval that decides
	// "same"; null when there is none.
	EqLoPct *float64 `json:"eq_lo_pct,omitempty"`
	EqHiPct *float64 `json:"eq_hi_pct,omitempty"`
	// RoundsToDecide is, for a gated row still undecided, the rounds in
	// all that would decide it with even odds at the spread it showed
	// (Projection), and ProjectedVerdict the verdict they would give;
	// both absent when no number of rounds does (the estimate at ± the
	// threshold) or the row is decided. The _2x pair is the same at twice
	// the threshold. RoundSD is the sample standard deviation of the
	// row's per-round log ratios new/old, RoundS the seconds a round of
	// the row took; both present whenever there is a projection.
	RoundsToDecide     *int     `json:"rounds_to_decide,omitempty"`
	ProjectedVerdict   string   `json:"projected_verdict,omitempty"`
	RoundsToDecide2x   *int     `json:"rounds_to_decide_2x,omitempty"`
	ProjectedVerdict2x string   `json:"projected_verdict_2x,omitempty"`
	RoundSD            *float64 `json:"round_sd,omitempty"`
	RoundS             *float64 `json:"round_s,omitempty"`
}

// SideJSON is the JSON shape of a ComparisonSide. Each name ends with its
// statistic, as the CSV's columns do: _median over the per-repeat values
// (what the table prints), _mean over them, _all_ios over every I/O of
// every repeat.
type SideJSON struct {
	Name            string       `json:"name"`
	Repeats         int          `json:"repeats"`
	AvgLatUsMedian  float64      `json:"avg_lat_us_median"`
	AvgLatUsMean    float64      `json:"avg_lat_us_mean"`
	MinAvgUs        float64      `json:"min_avg_lat_us"`
	MaxAvgUs        float64      `json:"max_avg_lat_us"`
	SpreadPct       float64      `json:"spread_pct"`
	P99UsMedian     float64      `json:"p99_us_median"`
	P50UsAllIOs     float64      `json:"p50_us_all_ios"`
	P99UsAllIOs     float64      `json:"p99_us_all_ios"`
	TWWaitUsMean    float64      `json:"tw_wait_us_mean"`
	TWWaitP99AllIOs float64      `json:"tw_wait_p99_us_all_ios"`
	IOPSMedian      float64      `json:"iops_median"`
	IOPSMean        float64      `json:"iops_mean"`
	PerRepeat       []RepeatJSON `json:"per_repeat"`
	// TaskRun is the task-run mode the side's rings ran in (TaskRunOf):
	// "none", "coop", "defer", "sqpoll", "goroutine" or "mixed".
	TaskRun string `json:"taskrun,omitempty"`
	// KernelStages is the side's kernel latency stages (kernel_stages=1),
	// absent when it was not traced.
	KernelStages *KStagesSideJSON `json:"kernel_stages,omitempty"`
	// KernelLocks is the side's kernel lock contention (kernel_locks=1),
	// absent when it was not traced.
	KernelLocks *KLockSideJSON `json:"kernel_locks,omitempty"`
}

// RepeatJSON is the JSON shape of RepeatStats.
type RepeatJSON struct {
	Repeat   int     `json:"repeat"`
	AvgLatUs float64 `json:"avg_lat_us"`
	P50Us    float64 `json:"p50_us"`
	P99Us    float64 `json:"p99_us"`
	IOPS     float64 `json:"iops"`
	IOs      uint64  `json:"ios"`
	TWWaitUs float64 `json:"tw_wait_us"`
	// Jobs are the per-job figures of a run of several jobs.
	Jobs []JobRepeat `json:"jobs,omitempty"`
	// KStages is the repeat's kernel stages, absent when not traced.
	KStages *RepeatKStages `json:"kernel_stages,omitempty"`
}

func sideJSON(s *ComparisonSide) *SideJSON {
	if !s.Ran() {
		return nil
	}
	out := &SideJSON{
		Name: s.Name, Repeats: len(s.Repeats),
		AvgLatUsMedian: cmpRound(sideMedian(s, GateAvg), 3), AvgLatUsMean: cmpRound(s.AvgLatUs, 3),
		MinAvgUs: cmpRound(s.MinAvgUs, 3), MaxAvgUs: cmpRound(s.MaxAvgUs, 3),
		SpreadPct:   cmpRound(s.SpreadPct(), 2),
		P99UsMedian: cmpRound(sideMedian(s, GateP99), 3),
		P50UsAllIOs: cmpRound(s.P50Us, 3), P99UsAllIOs: cmpRound(s.P99Us, 3),
		TWWaitUsMean: cmpRound(s.TWWaitUs, 3), TWWaitP99AllIOs: cmpRound(s.TWWaitP99Us, 3),
		IOPSMedian: cmpRound(sideMedian(s, GateIOPS), 3), IOPSMean: cmpRound(s.IOPS, 3),
		PerRepeat: make([]RepeatJSON, len(s.Repeats)),
		TaskRun:   s.TaskRun,

		KernelStages: kstagesSideJSON(s.KStages),
		KernelLocks:  klockSideJSON(s.KLock),
	}
	for i, r := range s.Repeats {
		var jobs []JobRepeat
		for _, j := range r.Jobs {
			jobs = append(jobs, JobRepeat{j.Name, cmpRound(j.AvgLatUs, 3), cmpRound(j.P99Us, 3), cmpRound(j.IOPS, 3), j.IOs,
				roundRepeatKStages(j.KStages)})
		}
		out.PerRepeat[i] = RepeatJSON{r.Repeat, cmpRound(r.AvgLatUs, 3), cmpRound(r.P50Us, 3), cmpRound(r.P99Us, 3),
			cmpRound(r.IOPS, 3), r.IOs, cmpRound(r.TWWaitUs, 3), jobs, roundRepeatKStages(r.KStages)}
	}
	return out
}

// side turns the JSON back into a summarized side.
func (j *SideJSON) side() ComparisonSide {
	if j == nil {
		return ComparisonSide{}
	}
	s := ComparisonSide{Name: j.Name, P50Us: j.P50UsAllIOs, P99Us: j.P99UsAllIOs, TWWaitUs: j.TWWaitUsMean, TWWaitP99Us: j.TWWaitP99AllIOs,
		TaskRun: j.TaskRun, KStages: j.KernelStages.side(), KLock: j.KernelLocks.side()}
	for _, r := range j.PerRepeat {
		s.Repeats = append(s.Repeats, RepeatStats(r))
	}
	s.Summarize()
	return s
}

func rowStatsJSON(s *RowStats) *RowStatsJSON {
	if s == nil {
		return nil
	}
	j := &RowStatsJSON{Metric: s.Metric, New: cmpRound(s.New, 3), Old: cmpRound(s.Old, 3),
		DeltaPct: cmpRound(s.DeltaPct, 2), Confidence: cmpRound(s.Confidence, 4), P: cmpRound(s.P, 4),
		Alpha: s.Alpha, Verdict: s.Verdict, DriftPct: s.DriftPct, PAdjusted: cmpRound(s.PAdj, 4), Paired: s.Paired, Look: s.Look}
	if s.HasInterval() {
		lo, hi := cmpRound(s.LoPct, 2), cmpRound(s.HiPct, 2)
		j.LoPct, j.HiPct = &lo, &hi
	}
	if s.Paired {
		j.Rounds = s.NewN
	}
	if !math.IsNaN(s.EqLoPct) && !math.IsNaN(s.EqHiPct) {
		lo, hi := cmpRound(s.EqLoPct, 2), cmpRound(s.EqHiPct, 2)
		j.EqLoPct, j.EqHiPct = &lo, &hi
	}
	return j
}

// CompareJSON returns the value to put under CompareJSONKey in the JSON
// output.
func CompareJSON(c *Comparison) *ComparisonJSON {
	keys := c.Keys
	if keys == nil {
		keys = []string{}
	}
	j := &ComparisonJSON{
		RW: c.RW, BS: c.BS, IOEngine: c.Engine, SQPoll: c.SQPoll, Version: c.Version, Kernel: c.Kernel,
		Key: c.Key, Keys: keys, Metric: c.Metric, GateMetric: c.GateMetricOrDefault(), Repeat: c.Repeat,
		Compared: c.Compared, DriftPct: c.DriftPct, Statistics: cmpStatsRule(c),
		Verdict: c.Verdict, Paired: c.Paired, FamilyAlpha: c.FamilyAlpha,
		New:  SideSpecJSON(c.New),
		Rows: make([]ComparisonRowJ, len(c.Rows)),
	}
	if j.Verdict == "" {
		j.Verdict = GateNotGated
	}
	if c.Gated {
		t := c.ThresholdPct
		j.ThresholdPct = &t
	}
	if d := c.Design; d != nil {
		j.Design = &DesignJSON{MinRounds: d.MinRounds, Looks: d.Looks, IntervalRounds: d.IntervalRounds, BudgetS: d.Budget, ElapsedS: cmpRound(d.Elapsed, 3),
			BudgetSpent: d.BudgetSpent, RoundsCap: d.RoundsCap}
	}
	j.BudgetToDecideS, j.DecideProjection = decideJSON(c)
	if c.Compared {
		old := SideSpecJSON(c.Old)
		j.Old = &old
	}
	for i := range c.Rows {
		r := &c.Rows[i]
		values := r.Values
		if values == nil {
			values = []string{}
		}
		j.Rows[i] = ComparisonRowJ{Value: r.Value, Values: values, X: r.X, Stats: rowStatsJSON(r.Stats),
			SameSchedule: c.SameSchedule(r), Verdict: c.RowVerdict(r), NoResultReason: c.RowNoResultReason(r),
			New: sideJSON(&r.New), Old: sideJSON(&r.Old), KernelLocks: klockRowJSON(r.KLockStats),
			KernelSQPoll: sideJSON(&r.Kernel), ModelCostPct: modelCostJSON(r), KStageDeltas: kstageDeltasJSON(r.KStageDeltas)}
		if st := j.Rows[i].Stats; st != nil {
			st.Verdict = j.Rows[i].Verdict // one label per row, wherever it is read
			projectionJSON(st, rowProjection(c, r))
		}
	}
	return j
}

// Comparison turns saved JSON back into a Comparison with the per-repeat
// figures of every side; the rows' statistics are left for the caller to
// compute again.
func (j *ComparisonJSON) Comparison() *Comparison {
	c := &Comparison{RW: j.RW, BS: j.BS, Engine: j.IOEngine, SQPoll: j.SQPoll, Version: j.Version,
		Kernel: j.Kernel, Key: j.Key, Keys: j.Keys, New: SideSpec(j.New), Metric: j.Metric,
		GateMetric: j.GateMetric, Repeat: j.Repeat, Compared: j.Compared, Paired: j.Paired}
	if j.Old != nil {
		c.Old = SideSpec(*j.Old)
	}
	for _, r := range j.Rows {
		c.Rows = append(c.Rows, ComparisonRow{Value: r.Value, Values: r.Values, X: r.X,
			New: r.New.side(), Old: r.Old.side(), Kernel: r.KernelSQPoll.side(), KStageDeltas: r.KStageDeltas.deltas()})
	}
	return c
}

// WriteCompareJSON writes {"gofio_compare": ...} alone, indented as fio
// indents its JSON, for --output-format=compare with JSON wanted.
func WriteCompareJSON(w io.Writer, c *Comparison) error { return WriteDiffJSON(w, c, nil) }

// WriteDiffJSON writes gofio diff's JSON: {"gofio_compare": ...} and,
// where the two runs saved capacities, "gofio_capacity" (CapacityJSONKey,
// before it: the keys are sorted): a list with one capacity per side both
// runs measured, each a run's gofio_capacity object whose side is the new
// run's and whose old is the old run's.
func WriteDiffJSON(w io.Writer, c *Comparison, caps []*Capacity) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	doc := map[string]any{CompareJSONKey: CompareJSON(c)}
	if len(caps) > 0 {
		doc[CapacityJSONKey] = caps
	}
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("compare json: %w", err)
	}
	return nil
}

// cmpRound rounds v to prec decimals; NaN and infinities become 0 (JSON has
// no spelling for them).
func cmpRound(v float64, prec int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	p := math.Pow(10, float64(prec))
	return math.Round(v*p) / p
}
