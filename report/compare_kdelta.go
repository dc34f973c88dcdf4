package report

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/gofio/gofio/internal/kstage"
)

// This file carries each repeat's kernel stages into a comparison, so
// that a row's verdict is explained stage by stage (KStageDeltas: new -
// old per stage, with an interval over the repeats) and the gate can judge
// a stage (--gate-metric ktw, device, ...).

// RepeatKStages is one repeat's kernel stages: the traced and joined I/Os
// and each stage's mean and 99th percentile over the joined ones, in µs.
type RepeatKStages struct {
	Traced uint64       `json:"traced"`
	Joined uint64       `json:"joined"`
	MeanUs KStageUsJSON `json:"mean_us"`
	P99Us  KStageUsJSON `json:"p99_us"`
}

// NewRepeatKStages summarizes one run's merged kernel stages; nil when
// none was traced or nothing joined.
func NewRepeatKStages(k *kstage.KernelStages) *RepeatKStages {
	s := NewKStagesSide(k)
	if !s.Measured() {
		return nil
	}
	return &RepeatKStages{Traced: s.Traced, Joined: s.Joined, MeanUs: kstageUsJSON(s.MeanUs), P99Us: kstageUsJSON(s.P99Us)}
}

// meanUs is stage st's mean, NaN without stages.
func (r *RepeatKStages) meanUs(st kstage.Stage) float64 {
	if r == nil || r.Joined == 0 {
		return math.NaN()
	}
	return r.MeanUs[st]
}

// KStagesFromRepeats summarizes a side's per-repeat stages (a side split
// by job in a diff, whose merged histograms were not saved): the means
// weighted by the joined I/Os, each p99 the median of the repeats'. nil
// when no repeat has stages.
func KStagesFromRepeats(reps []RepeatStats) *KStagesSide {
	s := &KStagesSide{Available: true}
	var p99 [kstage.NumStages][]float64
	for _, rep := range reps {
		r := rep.KStages
		if r == nil || r.Joined == 0 {
			continue
		}
		s.Traced += r.Traced
		s.Joined += r.Joined
		for i := range s.MeanUs {
			s.MeanUs[i] += r.MeanUs[i] * float64(r.Joined)
			p99[i] = append(p99[i], r.P99Us[i])
		}
	}
	if s.Joined == 0 {
		return nil
	}
	for i := range s.MeanUs {
		s.MeanUs[i] /= float64(s.Joined)
		s.P99Us[i] = medianOf(p99[i])
	}
	return s
}

// The stage gate metrics: --gate-metric NAME judges the per-repeat mean of
// one kernel stage. The kernel's tw is "ktw", apart from gofio's own tw
// wait.
var stageGateMetrics = [kstage.NumStages]string{kstage.Enter: "enter", kstage.Submit: "submit",
	kstage.Queue: "queue", kstage.Device: "device", kstage.TW: "ktw", kstage.Reap: "reap"}

// StageGateMetric returns the stage a gate metric names, false for avg,
// p99, iops or an unknown name.
func StageGateMetric(name string) (kstage.Stage, bool) {
	for i, n := range stageGateMetrics {
		if n == name {
			return kstage.Stage(i), true
		}
	}
	return 0, false
}

// GateMetrics are every --gate-metric value, for usage and errors.
func GateMetrics() []string {
	return append([]string{GateAvg, GateP99, GateIOPS}, stageGateMetrics[:]...)
}

// ValidGateMetric reports whether name is a --gate-metric value.
func ValidGateMetric(name string) bool {
	_, stage := StageGateMetric(name)
	return stage || name == GateAvg || name == GateP99 || name == GateIOPS
}

// HasRepeatStages reports whether the side ran and every repeat of it has
// kernel stages: what a gate on a stage needs of both sides.
func (s *ComparisonSide) HasRepeatStages() bool {
	for _, r := range s.Repeats {
		if r.KStages == nil || r.KStages.Joined == 0 {
			return false
		}
	}
	return s.Ran()
}

// stagesJudgeable reports whether row r can be judged on the gate metric
// as far as stages go: the metric is not a stage, or both sides have one
// in every repeat.
func (c *Comparison) stagesJudgeable(r *ComparisonRow) bool {
	_, stage := StageGateMetric(c.GateMetricOrDefault())
	return !stage || r.New.HasRepeatStages() && r.Old.HasRepeatStages()
}

// KStageDelta is the change of one kernel stage's mean latency from the
// old side to the new, in µs, with its interval: LoUs and HiUs bound it at
// Confidence, NaN when the repeats give none.
type KStageDelta struct {
	MeanUs, LoUs, HiUs float64
}

