package report

import (
	"fmt"
	"iter"
	"math"
	"slices"

	"github.com/gofio/gofio/sched"
)

// This file is the data model of --compare, --sweep, --baseline and diff.
// The compare package fills a Comparison from the Results of its runs and
// computes each row's statistics; the writers in compare_table.go,
// compare_csv.go, compare_json.go, compare_markdown.go, junit.go and svg.go
// read it.

// The two task-work policies of the default comparison, spelled as
// JobResult.Policy spells them: the names of tw_priority's values
// (sched.Policy's names).
var (
	PolicyPriority = sched.Priority.String() // tw_priority=1, the patch
	PolicyFIFO     = sched.FIFO.String()     // tw_priority=0, the baseline
)

// Comparison is the result of a sweep, with or without --compare: one row
// per sweep point, each with the "new" side next to the "old" one. Under
// --compare KEY=A,B the new side ran with KEY=A and the old one with KEY=B
// (plain --compare is tw_priority=1,0); under diff and --baseline the new
// side is the newer run.
type Comparison struct {
	// Title fields, taken from the first job run. A field whose option is
	// swept or compared reads "swept" or "compared".
	RW      string // rw=, e.g. "randread"
	BS      string // bs=, e.g. "4k"
	Engine  string // ioengine=
	SQPoll  string // sqthread_poll=, "0" or "1"
	Version string // gofio version, "gofio-x.y"
	Kernel  string // kernel release, as uname -r

	// Key is the swept option, e.g. "iodepth"; with several --sweep flags
	// the keys joined by ",". Keys holds them one by one.
	Key  string
	Keys []string

	// New and Old name the two sides: the option and the value each ran
	// with, and the short name the writers print. Without --compare only
	// New ran.
	New, Old SideSpec

	// Metric is the latency the averages are taken from: "lat" (fio's
	// total latency, submission to completion) or "clat" where lat was not
	// recorded; "mixed" if the runs disagreed.
	Metric string
	// GateMetric is the per-repeat figure the statistics compare: one of
	// GateAvg, GateP99, GateIOPS.
	GateMetric string
	// Repeat is the number of repeats asked for per point and side.
	Repeat int
	// Compared is true when both sides were run (--compare, diff).
	Compared bool
	// DriftPct is the between-run drift allowance granted to every row
	// (a baseline diff; compare.ApplyDrift), 0 for none.
	DriftPct float64
	// Rows are the sweep points in plan order.
	Rows []ComparisonRow

	// Paired is true when the sides ran in rounds, one run of each side
	// back to back, and the statistics compare the rounds' ratios
	// (--compare); false for a diff of two runs and for one side.
	Paired bool
	// Gated is true when --fail-if-slower judged the comparison, at
	// ThresholdPct percent.
	Gated        bool
	ThresholdPct float64
	// Verdict is the comparison's overall verdict: GatePass, GateFail,
	// GateInconclusive or GateNotGated; "" before it is judged.
	Verdict string
	// FamilyAlpha is the family-wise error level the rows were judged at
	// together (0 when they were judged one by one).
	FamilyAlpha float64
	// Design is how the rounds of a paired comparison were scheduled;
	// nil otherwise.
	Design *DesignInfo
}

// DesignInfo is the measurement design of a paired comparison, as it ran:
// the looks of the sequential rule, the budget and what was spent.
type DesignInfo struct {
	// MinRounds is the fewest rounds a row ran before its first look
	// (--repeat, raised to what the test needs at FamilyAlpha).
	MinRounds int
	// Looks are the round counts at which a row was judged; a row stops at
	// the first look that decides it.
	Looks []int
	// IntervalRounds is the fewest rounds whose interval can exclude no
	// change at the comparison's family-wise level.
	IntervalRounds int
	// Budget is the time the rounds of all rows could take, in seconds
	// (0: none, an ungated comparison runs its --repeat rounds).
	Budget float64
	// Elapsed is the time the rounds took, in seconds.
	Elapsed float64
	// BudgetSpent is true when the budget stopped rows before their
	// next look.
	BudgetSpent bool
	// RoundsCap is the most rounds a row can run under any --budget: the
	// rule's ceiling on the rounds it plans a row when its looks are
	// planned to the budget (time-based runs), else its last look.
	RoundsCap int
}

