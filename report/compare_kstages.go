package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gofio/gofio/internal/kstage"
)

// This file carries the kernel latency stages (KernelStages, kernel_stages=1)
// into comparisons: each side of a row gets its stages' means and p99s over
// every joined I/O of every repeat, the tables get the kernel's tw wait
// next to gofio's own, and a stage table shows where each microsecond went
// per row, side by side, with the change between the sides (the
// comparison of two kernels under gofio diff).

// KStagesSide is what the kernel's tracepoints measured of one side of a
// comparison row, every repeat's jobs merged.
type KStagesSide struct {
	// Available is false when no run of the side could trace; Reason
	// says why and the figures are zero.
	Available bool
	Reason    string
	// Traced and Joined count the side's traced and joined I/Os.
	Traced, Joined uint64
	// MeanUs and P99Us are each stage's mean and 99th percentile over
	// the joined I/Os, in µs.
	MeanUs [kstage.NumStages]float64
	P99Us  [kstage.NumStages]float64
}

// NewKStagesSide summarizes merged kernel stages; nil for nil.
func NewKStagesSide(k *kstage.KernelStages) *KStagesSide {
	if k == nil {
		return nil
	}
	s := &KStagesSide{Available: k.Available, Reason: k.Reason, Traced: k.Traced, Joined: k.Joined}
	if !k.Available {
		return s
	}
	for i := range k.Stages {
		st := &k.Stages[i]
		if st.N == 0 {
			continue
		}
		s.MeanUs[i] = st.Mean / 1000
		v, _, _ := Percentiles(&k.Hists[i], st.N, []float64{99})
		s.P99Us[i] = float64(v[0]) / 1000
	}
	return s
}

// Measured reports whether s holds figures: available, with an I/O joined.
func (s *KStagesSide) Measured() bool { return s != nil && s.Available && s.Joined > 0 }

// unavailable returns why s could not trace, and true, when it traced
// nothing; false when it traced or s is nil.
func (s *KStagesSide) unavailable() (string, bool) {
	if s == nil {
		return "", false
	}
	return s.Reason, !s.Available
}

// JoinRate is the fraction of traced I/Os joined, 0 with none.
func (s *KStagesSide) JoinRate() float64 {
	if s == nil || s.Traced == 0 {
		return 0
	}
	return float64(s.Joined) / float64(s.Traced)
}

// SumUs is the sum of the stages' means: the mean latency of a joined I/O
// from gofio's submission stamp to its harvest.
func (s *KStagesSide) SumUs() float64 {
	var t float64
	for _, v := range s.MeanUs {
		t += v
	}
	return t
}

// HasKStages reports whether any side of any row has kernel stages (traced
// or unavailable): the writers then show the kernel columns.
func (c *Comparison) HasKStages() bool {
	return c.anyPairSide(func(s *ComparisonSide) bool { return s.KStages != nil })
}

// KTWRule says what the kernel's tw columns hold.
const KTWRule = "ktw = the kernel's own completion task-work wait, from the device completion (block_rq_complete) " +
	"to the CQE posted (io_uring_complete), from the kernel's tracepoints (kernel_stages=1); ktw and ktw p99 = its mean " +
	"and 99th percentile in usec over every joined I/O of every repeat (of the 1 in kernel_stages_sample traced, 8 by default)"

// KStagesRule says what the stage table holds.
const KStagesRule = "kernel stages: mean usec over every joined I/O of every repeat (of the 1 in kernel_stages_sample traced): enter = gofio's submission to the SQE " +
	"taken by the kernel, submit = to the bio queued, queue = to the request issued, device = to the device completion, " +
	"tw = to the CQE posted, reap = to gofio's harvest; sum = their total, the joined I/Os' mean lat; " +
	"Δ% = (new - old) / old per stage"

