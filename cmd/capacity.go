package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gofio/gofio/compare"
	"github.com/gofio/gofio/compare/capacity"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// This file is --slo (compare/capacity): the capacity of a sweep over
// iodepth or rate, the bisection of --sweep iodepth=auto, the fractions
// of --sweep rate_iops=10%..100%, the lines, JSON and chart, and the
// --fail-if-capacity-below gate. executeCompare calls it through
// comparisonPlan.capacity, nil without --slo.

// capacityFlags are --slo, --capacity-plot and --fail-if-capacity-below,
// checked by checkCapacityFlags.
type capacityFlags struct {
	SLO   string // --slo as given
	Plot  string // --capacity-plot FILE.svg
	Below string // --fail-if-capacity-below N or N%

	slo      capacity.SLO
	floor    float64 // the absolute floor in IOPS, or
	floorPct float64 // the floor in percent of the reference; 0 when unset
}

// checkCapacityFlags parses --slo, --capacity-plot and
// --fail-if-capacity-below. Whether the run has an objective for the two
// others is requireSLO's to say, once the job file's slo= is known;
// gofio diff takes the objective from the saved runs.
func checkCapacityFlags(cf *capacityFlags) error {
	if cf.SLO != "" {
		var err error
		if cf.slo, err = capacity.ParseSLO(cf.SLO); err != nil {
			return err
		}
	}
	if cf.Plot != "" && !strings.HasSuffix(cf.Plot, ".svg") {
		return fmt.Errorf("--capacity-plot %q: want a .svg file name", cf.Plot)
	}
	if cf.Below == "" {
		return nil
	}
	if pct, ok := strings.CutSuffix(strings.TrimSpace(cf.Below), "%"); ok {
		v, err := strconv.ParseFloat(pct, 64)
		if err != nil || v <= 0 || v > 100 {
			return fmt.Errorf("--fail-if-capacity-below %q: want a percentage of the baseline's capacity above 0 and at most 100 (90%%), or IOPS (150000, 150k)", cf.Below)
		}
		cf.floorPct = v
		return nil
	}
	n, ok := parseIOPS(cf.Below)
	if !ok {
		return fmt.Errorf("--fail-if-capacity-below %q: want IOPS (150000, 150k, 1.2m) or a percentage of the baseline's capacity (90%%)", cf.Below)
	}
	cf.floor = n
	return nil
}

// requireSLO refuses --capacity-plot and --fail-if-capacity-below in a
// run without an objective (--slo, or slo= in the job file).
func requireSLO(cf *capacityFlags) error {
	switch {
	case cf.SLO != "":
	case cf.Plot != "":
		return errors.New("--capacity-plot needs --slo (or slo= in the job file's [global]): it draws the capacity under an objective")
	case cf.Below != "":
		return errors.New("--fail-if-capacity-below needs --slo (or slo= in the job file's [global]): the capacity is the highest IOPS that meets an objective")
	}
	return nil
}

// sloError is err about --slo, placed at slo= in the job file when the
// file gave the objective.
func sloError(cfg *Config, err error) error {
	if o, ok := cfg.RunOptionsAt["slo"]; ok {
		return atOption(o, err)
	}
	return err
}

// parseIOPS reads a positive number of I/Os a second with an optional k
// or m (thousands, millions).
func parseIOPS(s string) (float64, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	if v, ok := strings.CutSuffix(s, "k"); ok {
		s, mult = v, 1e3
	} else if v, ok := strings.CutSuffix(s, "m"); ok {
		s, mult = v, 1e6
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) {
		return 0, false
	}
	return v * mult, true
}

// capacityRun is --slo's part of a comparison run.
type capacityRun struct {
	flags *capacityFlags
	key   string // the swept option: iodepth, rate_iops or rate
	// search is how the points are chosen: "list", "bisection"
	// (iodepth=auto) or "fractions" (of the maximum rate).
	search    string
	maxDepth  int      // the deepest depth iodepth=auto tries
	fractions []string // the percentages of a fractions sweep
	maxRate   float64  // the maximum rate a fractions sweep measured
	probing   bool     // the run measuring the maximum rate is running
	collect   capacity.Collector
	// ref is the capacity --fail-if-capacity-below N% is judged against
	// (the baseline's, or the history's median), refName what it is.
	ref     *report.CapacitySide
	refName string
	refMin  float64 // the history's smallest capacity, 0 for a baseline
	result  *report.Capacity
}