// SideSpec says what one side of a comparison is.
type SideSpec struct {
	// Name is the side's short name: "priority" or "fifo" for tw_priority,
	// else the value ("io_uring"), prefixed "new-"/"old-" when both sides
	// would read the same. It names the --json-dir subdirectory too.
	Name string
	// Key and Value are the option and value the side ran with
	// (tw_priority and 1); empty without --compare. Under diff Key is
	// "run" and Value the file the side was read from.
	Key, Value string
	// SQThread is what played the SQ thread in the side's runs
	// (JobResult.SQThread merged by MergeSQThread); "" when unknown.
	SQThread string
}

// DiffSideKey is SideSpec.Key of both sides of a diff of two saved runs
// (gofio diff, --baseline).
const DiffSideKey = "run"

// Label returns "name (key=value)", or the name alone without a key.
func (s SideSpec) Label() string {
	if s.Key == "" || s.Name == s.Value {
		if s.Key != "" {
			return s.Key + "=" + s.Value
		}
		return s.Name
	}
	return s.Name + " (" + s.Key + "=" + s.Value + ")"
}

// The figures --gate-metric may select.
const (
	GateAvg  = "avg"  // average latency of each repeat
	GateP99  = "p99"  // 99th percentile latency of each repeat
	GateIOPS = "iops" // IOPS of each repeat
)

// HigherIsBetter reports whether a larger value of the gate metric is the
// faster one (IOPS), rather than a smaller one (latency).
func HigherIsBetter(gateMetric string) bool { return gateMetric == GateIOPS }

// Value returns the gate metric's figure of one repeat.
func (r RepeatStats) Value(gateMetric string) float64 {
	if st, ok := StageGateMetric(gateMetric); ok {
		return r.KStages.meanUs(st)
	}
	switch gateMetric {
	case GateP99:
		return r.P99Us
	case GateIOPS:
		return r.IOPS
	}
	return r.AvgLatUs
}

// ComparisonRow is one sweep point: both sides' figures and the
// statistics of the difference between them.
type ComparisonRow struct {
	// Value is the sweep point as printed, e.g. "64", or "64,4k" when
	// several keys are swept; Values holds one value per key.
	Value  string
	Values []string
	// X is the numeric value of the first key (sizes in bytes) for the
	// chart's x axis; 0 when the value is not a number.
	X float64

	New ComparisonSide // the side under test (KEY=A)
	Old ComparisonSide // the reference side (KEY=B)

	// Stats compares the two sides' per-repeat gate metric; nil when a
	// side did not run.
	Stats *RowStats
	// KLockStats compares the two sides' per-repeat lock wait per I/O
	// (KLockMetric); nil unless both sides measured kernel locks.
	KLockStats *RowStats
	// Verdict is the row's verdict as the judge gave it, with a row that
	// is no result already VerdictNoResult; read it through
	// Comparison.RowVerdict, which also covers a row never judged.
	Verdict string
	// Kernel is the kernel's own SQPOLL reference at this point (the job
	// run plain, tw_thread=kernel, beside the model's sides); it never
	// ran when the comparison has none (HasKernelRef).
	Kernel ComparisonSide
	// KStageDeltas is the change of each kernel stage from old to new
	// with its interval (compare.ExplainStages); nil without stages on
	// both sides.
	KStageDeltas *KStageDeltas
}

// The verdicts of a row (ComparisonRow.Verdict, RowStats.Verdict): the
// labels every writer prints, the same in the table, Markdown, JUnit, CSV
// and JSON.
const (
	VerdictFaster = "faster" // new is faster beyond noise (and, when gated, by more than the threshold)
	VerdictSlower = "slower" // new is slower beyond noise (and, when gated, by more than the threshold)
	// VerdictSame is an equivalence: the row's interval lies within ± the
	// threshold of a gated comparison.
	VerdictSame = "same"
	// VerdictNoEvidence is a row the test found no difference in, where no
	// threshold says what would be the same (an ungated comparison, a diff).
	VerdictNoEvidence = "~"
	// VerdictInconclusive is a gated row still undecided when its rounds or
	// the budget ran out; it carries the interval it reached.
	VerdictInconclusive = "inconclusive"
	// VerdictNoResult is a row that measures nothing to judge: both sides
	// ran the same schedule, or a side did not run (RowNoResultReason says
	// which). It never gates.
	VerdictNoResult = "no result"
	VerdictTooFew   = "too few repeats" // the test could not reject with this many repeats
)