// cmpKernelFigures are the kernel's tw columns, shown when the comparison
// has kernel stages.
var cmpKernelFigures = []cmpSideFigure{
	{"ktw", "ktw_us_mean", 2, func(s *ComparisonSide) float64 { return s.KStages.MeanUs[kstage.TW] }, kstagesMeasured},
	{"ktw p99", "ktw_p99_us_all_ios", 2, func(s *ComparisonSide) float64 { return s.KStages.P99Us[kstage.TW] }, kstagesMeasured},
}

func kstagesMeasured(s *ComparisonSide) bool { return s.KStages.Measured() }

// cmpTableFigures are the per-side figures of the text, markdown and JUnit
// tables: cmpSideFigures, then the kernel's tw when traced.
func cmpTableFigures(c *Comparison) []cmpSideFigure {
	if !c.HasKStages() {
		return cmpSideFigures
	}
	return append(cmpSideFigures[:len(cmpSideFigures):len(cmpSideFigures)], cmpKernelFigures...)
}

// kstageCells is one side's stage table cells: the stage means, their sum
// and the join rate; in the join's place the reason when tracing was
// unavailable.
func kstageCells(s *ComparisonSide) []string {
	k := s.KStages
	cells := make([]string, 0, kstage.NumStages+2)
	switch {
	case !s.Ran() || k == nil:
		for range kstage.NumStages + 2 {
			cells = append(cells, "-")
		}
		return cells
	case !k.Available:
		for range kstage.NumStages + 1 {
			cells = append(cells, "-")
		}
		return append(cells, "unavailable: "+k.Reason)
	}
	for _, v := range k.MeanUs {
		cells = append(cells, strconv.FormatFloat(v, 'f', 2, 64))
	}
	return append(cells, strconv.FormatFloat(k.SumUs(), 'f', 2, 64),
		strconv.FormatFloat(100*k.JoinRate(), 'f', 2, 64)+"%")
}

// kstageDeltaCells is the change per stage from old to new, in percent.
func kstageDeltaCells(n, o *KStagesSide) []string {
	cells := make([]string, 0, kstage.NumStages+2)
	d := func(a, b float64) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%+.1f%%", (a-b)/b*100)
	}
	for i := range n.MeanUs {
		cells = append(cells, d(n.MeanUs[i], o.MeanUs[i]))
	}
	return append(cells, d(n.SumUs(), o.SumUs()), "")
}

// kstagesMeasuredAny reports whether any side that ran measured stages.
func kstagesMeasuredAny(c *Comparison) bool {
	return c.anyPairSide(func(s *ComparisonSide) bool { return s.KStages.Measured() })
}

// cmpKStagesUnavailable is the one line that replaces the stage table
// when no side measured stages: why tracing could not run, each distinct
// reason once.
func cmpKStagesUnavailable(c *Comparison) string {
	reasons := c.unavailableReasons(func(s *ComparisonSide) kernelTrace { return s.KStages })
	if len(reasons) == 0 {
		return "kernel stages: none joined"
	}
	return "kernel stages unavailable: " + strings.Join(reasons, "; ")
}

// cmpKStagesHeader heads the stage table.
func cmpKStagesHeader(c *Comparison) []string {
	h := []string{c.KeyLabel()}
	if c.Compared {
		h = append(h, "side")
	}
	for s := kstage.Stage(0); s < kstage.NumStages; s++ {
		h = append(h, s.String())
	}
	return append(h, "sum", "joined")
}

// cmpKStagesRows is the stage table's rows: per comparison row one line a
// side and, where both sides measured stages, one line of Δ%.
func cmpKStagesRows(c *Comparison) [][]string {
	return cmpSideRows(c, kstageCells, true, func(r *ComparisonRow) []string {
		if r.New.KStages.Measured() && r.Old.KStages.Measured() {
			return kstageDeltaCells(r.New.KStages, r.Old.KStages)
		}
		return nil
	})
}