// prepareCapacity checks --slo against the comparison before any I/O and
// returns its run (nil without --slo) and the sweeps to parse now: a
// search's points are planned as it goes, so iodepth=auto parses depth 1
// and its deepest depth, and a fractions sweep the unthrottled run that
// measures the maximum rate.
func prepareCapacity(cfg *Config, p *comparisonPlan, sweeps []compare.Sweep, jobs []*jobfile.Job) (*capacityRun, []compare.Sweep, error) {
	cf := &cfg.Capacity
	var sw compare.Sweep
	if len(sweeps) == 1 {
		sw = sweeps[0]
	}
	auto := sw.Key == "iodepth" && len(sw.Values) == 1 && sw.Values[0] == "auto"
	fractions := (sw.Key == "rate_iops" || sw.Key == "rate") && allPercent(sw.Values)
	switch {
	case auto && cf.SLO == "":
		return nil, nil, errors.New("--sweep iodepth=auto searches for the deepest iodepth that meets a latency objective: give it with --slo (p99<=2ms)")
	case cf.SLO == "" && !fractions:
		return nil, sweeps, nil
	case cf.SLO != "" && sw.Key != "iodepth" && sw.Key != "rate_iops" && sw.Key != "rate" || len(sweeps) > 1:
		return nil, nil, sloError(cfg, errors.New("--slo needs one --sweep over iodepth (a list, or auto) or over rate_iops or rate (a list, or percentages of the maximum rate, 10%..100%)"))
	}
	cr := &capacityRun{flags: cf, key: sw.Key, search: "list"}
	switch {
	case auto:
		if cfg.FailIfSlower >= 0 {
			return nil, nil, errors.New("--sweep iodepth=auto chooses its depths as it runs, so its rows cannot be judged together: gate a fixed list of depths with --fail-if-slower")
		}
		cr.search, cr.maxDepth = "bisection", capacity.AutoMaxDepth
		for _, j := range jobs {
			if m := j.Engine().MaxDepth; m > 0 {
				cr.maxDepth = min(cr.maxDepth, m)
			}
		}
		sweeps = []compare.Sweep{{Key: "iodepth", Values: []string{"1"}}}
		if cr.maxDepth > 1 {
			sweeps[0].Values = append(sweeps[0].Values, strconv.Itoa(cr.maxDepth))
		}
	case fractions:
		cr.search, cr.fractions = "fractions", sw.Values
		sweeps = maxRateSweeps(sw.Key)
	}
	if err := cr.prepareGate(cfg, p); err != nil {
		return nil, nil, err
	}
	return cr, sweeps, nil
}

func allPercent(vs []string) bool {
	for _, v := range vs {
		if !strings.HasSuffix(v, "%") {
			return false
		}
	}
	return len(vs) > 0
}

// add files one run's result (compare.Run's onResult); nil-safe.
func (cr *capacityRun) add(pt compare.Point, res *report.Result) {
	if cr != nil && !cr.probing {
		cr.collect.Add(pt, res)
	}
}

// adaptive reports whether the run plans its own points (a search or a
// fractions sweep) instead of the comparison's plan.
func (cr *capacityRun) adaptive() bool { return cr != nil && cr.search != "list" }

// run runs a search or a fractions sweep and returns its comparison: the
// rows of every point it ran, in order of the swept value.
func (cr *capacityRun) run(ctx context.Context, cfg *Config, p *comparisonPlan, run compare.RunFunc, onResult func(compare.Point, *report.Result)) (*report.Comparison, error) {
	if cr.search == "bisection" {
		return cr.bisect(ctx, cfg, p, run, onResult)
	}
	return cr.fractionsRun(ctx, cfg, p, run, onResult)
}