// The overall verdicts of a comparison (Comparison.Verdict), the exit code
// a CI job reads them by aside.
const (
	GatePass         = "pass"         // gated: no row slower, every judged row decided
	GateFail         = "fail"         // gated: some row slower by more than the threshold
	GateInconclusive = "inconclusive" // gated: no row slower, some row undecided
	GateNotGated     = "not gated"    // no --fail-if-slower
)

// The reasons a row is VerdictNoResult.
const (
	NoResultSameSchedule = "same schedule"
	NoResultOldMissing   = "old missing"
	NoResultNewMissing   = "new missing"
	// NoResultNoStages is a row of a gate on a kernel stage
	// (--gate-metric ktw, ...) with a side not traced in every repeat.
	NoResultNoStages = "no kernel stages"
)

// RowNoResultReason returns why r is no result ("" when it is a result):
// both sides ran the same schedule (SameSchedule) or a side did not run.
func (c *Comparison) RowNoResultReason(r *ComparisonRow) string {
	switch {
	case !c.Compared:
		return ""
	case !r.Old.Ran():
		return NoResultOldMissing
	case !r.New.Ran():
		return NoResultNewMissing
	case c.SameSchedule(r):
		return NoResultSameSchedule
	case !c.stagesJudgeable(r):
		return NoResultNoStages
	}
	return ""
}

// RowVerdict returns the verdict every writer prints for r: the one the
// judge gave it (ComparisonRow.Verdict), else VerdictNoResult for a row
// that is no result, else its statistics' verdict; "" for a comparison of
// one side.
func (c *Comparison) RowVerdict(r *ComparisonRow) string {
	switch {
	case !c.Compared:
		return ""
	case r.Verdict != "":
		return r.Verdict
	case c.RowNoResultReason(r) != "" || r.Stats == nil:
		return VerdictNoResult
	}
	return r.Stats.Verdict
}

// RowStats is the statistics of one row, computed from the per-repeat
// values of the gate metric the way benchstat does: medians, the relative
// change of the medians, a confidence interval for the relative change
// (Hodges–Lehmann on log ratios, with the Mann–Whitney interval), and the
// Mann–Whitney U test's p-value.
type RowStats struct {
	Metric   string  // the gate metric: GateAvg, GateP99 or GateIOPS
	NewN     int     // repeats on the new side
	OldN     int     // repeats on the old side
	New, Old float64 // medians of the per-repeat values (µs, or IOPS)
	// DeltaPct is (New - Old) / Old * 100: negative when new has the
	// smaller value (lower latency, or fewer IOPS).
	DeltaPct float64
	// LoPct and HiPct bound DeltaPct's confidence interval at Confidence
	// (at least 1 - Alpha); NaN when there are too few repeats for one.
	LoPct, HiPct float64
	Confidence   float64
	// EqLoPct and EqHiPct bound the equivalence interval of a gated
	// comparison in rounds, the one that decides VerdictSame (narrower
	// than the family-wise one: a row read the same never fails); NaN
	// otherwise.
	EqLoPct, EqHiPct float64
	P                float64 // two-sided Mann–Whitney U p-value
	Alpha            float64 // the test's level, 0.05
	Verdict          string  // VerdictFaster, VerdictSlower, VerdictSame, VerdictTooFew
	// DriftPct is the between-run drift allowance of a baseline diff
	// (compare.ApplyDrift): changes up to it are no evidence. 0 for a
	// comparison within one run, whose sides are interleaved.
	DriftPct float64
	// Paired is true when the statistics are those of paired rounds:
	// DeltaPct is then the Hodges–Lehmann estimate of the rounds' ratio,
	// the interval the Wilcoxon signed-rank one, P the signed-rank test's.
	Paired bool
	// PAdj is P adjusted for the rows judged together and the looks of
	// the sequential rule (for rounds: the smaller one-sided p-value
	// scaled by FamilyAlpha over the level the row's look spends on that
	// side): the row differs beyond noise when it is at most the
	// comparison's FamilyAlpha. Equal to P when unadjusted.
	PAdj float64
	// Look is the 1-based look of the sequential rule the statistics are
	// from; 0 when there was none.
	Look int
	// Projection is, for a gated row still undecided, the rounds that
	// would decide it at the spread it showed; nil otherwise.
	Projection *Projection
}