// HasInterval reports whether d has an interval.
func (d KStageDelta) HasInterval() bool { return !math.IsNaN(d.LoUs) && !math.IsNaN(d.HiUs) }

// Moved reports whether the interval excludes no change.
func (d KStageDelta) Moved() bool { return d.HasInterval() && (d.LoUs > 0 || d.HiUs < 0) }

// KStageDeltas is where a row's difference sits, stage by stage: new -
// old of each stage's per-repeat mean, and of their sum (the joined I/Os'
// mean latency).
type KStageDeltas struct {
	Stages [kstage.NumStages]KStageDelta
	Sum    KStageDelta
	// Confidence is the intervals' level; Paired says they are of the
	// repeats' differences (the sides ran in pairs), not of two
	// independent samples (a diff of two runs); N is the repeats (pairs)
	// they came from.
	Confidence float64
	Paired     bool
	N          int
}

// KStagesGofio and KStagesKernel are the stages each part of the I/O path
// owns: gofio's submission and harvest, and the kernel's path between.
var (
	KStagesGofio  = []kstage.Stage{kstage.Enter, kstage.Reap}
	KStagesKernel = []kstage.Stage{kstage.Submit, kstage.Queue, kstage.Device, kstage.TW}
)

// partUs is the sum of the stages' mean changes.
func (d *KStageDeltas) partUs(stages []kstage.Stage) float64 {
	var t float64
	for _, s := range stages {
		t += d.Stages[s].MeanUs
	}
	return t
}

// Where says which part of the path the difference sits in: "gofio"
// (enter, reap) or "kernel" (submit, queue, device, tw), the one whose
// stages beyond noise (interval excluding no change) moved more, or
// "neither" when no stage did. Without intervals (one repeat) it weighs
// every stage's change.
func (d *KStageDeltas) Where() string {
	var g, k float64
	moved, intervals := false, false
	for s, st := range d.Stages {
		intervals = intervals || st.HasInterval()
		if st.HasInterval() && !st.Moved() {
			continue
		}
		moved = true
		if slices.Contains(KStagesGofio, kstage.Stage(s)) {
			g += st.MeanUs
		} else {
			k += st.MeanUs
		}
	}
	switch {
	case intervals && !moved:
		return "neither"
	case math.Abs(g) > math.Abs(k):
		return "gofio"
	}
	return "kernel"
}

// whereWords names a part with its stages.
func whereWords(part string) string {
	switch part {
	case "gofio":
		return "in gofio (enter, reap)"
	case "kernel":
		return "in the kernel (submit, queue, device, tw)"
	}
	return "no stage beyond noise"
}

// Words says in one line where the difference sits, e.g. "+12.0 ±3.1 µs,
// in the kernel (submit, queue, device, tw): tw +10.2 ±2.0*, device +1.1
// ±0.8, ...; gofio +0.4": the sum's change, the part that moved more, and
// every stage by the size of its change, those whose interval excludes no
// change marked "*", then the other part's change.
func (d *KStageDeltas) Words() string {
	var b strings.Builder
	where := d.Where()
	b.WriteString(deltaWords(d.Sum) + " µs, " + whereWords(where))
	order := make([]int, kstage.NumStages)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return math.Abs(d.Stages[order[a]].MeanUs) > math.Abs(d.Stages[order[b]].MeanUs)
	})
	for i, s := range order {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		mark := ""
		if d.Stages[s].Moved() {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s%s %s%s", sep, kstage.Stage(s), deltaWords(d.Stages[s]), mark)
	}
	switch where {
	case "gofio":
		fmt.Fprintf(&b, "; the kernel %+.1f", d.partUs(KStagesKernel))
	case "kernel":
		fmt.Fprintf(&b, "; gofio %+.1f", d.partUs(KStagesGofio))
	}
	return b.String()
}

// deltaWords is "+12.0 ±3.1" (the interval's half-width, or both bounds
// when it is not symmetric), "+12.0" without an interval.
func deltaWords(d KStageDelta) string {
	s := fmt.Sprintf("%+.1f", d.MeanUs)
	if !d.HasInterval() {
		return s
	}
	lo, hi := d.MeanUs-d.LoUs, d.HiUs-d.MeanUs
	if math.Abs(lo-hi) <= 0.05+1e-9*math.Abs(d.MeanUs) {
		return fmt.Sprintf("%s ±%.1f", s, hi)
	}
	return fmt.Sprintf("%s [%+.1f, %+.1f]", s, d.LoUs, d.HiUs)
}

