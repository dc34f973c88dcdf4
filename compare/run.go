package compare

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gofio/gofio/internal/kstage"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// RunFunc runs the job files once with sets applied as --set overrides
// after the user's own, and returns the run's result. The caller supplies
// it: gofio's front end parses the jobs with the overrides and runs them.
type RunFunc func(ctx context.Context, sets []string) (*report.Result, error)

// ErrInterrupted is returned by Run when a run was cut short by a signal
// (its Result.Signal is set) or ctx was cancelled.
var ErrInterrupted = errors.New("interrupted")

// Run runs the points in order and folds their results into a Comparison
// whose sides are named after ab (nil without --compare); Judge then gives
// its rows their statistics.
// onResult (may be nil) sees every result as it arrives, for the normal
// per-job output and --json-dir. Run stops at the first failed run, at a
// run cut short by a signal, or when ctx is done; it then returns the
// comparison of the runs that completed together with the error, so the
// caller can still print what was measured. An interrupted run's figures
// are not part of the comparison.
func Run(ctx context.Context, points []Point, ab *AB, run RunFunc, onResult func(Point, *report.Result)) (*report.Comparison, error) {
	b := newBuilder(points, ab)
	for _, p := range points {
		if err := b.runPoint(ctx, p, run, onResult); err != nil {
			return b.finish(), err
		}
	}
	return b.finish(), nil
}

// runPoint runs one point and files its result, or returns why it could
// not: ctx done, the run failed or returned nothing, or a signal cut it
// short (its figures are then left out).
func (b *builder) runPoint(ctx context.Context, p Point, run RunFunc, onResult func(Point, *report.Result)) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w: %w", p, ErrInterrupted, err)
	}
	res, err := run(ctx, p.Sets)
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if res == nil {
		return fmt.Errorf("%s: the run returned no result", p)
	}
	if onResult != nil {
		onResult(p, res)
	}
	if res.Signal != "" {
		return fmt.Errorf("%s: %w by %s", p, ErrInterrupted, res.Signal)
	}
	var m measurement
	measure(res, &m)
	b.add(p, res, &m)
	return nil
}

// builder accumulates the runs of a plan into a Comparison.
type builder struct {
	c       report.Comparison
	rows    map[int]int // plan row -> index in c.Rows
	hists   map[[2]int]*report.Hist
	tw      map[[2]int]*twSide              // tw wait of a row's side, all repeats
	kst     map[[2]int]*kstage.KernelStages // kernel stages of a row's side, all repeats
	klock   klockSides                      // lock contention of a row's side, all repeats
	metrics map[string]bool
	titled  bool
	ab      *AB
}

func newBuilder(points []Point, ab *AB) *builder {
	b := &builder{
		rows:    make(map[int]int),
		hists:   make(map[[2]int]*report.Hist),
		tw:      make(map[[2]int]*twSide),
		kst:     make(map[[2]int]*kstage.KernelStages),
		klock:   make(klockSides),
		metrics: make(map[string]bool),
		ab:      ab,
	}
	if len(points) > 0 {
		p := points[0]
		b.c.Keys = append([]string(nil), p.Keys...)
		b.c.Repeat = p.Repeats
	}
	if ab != nil {
		b.c.Compared = true
		b.c.New, b.c.Old = ab.Sides()
	}
	if len(b.c.Keys) == 0 {
		// Nothing swept: a single row labelled with the job's iodepth.
		b.c.Keys = []string{"iodepth"}
	}
	b.c.Key = strings.Join(b.c.Keys, ",")
	return b
}