// HasInterval reports whether the row has a confidence interval.
func (s *RowStats) HasInterval() bool { return !math.IsNaN(s.LoPct) && !math.IsNaN(s.HiPct) }

// SlowerBeyond reports whether new is slower than old by more than pct
// percent beyond noise: what --fail-if-slower fails on. For paired rounds
// the verdict is slower (the family-wise interval excludes no change) and
// the Hodges–Lehmann estimate lies beyond pct in the slower direction; for
// a diff of two runs the test rejects and the whole confidence interval
// lies beyond pct plus the drift allowance (above +pct for a latency,
// below -pct for IOPS).
func (s *RowStats) SlowerBeyond(pct float64) bool {
	if s == nil || s.Verdict != VerdictSlower || !s.HasInterval() {
		return false
	}
	pct += s.DriftPct
	lo, hi := s.LoPct, s.HiPct
	if s.Paired {
		lo, hi = s.DeltaPct, s.DeltaPct
	}
	if HigherIsBetter(s.Metric) {
		return hi < -pct
	}
	return lo > pct
}

// ComparisonSide is what one side did at one sweep point, over its
// repeats.
type ComparisonSide struct {
	Name    string // the side's SideSpec.Name
	Repeats []RepeatStats

	// AvgLatUs is the mean of the per-repeat average latencies in µs;
	// MinAvgUs and MaxAvgUs are the smallest and largest of them.
	AvgLatUs float64
	MinAvgUs float64
	MaxAvgUs float64
	// P50Us and P99Us are percentiles of the latency histograms of all
	// repeats merged, in µs (bucket midpoints, as fio reports them). They
	// describe; the statistics never use them.
	P50Us float64
	P99Us float64
	// IOPS is the mean of the per-repeat IOPS.
	IOPS float64
	// TWWaitUs is the mean tw wait (harvest of a CQE to its completion
	// item running) over every I/O of every repeat, in µs; TWWaitP99Us
	// the 99th percentile of their merged histogram. They are the
	// mechanism behind the latency: what the task-work order added.
	TWWaitUs    float64
	TWWaitP99Us float64
	// KStages is the kernel latency stages of the side's I/Os at this
	// point, every job and repeat merged; nil when no run was traced
	// (kernel_stages=0).
	KStages *KStagesSide
	// KLock is the kernel lock contention of the side's jobs at this
	// point (kernel_locks=1); nil when no run traced it.
	KLock *KLockSide
	// TaskRun is the task-run mode the side's rings ran in at this point
	// (JobResult.TaskRun of every job and repeat, merged as MergeSQThread
	// merges); "" when unknown.
	TaskRun string
}

// RepeatStats are one run's figures: all jobs and directions of that run
// merged.
type RepeatStats struct {
	Repeat   int     // 0-based repeat index
	AvgLatUs float64 // mean latency, µs
	P50Us    float64 // median, µs
	P99Us    float64 // 99th percentile, µs
	IOPS     float64 // I/Os per second, all jobs and directions summed
	IOs      uint64  // I/Os completed
	TWWaitUs float64 // mean tw wait, µs
	// Jobs are each job's own figures when the run had more than one job
	// (in run order), so gofio diff can compare job by job; nil otherwise.
	Jobs []JobRepeat
	// KStages is the run's kernel stages (kernel_stages=1), every job
	// merged; nil when no job was traced.
	KStages *RepeatKStages
}

// JobRepeat is one job's figures in one repeat: what RepeatStats holds
// for the whole run, for that job alone.
type JobRepeat struct {
	Name     string  `json:"name"` // the job's name, "#2" appended to a repeated one
	AvgLatUs float64 `json:"avg_lat_us"`
	P99Us    float64 `json:"p99_us"`
	IOPS     float64 `json:"iops"`
	IOs      uint64  `json:"ios"`
	// KStages is the job's kernel stages in the repeat; nil when it was
	// not traced.
	KStages *RepeatKStages `json:"kernel_stages,omitempty"`
}

// Ran reports whether the side has at least one repeat.
func (s *ComparisonSide) Ran() bool { return len(s.Repeats) > 0 }

// Values returns the side's per-repeat figures of the gate metric, in
// repeat order.
func (s *ComparisonSide) Values(gateMetric string) []float64 {
	vs := make([]float64, len(s.Repeats))
	for i, r := range s.Repeats {
		vs[i] = r.Value(gateMetric)
	}
	return vs
}