// runSweeps runs the points of sweeps as the comparison would (in rounds
// under --compare, as a plan of one side otherwise), parsing them first;
// translate (nil for none) rewrites each run's overrides, a fraction of
// the maximum rate into its rate.
func runSweeps(ctx context.Context, cfg *Config, p *comparisonPlan, sweeps []compare.Sweep, translate func([]string) []string, run compare.RunFunc, onResult func(compare.Point, *report.Result)) (*report.Comparison, error) {
	if translate != nil {
		inner := run
		run = func(ctx context.Context, sets []string) (*report.Result, error) { return inner(ctx, translate(sets)) }
	}
	var points []compare.Point
	if p.ab == nil {
		points = compare.Plan(sweeps, nil, cfg.Repeat)
	} else if points = compare.Plan(sweeps, p.ab, 1); p.kernelRef {
		points = compare.WithKernelRef(points)
	}
	toParse := points
	if translate != nil {
		toParse = make([]compare.Point, len(points))
		for i, pt := range points {
			pt.Sets = translate(pt.Sets)
			toParse[i] = pt
		}
	}
	if err := p.parsed.Add(toParse, p.parse); err != nil {
		return nil, err
	}
	if p.ab == nil {
		return compare.Run(ctx, points, nil, run, onResult)
	}
	d := p.design
	d.Gated = false
	rounds := compare.Rounds{Design: d, KernelRef: p.kernelRef}
	return rounds.Run(ctx, sweeps, p.ab, run, onResult)
}

// sides returns the collector's sides of the comparison: the one under
// test, and the other under --compare.
func (cr *capacityRun) sides(p *comparisonPlan) []compare.Side {
	if p.ab == nil {
		return []compare.Side{compare.SideNew}
	}
	return []compare.Side{compare.SideNew, compare.SideOld}
}

// bisect runs --sweep iodepth=auto: capacity.Search proposes each depth,
// every side runs it, and whether each met the objective steers the next.
func (cr *capacityRun) bisect(ctx context.Context, cfg *Config, p *comparisonPlan, run compare.RunFunc, onResult func(compare.Point, *report.Result)) (*report.Comparison, error) {
	sides := cr.sides(p)
	search := capacity.NewSearch(cr.maxDepth, len(sides))
	var cmps []*report.Comparison
	ran := map[int]bool{}
	for d := search.Next(); d > 0; d = search.Next() {
		label := strconv.Itoa(d)
		if ran[d] {
			break // a point that measured nothing: no side's bracket moves
		}
		ran[d] = true
		cmp, err := runSweeps(ctx, cfg, p, []compare.Sweep{{Key: "iodepth", Values: []string{label}}}, nil, run, onResult)
		if cmp != nil {
			cmps = append(cmps, cmp)
		}
		if err != nil {
			return compare.MergeRows(cmps), err
		}
		for i, side := range sides {
			for _, pt := range cr.collect.Points(side) {
				if pt.Label == label {
					search.Measured(i, d, cr.flags.slo.Met(pt.Value(cr.flags.slo.Stat)))
				}
			}
		}
	}
	cmp := compare.MergeRows(cmps)
	compare.JudgeTogether(cmp, p.design)
	return cmp, nil
}