// add files one measured run under its row and policy.
func (b *builder) add(p Point, res *report.Result, m *measurement) {
	job := firstJob(res)
	if !b.titled && job != nil {
		b.title(res, job)
	}
	ri, ok := b.rows[p.Row]
	if !ok {
		values := p.Values
		if len(values) == 0 {
			d := 0
			if job != nil {
				d = job.IODepth
			}
			values = []string{strconv.Itoa(d)}
		}
		row := report.ComparisonRow{
			Value:  strings.Join(values, ","),
			Values: append([]string(nil), values...),
		}
		row.X, _ = numericValue(values[0])
		ri = len(b.c.Rows)
		b.rows[p.Row] = ri
		b.c.Rows = append(b.c.Rows, row)
	}
	if b.ab == nil && b.c.New.Name == "" {
		// Without --compare the single side is named by its policy.
		b.c.New.Name = resultPolicy(res, job)
	}
	side := &b.c.Rows[ri].New
	spec := &b.c.New
	hk := [2]int{ri, 0}
	if p.Side == SideOld {
		side = &b.c.Rows[ri].Old
		spec = &b.c.Old
		hk[1] = 1
	}
	if p.Side == SideKernel {
		side, spec, hk[1] = &b.c.Rows[ri].Kernel, &report.SideSpec{}, 2
	}
	for _, j := range res.Jobs {
		if j != nil {
			spec.SQThread = report.MergeSQThread(spec.SQThread, j.SQThread)
			side.TaskRun = report.MergeSQThread(side.TaskRun, j.TaskRun)
		}
	}
	st := m.stats
	st.Repeat = p.Repeat
	side.Repeats = append(side.Repeats, st)
	h := b.hists[hk]
	if h == nil {
		h = new(report.Hist)
		b.hists[hk] = h
	}
	h.Merge(&m.hist)
	t := b.tw[hk]
	if t == nil {
		t = new(twSide)
		b.tw[hk] = t
	}
	t.stat.Merge(m.tw)
	t.hist.Merge(&m.twHist)
	if m.traced {
		k := b.kst[hk]
		if k == nil {
			k = new(kstage.KernelStages)
			b.kst[hk] = k
		}
		k.Merge(&m.kst)
	}
	b.klock.add(hk, p.Repeat, m.klock)
	b.metrics[m.metric] = true
}

// twSide is the tw wait of one side of a row over its repeats.
type twSide struct {
	stat report.Stat
	hist report.Hist
}

// finish summarizes every row and returns the comparison.
func (b *builder) finish() *report.Comparison {
	for ri := range b.c.Rows {
		b.summarize(ri)
	}
	switch {
	case len(b.metrics) > 1:
		b.c.Metric = "mixed"
	case b.metrics["clat"]:
		b.c.Metric = "clat"
	default:
		b.c.Metric = "lat"
	}
	c := b.c
	c.Rows = append([]report.ComparisonRow(nil), b.c.Rows...)
	return &c
}

// summarize fills in row ri's summary figures from what its runs so far
// measured.
func (b *builder) summarize(ri int) {
	row := &b.c.Rows[ri]
	row.New.Name, row.Old.Name, row.Kernel.Name = b.c.New.Name, b.c.Old.Name, report.KernelRefName
	for k, side := range []*report.ComparisonSide{&row.New, &row.Old, &row.Kernel} {
		side.Summarize()
		if h := b.hists[[2]int{ri, k}]; h != nil {
			side.P50Us = percentileUs(h, 50)
			side.P99Us = percentileUs(h, 99)
		}
		if t := b.tw[[2]int{ri, k}]; t != nil {
			side.TWWaitUs = t.stat.Mean / 1000
			side.TWWaitP99Us = percentileUs(&t.hist, 99)
		}
		side.KStages = report.NewKStagesSide(b.kst[[2]int{ri, k}])
		side.KLock = b.klock.side([2]int{ri, k})
	}
}

// title takes the chart and table title from the first job that ran.
func (b *builder) title(res *report.Result, job *jobfile.Job) {
	b.titled = true
	c := &b.c
	c.Version = res.Version
	c.Kernel = res.Kernel
	c.RW = string(job.RW)
	c.Engine = job.IOEngine
	c.SQPoll = "0"
	if job.SQThreadPoll {
		c.SQPoll = "1"
	}
	c.BS = jobBS(job)
	for _, k := range c.Keys {
		markTitle(c, k, "swept")
	}
	if b.ab != nil {
		markTitle(c, b.ab.Key, b.ab.New+" vs "+b.ab.Old)
	}
}

// firstJob returns the job of the first result that has one.
func firstJob(res *report.Result) *jobfile.Job {
	for _, j := range res.Jobs {
		if j != nil && j.Job != nil {
			return j.Job
		}
	}
	return nil
}

// resultPolicy tells which policy a run without --compare used.
func resultPolicy(res *report.Result, job *jobfile.Job) string {
	for _, j := range res.Jobs {
		if j != nil && j.Policy != "" {
			if j.Policy == report.PolicyFIFO {
				return report.PolicyFIFO
			}
			return report.PolicyPriority
		}
	}
	if job != nil {
		return job.Policy().String()
	}
	return report.PolicyPriority
}

// markTitle replaces the title's figure for key (rw, bs, ioengine or
// sqthread_poll, by any of their names) with word: "swept", or the two
// compared values ("8k vs 4k"), since no single value describes the whole
// comparison.
func markTitle(c *report.Comparison, key, word string) {
	switch key {
	case "rw", "readwrite":
		c.RW = word
	case "bs", "blocksize":
		c.BS = word
	case "ioengine":
		c.Engine = word
	case "sqthread_poll", "sqpoll", "taskrun_mode":
		c.SQPoll = word
	}
}