// SpreadPct returns the range of the per-repeat average latencies as a
// percentage of their mean, (max - min) / mean * 100; 0 with fewer than two
// repeats.
func (s *ComparisonSide) SpreadPct() float64 {
	if len(s.Repeats) < 2 || s.AvgLatUs <= 0 {
		return 0
	}
	return (s.MaxAvgUs - s.MinAvgUs) / s.AvgLatUs * 100
}

// Summarize recomputes AvgLatUs, MinAvgUs, MaxAvgUs and IOPS from Repeats.
// P50Us and P99Us are left alone: they come from the merged histogram.
func (s *ComparisonSide) Summarize() {
	s.AvgLatUs, s.MinAvgUs, s.MaxAvgUs, s.IOPS = 0, 0, 0, 0
	if len(s.Repeats) == 0 {
		return
	}
	s.MinAvgUs, s.MaxAvgUs = math.Inf(1), math.Inf(-1)
	for _, r := range s.Repeats {
		s.AvgLatUs += r.AvgLatUs
		s.IOPS += r.IOPS
		s.MinAvgUs = math.Min(s.MinAvgUs, r.AvgLatUs)
		s.MaxAvgUs = math.Max(s.MaxAvgUs, r.AvgLatUs)
	}
	n := float64(len(s.Repeats))
	s.AvgLatUs /= n
	s.IOPS /= n
}

// SameScheduleTolPct is how close, in percent of the larger, the two
// sides' mean tw waits must be for a row to count as the same schedule.
const SameScheduleTolPct = 1.0

// SameScheduleNote is what every writer says of a row whose two sides ran
// the same schedule, so that its latency difference is never shown as a
// result of the ordering.
const SameScheduleNote = "same schedule: tw wait equal within 1%, the order changed nothing, so the row is no result"

// TWRule says what the tw columns hold, in plain words, for the text
// table, markdown and chart.
const TWRule = "tw wait = how long a finished I/O waited in gofio's task-work queue, from the harvest of its CQE " +
	"to its completion work running: the delay the task-work order itself adds; tw and tw p99 = its mean and " +
	"99th percentile in usec over every I/O of every repeat; " + SameScheduleNote

// SameSchedule reports whether r compares the two task-work policies
// (--compare of tw_priority) and both sides ran with mean tw waits equal to
// within SameScheduleTolPct (both 0 included): the policies then ordered
// nothing differently, and the row compares noise.
func (c *Comparison) SameSchedule(r *ComparisonRow) bool {
	if !c.Compared || c.New.Key != "tw_priority" || !r.New.Ran() || !r.Old.Ran() {
		return false
	}
	a, b := r.New.TWWaitUs, r.Old.TWWaitUs
	return math.Abs(a-b) <= SameScheduleTolPct/100*math.Max(math.Abs(a), math.Abs(b))
}

// KeyLabel returns the name of the first column of the comparison: "depth"
// for an iodepth sweep (as in the patch's table), else the swept key.
func (c *Comparison) KeyLabel() string {
	if c.Key == "iodepth" || c.Key == "" {
		return "depth"
	}
	return c.Key
}

// GateMetricOrDefault returns GateMetric, or GateAvg when it is unset.
func (c *Comparison) GateMetricOrDefault() string {
	if c.GateMetric == "" {
		return GateAvg
	}
	return c.GateMetric
}

// StatsRule is how the rows of a diff of two runs are judged, in words,
// printed by the writers so the table, CSV, JSON and chart say the same as
// the statistics.
const StatsRule = "new, old, p99 and IOPS are medians of the per-repeat values; Δ% = (new - old) / old; " +
	"CI: the range that holds the true change with the confidence shown (e.g. 96.8%: " +
	"with few repeats only some levels exist, and the first at or above 95% is used), " +
	"a Hodges-Lehmann interval; p: the chance of a difference at least this large if both sides were the same " +
	"(two-sided Mann-Whitney U test), Holm-adjusted for the rows judged together; a verdict of faster or slower needs p < 0.05"