// KStageDeltaRule says what the explanation lines hold.
const KStageDeltaRule = "where the difference sits: new - old of each kernel stage's mean over the repeats, in usec, " +
	"± the half-width of its t interval (paired by repeat when the sides ran in pairs); * marks a stage whose interval " +
	"excludes no change (none: \"no stage beyond noise\"); gofio's part is enter and reap (its submission and harvest, the model included), the kernel's " +
	"submit, queue, device and tw; the first figure is the sum's change, the joined I/Os' mean latency"

// cmpKStageDeltaLines are the explanation lines of the rows that have
// deltas, "KEY: words" each.
func cmpKStageDeltaLines(c *Comparison) []string {
	var out []string
	for i := range c.Rows {
		if d := c.Rows[i].KStageDeltas; d != nil {
			out = append(out, c.Rows[i].Value+": "+d.Words())
		}
	}
	return out
}

// KStageDeltaJSON is one stage's change in a row's
// "kernel_stage_delta_us": the mean and, when there is one, the interval.
type KStageDeltaJSON struct {
	Mean float64  `json:"mean"`
	Lo   *float64 `json:"lo"`
	Hi   *float64 `json:"hi"`
}

// KStageDeltasJSON is a row's "kernel_stage_delta_us": one key per stage
// with its change (new - old of its per-repeat mean, µs), then the sum's,
// the intervals' confidence and pairing, the repeats they came from, and
// where the difference sits ("gofio" or "kernel").
type KStageDeltasJSON struct {
	Stages     [kstage.NumStages]KStageDeltaJSON `json:"-"`
	Sum        KStageDeltaJSON                   `json:"sum"`
	Confidence float64                           `json:"confidence"`
	Paired     bool                              `json:"paired"`
	N          int                               `json:"n"`
	Where      string                            `json:"where"`
}

// kstageDeltasRest is KStageDeltasJSON without its methods.
type kstageDeltasRest KStageDeltasJSON

// MarshalJSON writes the stages' keys first, in stage order, then the
// rest.
func (j KStageDeltasJSON) MarshalJSON() ([]byte, error) {
	st, err := marshalStages(&j.Stages)
	if err != nil {
		return nil, err
	}
	rest, err := json.Marshal(kstageDeltasRest(j))
	if err != nil {
		return nil, err
	}
	return append(append(st[:len(st)-1], ','), rest[1:]...), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (j *KStageDeltasJSON) UnmarshalJSON(b []byte) error {
	var rest kstageDeltasRest
	if err := json.Unmarshal(b, &rest); err != nil {
		return err
	}
	*j = KStageDeltasJSON(rest)
	return unmarshalStages(b, &j.Stages)
}

func kstageDeltaJSON(d KStageDelta) KStageDeltaJSON {
	j := KStageDeltaJSON{Mean: cmpRound(d.MeanUs, 3)}
	if d.HasInterval() {
		lo, hi := cmpRound(d.LoUs, 3), cmpRound(d.HiUs, 3)
		j.Lo, j.Hi = &lo, &hi
	}
	return j
}

func (j KStageDeltaJSON) delta() KStageDelta {
	d := KStageDelta{MeanUs: j.Mean, LoUs: math.NaN(), HiUs: math.NaN()}
	if j.Lo != nil && j.Hi != nil {
		d.LoUs, d.HiUs = *j.Lo, *j.Hi
	}
	return d
}

func kstageDeltasJSON(d *KStageDeltas) *KStageDeltasJSON {
	if d == nil {
		return nil
	}
	j := &KStageDeltasJSON{Sum: kstageDeltaJSON(d.Sum), Confidence: cmpRound(d.Confidence, 4), Paired: d.Paired, N: d.N,
		Where: d.Where()}
	for s, st := range d.Stages {
		j.Stages[s] = kstageDeltaJSON(st)
	}
	return j
}

func (j *KStageDeltasJSON) deltas() *KStageDeltas {
	if j == nil {
		return nil
	}
	d := &KStageDeltas{Sum: j.Sum.delta(), Confidence: j.Confidence, Paired: j.Paired, N: j.N}
	for s, st := range j.Stages {
		d.Stages[s] = st.delta()
	}
	return d
}

// roundRepeatKStages is r with its figures rounded as the JSON rounds
// them.
func roundRepeatKStages(r *RepeatKStages) *RepeatKStages {
	if r == nil {
		return nil
	}
	return &RepeatKStages{Traced: r.Traced, Joined: r.Joined, MeanUs: kstageUsJSON(r.MeanUs), P99Us: kstageUsJSON(r.P99Us)}
}