// fractionsRun runs --sweep rate_iops=10%..100% (or rate=): first the job
// unthrottled, once on each side, for the maximum rate of each direction
// (under --compare the larger side's, so both sides run the same rates),
// then the sweep, each percentage the rate= or rate_iops= of that
// fraction of the maximum, shared evenly by the jobs (the rate limits
// each job).
func (cr *capacityRun) fractionsRun(ctx context.Context, cfg *Config, p *comparisonPlan, run compare.RunFunc, onResult func(compare.Point, *report.Result)) (*report.Comparison, error) {
	probe := compare.Plan(maxRateSweeps(cr.key), p.ab, 1)
	var most [jobfile.NumDirs]float64
	jobs := 1
	cr.probing = true
	_, err := compare.Run(ctx, probe, p.ab, run, func(pt compare.Point, res *report.Result) {
		onResult(pt, res)
		rates, n := dirRates(res, cr.key == "rate")
		for d := range most {
			most[d] = max(most[d], rates[d])
		}
		jobs = max(jobs, n)
	})
	cr.probing = false
	if err != nil {
		return nil, fmt.Errorf("the maximum rate: %w", err)
	}
	table := map[string]string{}
	for _, f := range cr.fractions {
		pct, _ := strconv.ParseFloat(strings.TrimSuffix(f, "%"), 64)
		vals := make([]string, len(most))
		for d, m := range most {
			vals[d] = "0"
			if m > 0 {
				vals[d] = strconv.FormatFloat(max(1, m*pct/100/float64(jobs)), 'f', 0, 64)
			}
		}
		table[cr.key+"="+f] = cr.key + "=" + strings.Join(vals, ",")
	}
	cr.maxRate = most[0] + most[1] + most[2]
	translate := func(sets []string) []string {
		out := make([]string, len(sets))
		for i, s := range sets {
			out[i] = s
			if v, ok := table[s]; ok {
				out[i] = v
			}
		}
		return out
	}
	return runSweeps(ctx, cfg, p, []compare.Sweep{{Key: cr.key, Values: cr.fractions}}, translate, run, onResult)
}

// maxRateSweeps are the overrides of the run that measures the maximum
// rate: no rate, and fio's closed loop (an open-loop job has no timetable
// without one).
func maxRateSweeps(key string) []compare.Sweep {
	return []compare.Sweep{{Key: key, Values: []string{"0"}}, {Key: "open_loop", Values: []string{"0"}}}
}

// dirRates returns the run's I/Os (or bytes) a second per direction, every
// job summed, and how many jobs ran.
func dirRates(res *report.Result, bytes bool) (rates [jobfile.NumDirs]float64, jobs int) {
	for _, j := range res.Jobs {
		if j == nil {
			continue
		}
		jobs++
		for d := range j.Dirs {
			ds := &j.Dirs[d]
			if ds.Runtime <= 0 {
				continue
			}
			v := float64(ds.TotalIOs)
			if bytes {
				v = float64(ds.IOBytes)
			}
			rates[d] += v / ds.Runtime.Seconds()
		}
	}
	return rates, jobs
}

// prepareGate reads, before any I/O, what --fail-if-capacity-below N%
// is judged against: the --baseline's capacity, or the median of the
// capacities of the --history runs of the same jobs under the same
// objective.
func (cr *capacityRun) prepareGate(cfg *Config, p *comparisonPlan) error {
	cf := cr.flags
	if cf.floorPct == 0 {
		return nil
	}
	same := func(c *report.Capacity) bool { return c.SLO == cf.slo.String() && c.Key == cr.key }
	switch {
	case cfg.Baseline != "":
		c, _, err := capacity.ReadSaved(cfg.Baseline)
		if err != nil {
			return fmt.Errorf("--fail-if-capacity-below: %w", err)
		}
		if !same(c) {
			return fmt.Errorf("--fail-if-capacity-below: the baseline %s measured its capacity under %s over %s, this run under %s over %s", cfg.Baseline, c.SLO, c.Key, cf.slo, cr.key)
		}
		cr.ref, cr.refName = &c.CapacitySide, "the baseline "+cfg.Baseline
	case cfg.History != "":
		var caps []float64
		for _, s := range p.history {
			c, hash, err := capacity.ReadSaved(s.Path)
			if err != nil || !same(c) || hash != "" && hash != p.info.JobsHash {
				continue
			}
			caps = append(caps, c.IOPS) // 0 where no point met the objective
		}
		if len(caps) == 0 {
			return fmt.Errorf("--fail-if-capacity-below: no run in %s measured the capacity of these jobs under %s over %s (save runs with --slo and --output-format=json)", cfg.History, cf.slo, cr.key)
		}
		slices.Sort(caps)
		med := caps[len(caps)/2]
		if len(caps)%2 == 0 {
			med = (caps[len(caps)/2-1] + caps[len(caps)/2]) / 2
		}
		cr.ref = &report.CapacitySide{Met: med > 0, IOPS: med}
		cr.refName = fmt.Sprintf("the median of %d runs in %s", len(caps), cfg.History)
		if len(caps) >= 3 {
			cr.refMin = caps[0]
		}
	default:
		return errors.New("--fail-if-capacity-below N% judges against a saved capacity: give --baseline or --history, or a floor in IOPS (150k)")
	}
	return nil
}