// PairedStatsRule is how the rows of a comparison in rounds are judged, in
// words; the writers add the gate's threshold and design (cmpGateRule).
const PairedStatsRule = "a round is one run of each side back to back, in ABBA order from a random start; " +
	"new, old, p99 and IOPS are medians of the per-round values; Δ% is the Hodges-Lehmann estimate of the rounds' ratio new/old; " +
	"CI: its Wilcoxon signed-rank interval, each end holding for every row and look together at 1% (the rows by Holm's step-down, the looks by Pocock-type error spending); " +
	"p: the signed-rank p-value adjusted for the rows and looks, below 0.01 where the CI excludes no change; " +
	"faster or slower: the CI excludes no change and Δ% lies beyond the threshold; " +
	"same: the row's equivalence interval (two one-sided 5% tests, spent over the looks) lies within ± the threshold; inconclusive: neither when the looks or the budget ran out; " +
	"no result: both sides ran the same schedule or a side did not run, never gated; " +
	"ungated, ~ is no evidence of a difference and too few repeats fewer rounds than any interval at this level needs"

// The values of JobResult.SQThread and SideSpec.SQThread: what played the
// SQ thread of a job, i.e. who submitted its I/O.
const (
	SQKernel    = "kernel"    // the kernel's SQPOLL thread (sqthread_poll=1), as in fio
	SQGoroutine = "goroutine" // gofio's SQPOLL goroutine: the task-work model standing in for the kernel's thread
	SQNone      = "none"      // no SQ thread: the job's own thread submits
	SQMixed     = "mixed"     // the side's runs differed
)

// SQThreadWords says in words what played a side's SQ thread; "" for an
// unknown one (a run saved by an older gofio).
func SQThreadWords(v string) string {
	switch v {
	case SQKernel:
		return "the kernel's SQPOLL thread"
	case SQGoroutine:
		return "gofio's goroutine (the model), not the kernel's SQPOLL"
	case SQNone:
		return "none, the job thread submits"
	case SQMixed:
		return "mixed"
	}
	return ""
}

// MergeSQThread combines what two runs of one side played the SQ thread
// with: the value they share, SQMixed when they differ; "" counts as
// unknown and gives way to the other.
func MergeSQThread(a, b string) string {
	switch {
	case a == "" || a == b:
		return b
	case b == "":
		return a
	}
	return SQMixed
}

// pairSides yields the New and then the Old side of every row, in row
// order (not the kernel's reference).
func (c *Comparison) pairSides() iter.Seq[*ComparisonSide] {
	return func(yield func(*ComparisonSide) bool) {
		for i := range c.Rows {
			if !yield(&c.Rows[i].New) || !yield(&c.Rows[i].Old) {
				return
			}
		}
	}
}

// anyPairSide reports whether has holds for the New or the Old side of
// any row.
func (c *Comparison) anyPairSide(has func(*ComparisonSide) bool) bool {
	for s := range c.pairSides() {
		if has(s) {
			return true
		}
	}
	return false
}

// pairSideValues returns the values value gives (with true) for the New
// and Old sides of the rows, each distinct value once, in the order first
// met.
func (c *Comparison) pairSideValues(value func(*ComparisonSide) (string, bool)) []string {
	var out []string
	for s := range c.pairSides() {
		if v, ok := value(s); ok && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// kernelTrace is a side's kernel tracer figures (*KStagesSide,
// *KLockSide), a nil pointer where the side did not trace.
type kernelTrace interface {
	unavailable() (reason string, ok bool)
}

// unavailableReasons returns why the tracer trace picks out could not
// trace on the New and Old sides that ran, each reason once.
func (c *Comparison) unavailableReasons(trace func(*ComparisonSide) kernelTrace) []string {
	return c.pairSideValues(func(s *ComparisonSide) (string, bool) {
		if !s.Ran() {
			return "", false
		}
		return trace(s).unavailable()
	})
}

// junitUntraced is the JUnit line of side s (named name) for the tracer
// label names, k, when it has no figures: "" when the side did not run
// or did not trace (not traced), a "LABEL NAME: unavailable: REASON" line
// when it could not; done is false when the side has figures to write.
func junitUntraced(label, name string, s *ComparisonSide, traced bool, k kernelTrace) (line string, done bool) {
	if !s.Ran() || !traced {
		return "", true
	}
	if reason, ok := k.unavailable(); ok {
		return fmt.Sprintf("%s %s: unavailable: %s\n", label, name, reason), true
	}
	return "", false
}