// junitKStages is a side's stages as one line of a JUnit test case's
// output, "" without them.
func junitKStages(name string, s *ComparisonSide) string {
	k := s.KStages
	if line, done := junitUntraced("kernel stages", name, s, k != nil, k); done {
		return line
	}
	parts := make([]string, 0, kstage.NumStages)
	for i, v := range k.MeanUs {
		parts = append(parts, fmt.Sprintf("%s=%.2f", kstage.Stage(i), v))
	}
	return fmt.Sprintf("kernel stages %s (mean usec): %s, sum=%.2f, joined=%.2f%%\n", name, strings.Join(parts, " "),
		k.SumUs(), 100*k.JoinRate())
}

// KStagesSideJSON is the JSON shape of a KStagesSide.
type KStagesSideJSON struct {
	Available bool         `json:"available"`
	Reason    string       `json:"reason,omitempty"`
	Traced    uint64       `json:"traced"`
	Joined    uint64       `json:"joined"`
	JoinRate  float64      `json:"join_rate"`
	MeanUs    KStageUsJSON `json:"mean_us"`
	P99Us     KStageUsJSON `json:"p99_us_all_ios"`
}

// KStageUsJSON is a figure of each kernel stage, in µs, in stage order. Its
// JSON is an object keyed by the stage names in stage order, {"enter": N,
// "submit": N, ..., "reap": N}, so a stage added to kstage.Stage gets its
// key without a change here.
type KStageUsJSON [kstage.NumStages]float64

// MarshalJSON writes the object of the stages' figures in stage order.
func (j KStageUsJSON) MarshalJSON() ([]byte, error) {
	return marshalStages((*[kstage.NumStages]float64)(&j))
}

// UnmarshalJSON reads the object of the stages' figures; a stage it lacks
// (a file saved before the stage existed) reads as 0, a key that names no
// stage is ignored.
func (j *KStageUsJSON) UnmarshalJSON(b []byte) error {
	return unmarshalStages(b, (*[kstage.NumStages]float64)(j))
}

// marshalStages writes one value per stage as a JSON object keyed by the
// stage names, in stage order.
func marshalStages[T any](vals *[kstage.NumStages]T) ([]byte, error) {
	b := []byte{'{'}
	for s, v := range vals {
		if s > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, kstage.Stage(s).String())
		b = append(b, ':')
		f, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("kernel stage %s: %w", kstage.Stage(s), err)
		}
		b = append(b, f...)
	}
	return append(b, '}'), nil
}

// unmarshalStages reads an object keyed by stage names: a stage it lacks
// reads as the zero value, a key that names no stage is ignored.
func unmarshalStages[T any](b []byte, vals *[kstage.NumStages]T) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*vals = [kstage.NumStages]T{}
	for s := range kstage.NumStages {
		if raw, ok := m[s.String()]; ok {
			if err := json.Unmarshal(raw, &vals[s]); err != nil {
				return fmt.Errorf("kernel stage %s: %w", s, err)
			}
		}
	}
	return nil
}

func kstageUsJSON(v [kstage.NumStages]float64) KStageUsJSON {
	var j KStageUsJSON
	for s, f := range v {
		j[s] = cmpRound(f, 3)
	}
	return j
}

func kstagesSideJSON(s *KStagesSide) *KStagesSideJSON {
	if s == nil {
		return nil
	}
	return &KStagesSideJSON{Available: s.Available, Reason: s.Reason, Traced: s.Traced, Joined: s.Joined,
		JoinRate: cmpRound(s.JoinRate(), 4), MeanUs: kstageUsJSON(s.MeanUs), P99Us: kstageUsJSON(s.P99Us)}
}

func (j *KStagesSideJSON) side() *KStagesSide {
	if j == nil {
		return nil
	}
	return &KStagesSide{Available: j.Available, Reason: j.Reason, Traced: j.Traced, Joined: j.Joined,
		MeanUs: j.MeanUs, P99Us: j.P99Us}
}

// kstageShare is stage i's share of the side's sum, 0..1; 0 when the sum
// is not positive.
func kstageShare(k *KStagesSide, i int) float64 {
	t := k.SumUs()
	if t <= 0 || math.IsNaN(t) {
		return 0
	}
	return k.MeanUs[i] / t
}