// finish computes the capacity of the comparison's curves, and its gate.
func (cr *capacityRun) finish(cmp *report.Comparison) {
	if cr == nil || cmp == nil || cr.flags.SLO == "" {
		return
	}
	var oldPts []capacity.Point
	if cmp.Compared {
		oldPts = append([]capacity.Point{}, cr.collect.Points(compare.SideOld)...)
	}
	c := capacity.Report(cr.flags.slo, cr.key, cr.search, cmp.New.Name, cr.collect.Points(compare.SideNew), cmp.Old.Name, oldPts)
	c.MaxRate = cr.maxRate
	c.Gate = cr.judge(c)
	cr.result = c
}

// judge is --fail-if-capacity-below on c: it fails when no point met the
// objective or the capacity is below the floor, and, against a history
// of three runs or more, also below the smallest capacity it holds.
func (cr *capacityRun) judge(c *report.Capacity) *report.CapacityGate {
	cf := cr.flags
	if cf.Below == "" {
		return nil
	}
	g := &report.CapacityGate{Below: cf.Below, FloorIOPS: cf.floor, Verdict: report.GatePass}
	if cf.floorPct > 0 {
		g.Reference, g.ReferenceIOPS, g.ReferenceMinIOPS = cr.refName, cr.ref.IOPS, cr.refMin
		g.FloorIOPS = cf.floorPct / 100 * cr.ref.IOPS
	}
	if !c.Met || c.IOPS < g.FloorIOPS && (cr.refMin == 0 || c.IOPS < cr.refMin) {
		g.Verdict = report.GateFail
	}
	return g
}

// report returns the capacity for the JSON, nil without one.
func (cr *capacityRun) report() *report.Capacity {
	if cr == nil {
		return nil
	}
	return cr.result
}

// writeLines writes the capacity's lines after the verdicts.
func (cr *capacityRun) writeLines(st *State, cfg *Config) {
	if cr != nil && cr.result != nil {
		writeCapacityLines(st, cfg, []*report.Capacity{cr.result})
	}
}

// writeCapacityLines writes capacities' lines: on stdout, or on stderr
// where stdout carries JSON.
func writeCapacityLines(st *State, cfg *Config, caps []*report.Capacity) {
	w := st.Stdout
	if cfg.Output == "" && (hasFormat(cfg, "json") || hasFormat(cfg, "json+")) {
		w = st.Stderr
	}
	for _, c := range caps {
		if err := report.WriteCapacity(w, c); err != nil {
			st.logf("%v", err)
		}
	}
}

// writeFiles writes --capacity-plot.
func (cr *capacityRun) writeFiles(cfg *Config, cmp *report.Comparison) error {
	if cr == nil || cr.result == nil || cr.flags.Plot == "" {
		return nil
	}
	return writeFile(cr.flags.Plot, func(w io.Writer) error { return report.WriteCapacitySVG(w, cr.result, cmp) })
}

// exit is the gate's exit code: ExitSlower when it failed.
func (cr *capacityRun) exit(st *State) int {
	if cr == nil || cr.result == nil {
		return ExitOK
	}
	return capacityExit(st, []*report.Capacity{cr.result})
}

// capacityExit is --fail-if-capacity-below's exit code over capacities:
// ExitSlower when its gate failed any, each failure said on stderr.
func capacityExit(st *State, caps []*report.Capacity) int {
	code := ExitOK
	for _, c := range caps {
		if c.Gate != nil && c.Gate.Verdict == report.GateFail {
			st.logf("--fail-if-capacity-below: %s", c.Gate.Words(c))
			code = ExitSlower
		}
	}
	return code
}
