package report

import (
	"strconv"

	"github.com/gofio/gofio/internal/kstage"
)

// This file is the kernel's own SQPOLL reference of a comparison: at every
// point the job also ran plain on the kernel's SQPOLL thread
// (tw_thread=kernel), beside the two sides that ran gofio's model, and
// every writer shows it as a third column group with the model's cost
// against it.

// KernelRefName is the reference's side name (ComparisonSide.Name, the
// JSON's and --json-dir's).
const KernelRefName = "kernel-sqpoll"

// HasKernelRef reports whether any row has the kernel's reference.
func (c *Comparison) HasKernelRef() bool {
	for i := range c.Rows {
		if c.Rows[i].Kernel.Ran() {
			return true
		}
	}
	return false
}

// ModelCostPct is the new side's median avg lat against the kernel
// reference's, (new - kernel) / kernel * 100: what the model costs over
// the kernel's own SQPOLL at the row's point. false when either did not
// run.
func ModelCostPct(r *ComparisonRow) (float64, bool) {
	if !r.New.Ran() || !r.Kernel.Ran() {
		return 0, false
	}
	k := sideMedian(&r.Kernel, GateAvg)
	if k <= 0 {
		return 0, false
	}
	return (sideMedian(&r.New, GateAvg) - k) / k * 100, true
}

func modelCostJSON(r *ComparisonRow) *float64 {
	v, ok := ModelCostPct(r)
	if !ok {
		return nil
	}
	v = cmpRound(v, 2)
	return &v
}

// KernelRefRule says what the kernel reference's columns hold.
const KernelRefRule = "kernel = the same job run plain on the kernel's own SQPOLL thread (tw_thread=kernel, no model), " +
	"once per repeat at every point: kernel, kernel p99 and kernel IOPS are the medians of its repeats, kernel ktw and " +
	"its p99 the kernel's own completion task-work wait when stages are on; model cost = (new - kernel) / kernel of " +
	"the median avg lat: what gofio's SQPOLL goroutine costs over the kernel's thread at this point, its policy " +
	"included; at depth 1 nothing is reordered, and it is the model's own cost: two thread hand-offs a request " +
	"(the job to the goroutine, the goroutine back to the job) where the kernel's SQPOLL thread polls the rings"

// kernelRefFigures are the reference's columns: each as one column, not a
// new/old pair.
var kernelRefFigures = []cmpSideFigure{
	{"kernel", "avg_lat_us_median", 2, func(s *ComparisonSide) float64 { return sideMedian(s, GateAvg) }, nil},
	{"kernel p99", "p99_us_median", 2, func(s *ComparisonSide) float64 { return sideMedian(s, GateP99) }, nil},
	{"kernel IOPS", "iops_median", 0, func(s *ComparisonSide) float64 { return sideMedian(s, GateIOPS) }, nil},
}

// kernelRefKTW are the reference's kernel tw columns, when the comparison
// has stages.
var kernelRefKTW = []cmpSideFigure{
	{"kernel ktw", "ktw_us_mean", 2, func(s *ComparisonSide) float64 { return s.KStages.MeanUs[kstage.TW] }, kstagesMeasured},
	{"kernel ktw p99", "ktw_p99_us_all_ios", 2, func(s *ComparisonSide) float64 { return s.KStages.P99Us[kstage.TW] }, kstagesMeasured},
}

// cmpKernelRefFigures are the reference's columns of c.
func cmpKernelRefFigures(c *Comparison) []cmpSideFigure {
	if !c.HasKernelRef() {
		return nil
	}
	if !c.HasKStages() {
		return kernelRefFigures
	}
	return append(kernelRefFigures[:len(kernelRefFigures):len(kernelRefFigures)], kernelRefKTW...)
}

// cmpKernelRefHeader heads the reference's columns of the text and
// Markdown tables, the model's cost last; none without a reference.
func cmpKernelRefHeader(c *Comparison) []string {
	figs := cmpKernelRefFigures(c)
	if figs == nil {
		return nil
	}
	h := make([]string, 0, len(figs)+1)
	for _, f := range figs {
		h = append(h, f.head)
	}
	return append(h, "model cost")
}

// cmpKernelRefCells is one row's reference cells.
func cmpKernelRefCells(c *Comparison, r *ComparisonRow) []string {
	figs := cmpKernelRefFigures(c)
	if figs == nil {
		return nil
	}
	cells := make([]string, 0, len(figs)+1)
	for _, f := range figs {
		cells = append(cells, cmpSideCell(&r.Kernel, f))
	}
	cost := "-"
	if v, ok := ModelCostPct(r); ok {
		cost = strconv.FormatFloat(v, 'f', 1, 64)
		if v >= 0 {
			cost = "+" + cost
		}
		cost += "%"
	}
	return append(cells, cost)
}

// csvKernelRefFigures are the reference's CSV figures: every one, its
// kernel tw included, so that the columns do not depend on the run.
var csvKernelRefFigures = append(kernelRefFigures[:len(kernelRefFigures):len(kernelRefFigures)], kernelRefKTW...)

// csvKernelRefHeader is the reference's CSV columns: kernel_ + the
// figure's statistic, then model_cost_pct.
func csvKernelRefHeader() []string {
	h := make([]string, 0, len(csvKernelRefFigures)+1)
	for _, f := range csvKernelRefFigures {
		h = append(h, "kernel_"+f.csv)
	}
	return append(h, "model_cost_pct")
}

// csvKernelRefCells is one row's reference CSV cells, empty where the
// reference or a figure is missing.
func csvKernelRefCells(r *ComparisonRow) []string {
	cells := make([]string, 0, len(csvKernelRefFigures)+1)
	for _, f := range csvKernelRefFigures {
		cells = append(cells, csvFigure(&r.Kernel, f))
	}
	cost := ""
	if v, ok := ModelCostPct(r); ok {
		cost = csvNum(v, 2)
	}
	return append(cells, cost)
}

// cmpKernelRules are the rule lines of the kernel's columns: the stages',
// the deltas' and the reference's, each when the comparison has them.
func cmpKernelRules(c *Comparison) []string {
	var rules []string
	if c.HasKStages() {
		rules = append(rules, KTWRule, KStagesRule)
	}
	if len(cmpKStageDeltaLines(c)) > 0 {
		rules = append(rules, KStageDeltaRule)
	}
	if c.HasKernelRef() {
		rules = append(rules, KernelRefRule)
	}
	return rules
}
