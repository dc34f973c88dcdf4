package compare

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/gofio/gofio/report"
)

// Rounds runs a comparison of two sides (--compare) in rounds under a
// Design and judges it as it goes: every row runs whole ABBA pairs of
// rounds, round-robin over the rows still undecided, up to the next look;
// each look judges the rows that reached it (JudgeRounds), and a decided
// row gets no more rounds, so the budget goes to the rows still undecided.
type Rounds struct {
	Design Design
	// Now is the clock the budget is kept by; nil is time.Now.
	Now func() time.Time
	// Rand draws which side of each row runs first; nil seeds one from
	// the clock.
	Rand *rand.Rand
	// KernelRef runs each row's kernel reference (report.ComparisonRow's
	// Kernel) after both sides of each of its first MinRounds rounds.
	KernelRef bool
}

// roundRow is one row's state while its rounds run.
type roundRow struct {
	index   int      // the plan row
	sides   [2]Point // the side that runs first in even rounds, then the other
	rounds  int      // rounds run
	spent   time.Duration
	stats   *report.RowStats // at the last look it reached
	looked  int              // the looks it was judged at
	lastAt  int              // the rounds of its last look
	verdict string           // "" while undecided
	starved bool             // the budget stopped it before its next look
}

// roundRun is one Rounds.Run in progress.
type roundRun struct {
	rs       *Rounds
	b        *builder
	run      RunFunc
	onResult func(Point, *report.Result)
	start    time.Time
	index    int // the next run's Point.Index
	upTo     int // the most rounds a row may run
	starved  bool
	open     Open // Holm's step-down over the rows (Open)
}

// Run runs the rows of sweeps (one row without a sweep) under ab in rounds
// and returns the judged comparison: each row's Stats are those of the
// look that decided it (or the last it reached), its Verdict set, and the
// comparison's Paired, Gated, Verdict and Design filled in. It stops at
// the first failed or interrupted run, as compare.Run does, and returns
// what was measured with the error.
func (rs *Rounds) Run(ctx context.Context, sweeps []Sweep, ab *AB, run RunFunc, onResult func(Point, *report.Result)) (*report.Comparison, error) {
	templates := Plan(sweeps, ab, 1)
	d := rs.Design
	d.Rows = len(templates) / 2
	rs.Design = d
	looks := d.LookRounds()
	rr := &roundRun{rs: rs, b: newBuilder(templates, ab), run: run, onResult: onResult, start: rs.now(), upTo: looks[len(looks)-1],
		open: Open{Slower: d.Rows, Faster: d.Rows}}
	rr.b.c.Repeat = d.MinRounds
	rng := rs.Rand
	if rng == nil {
		seed := uint64(rr.start.UnixNano())
		rng = rand.New(rand.NewPCG(seed, seed>>32|1))
	}
	rows := make([]*roundRow, d.Rows)
	for i := range rows {
		r := &roundRow{index: i, sides: [2]Point{templates[2*i], templates[2*i+1]}}
		if rng.IntN(2) == 1 {
			r.sides[0], r.sides[1] = r.sides[1], r.sides[0]
		}
		rows[i] = r
	}
	var err error
	for li, target := range looks {
		if err = rr.phase(ctx, rows, target); err != nil {
			break
		}
		var at []lookAt
		for _, r := range rows {
			if r.verdict == "" && r.rounds >= target {
				at = append(at, lookAt{r, li + 1, target})
			}
		}
		rr.look(at)
	}
	if err == nil && d.Gated {
		// A row the budget stopped between looks is judged once more at
		// the rounds it ran (the spending function allows a look at any
		// information fraction), so that no round it ran goes unjudged.
		var extra []lookAt
		for _, r := range rows {
			if r.verdict == "" && r.looked < len(looks) && r.rounds > r.lastAt && r.rounds%2 == 0 {
				extra = append(extra, lookAt{r, r.looked + 1, r.rounds})
			}
		}
		rr.look(extra)
	}
	return rr.finish(rows, looks), err
}

func (rs *Rounds) now() time.Time {
	if rs.Now != nil {
		return rs.Now()
	}
	return time.Now()
}

// phase runs the undecided rows up to target rounds: round-robin, a pair
// of rounds a row at a time, or, when the budget cannot cover every row's
// rounds, row after row, so that the rows it covers reach their look
// rather than none.
func (rr *roundRun) phase(ctx context.Context, rows []*roundRow, target int) error {
	var active []*roundRow
	var need time.Duration
	for _, r := range rows {
		if r.verdict == "" && !r.starved && r.rounds < target {
			active = append(active, r)
			need += rr.estimate(r, target-r.rounds, rows)
		}
	}
	if rr.budgeted() && need > rr.left() {
		for _, r := range active {
			for r.rounds < target && !r.starved {
				if err := rr.pair(ctx, r, target); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for busy := true; busy; {
		busy = false
		for _, r := range active {
			if r.rounds < target && !r.starved {
				busy = true
				if err := rr.pair(ctx, r, target); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// budgeted reports whether a budget limits the rounds.
func (rr *roundRun) budgeted() bool { return rr.rs.Design.Gated && rr.rs.Design.Budget > 0 }

// left returns the budget not yet spent.
func (rr *roundRun) left() time.Duration { return rr.rs.Design.Budget - rr.rs.now().Sub(rr.start) }

// estimate returns how long n more rounds of r should take: its own mean
// round so far, or the mean over all rows for a row that has run none.
func (rr *roundRun) estimate(r *roundRow, n int, rows []*roundRow) time.Duration {
	if r.rounds > 0 {
		return r.spent / time.Duration(r.rounds) * time.Duration(n)
	}
	var spent time.Duration
	rounds := 0
	for _, o := range rows {
		spent += o.spent
		rounds += o.rounds
	}
	if rounds == 0 {
		return 0
	}
	return spent / time.Duration(rounds) * time.Duration(n)
}

// pair runs the next pair of rounds of r (one round when target is one
// away), first side then the other, then the other way round. The first
// pair of every row runs whatever the budget, so every row has figures; a
// later pair that would overrun the budget stops the row instead.
func (rr *roundRun) pair(ctx context.Context, r *roundRow, target int) error {
	n := min(2, target-r.rounds)
	if rr.budgeted() && r.rounds >= 2 && rr.estimate(r, n, nil) > rr.left() {
		r.starved, rr.starved = true, true
		return nil
	}
	for range n {
		t0 := rr.rs.now()
		first := r.rounds % 2
		for _, side := range []Point{r.sides[first], r.sides[1-first]} {
			p := side
			p.Index, p.Repeat, p.Repeats, p.UpTo = rr.index, r.rounds, rr.upTo, rr.rs.Design.Gated
			rr.index++
			if err := rr.b.runPoint(ctx, p, rr.run, rr.onResult); err != nil {
				return err
			}
		}
		if err := rr.runKernelRef(ctx, r); err != nil {
			return err
		}
		r.rounds++
		r.spent += rr.rs.now().Sub(t0)
	}
	return nil
}

// lookAt is one undecided row's next look (1-based) and the rounds it is
// judged from.
type lookAt struct {
	r            *roundRow
	look, rounds int
}

// look judges the rows of at together: Holm's step-down over them
// (stepDown), with the rows decided slower or faster at earlier looks
// counted out of their families.
func (rr *roundRun) look(at []lookAt) {
	rr.open = stepDown(rr.open, len(at), func(i int, open Open) string {
		return rr.judge(at[i].r, at[i].look, at[i].rounds, open)
	})
}

// judge judges r at look, from its first rounds rounds, with open the
// rows still open in each family: no result when both sides ran the same
// schedule, else JudgeRounds; a decided row is done. It returns the
// row's verdict ("" while undecided).
func (rr *roundRun) judge(r *roundRow, look, rounds int, open Open) string {
	ri, ok := rr.b.rows[r.index]
	if !ok {
		return ""
	}
	rr.b.summarize(ri)
	row := &rr.b.c.Rows[ri]
	d := rr.rs.Design
	if _, stage := report.StageGateMetric(d.GateMetric); stage && (!row.New.HasRepeatStages() || !row.Old.HasRepeatStages()) {
		r.verdict = report.VerdictNoResult // a stage gate judges only rows traced on both sides
		return r.verdict
	}
	s := JudgeRounds(roundValues(&row.New, rounds, d.GateMetric), roundValues(&row.Old, rounds, d.GateMetric), d, look, open)
	r.stats, r.looked, r.lastAt = &s, look, rounds
	switch {
	case rr.b.c.SameSchedule(row):
		r.verdict = report.VerdictNoResult
	case s.Verdict != report.VerdictInconclusive || !d.Gated:
		r.verdict = s.Verdict
	}
	return r.verdict
}

// roundValues returns the gate metric of a side's first n rounds, in
// round order.
func roundValues(s *report.ComparisonSide, n int, metric string) []float64 {
	vs := make([]float64, n)
	for _, r := range s.Repeats {
		if r.Repeat < n {
			vs[r.Repeat] = r.Value(metric)
		}
	}
	return vs[:min(n, len(s.Repeats))]
}

// finish folds the rows' statistics and verdicts into the comparison: a
// row still undecided is inconclusive with the statistics of its last
// look, or with none (its figures so far, no interval) when it reached
// none.
func (rr *roundRun) finish(rows []*roundRow, looks []int) *report.Comparison {
	d := rr.rs.Design
	c := rr.b.finish()
	c.Paired, c.Gated, c.GateMetric = true, d.Gated, d.GateMetric
	c.ThresholdPct, c.FamilyAlpha = d.ThresholdPct, FamilyAlpha
	c.Design = &report.DesignInfo{MinRounds: looks[0], Looks: looks, IntervalRounds: minSignedRankRounds(d.firstTail()), Budget: d.Budget.Seconds(),
		Elapsed: rr.rs.now().Sub(rr.start).Seconds(), BudgetSpent: rr.starved}
	if !d.Gated {
		c.Design.Budget = 0
	}
	c.Design.RoundsCap = looks[len(looks)-1]
	if d.MaxRounds > 0 {
		c.Design.RoundsCap = maxPlannedRounds
	}
	for _, r := range rows {
		ri, ok := rr.b.rows[r.index]
		if !ok {
			continue
		}
		row := &c.Rows[ri]
		if r.stats == nil {
			s := JudgeRounds(roundValues(&row.New, r.rounds, d.GateMetric), roundValues(&row.Old, r.rounds, d.GateMetric), d, 0, Open{})
			r.stats = &s
		}
		row.Stats, row.Verdict = r.stats, r.verdict
		switch {
		case c.RowNoResultReason(row) != "" || r.verdict == report.VerdictNoResult:
			row.Verdict = report.VerdictNoResult
			if !row.New.Ran() || !row.Old.Ran() || c.RowNoResultReason(row) == report.NoResultNoStages {
				row.Stats = nil
			}
		case row.Verdict == "" && d.Gated:
			row.Verdict = report.VerdictInconclusive
		case row.Verdict == "":
			row.Verdict = row.Stats.Verdict // too few repeats: cut short before its one look
		}
		if row.Stats != nil {
			row.Stats.Verdict = row.Verdict
			row.Stats.Projection = roundTime(row.Stats.Projection, r, row.Verdict)
		}
	}
	judgeKLockRounds(c, d)
	Conclude(c)
	ExplainStages(c)
	return c
}

// roundTime returns p with r's mean round time, or nil when the row the
// projection is of was decided after all (no result).
func roundTime(p *report.Projection, r *roundRow, verdict string) *report.Projection {
	if p == nil || verdict != report.VerdictInconclusive {
		return nil
	}
	if r.rounds > 0 {
		p.RoundSeconds = r.spent.Seconds() / float64(r.rounds)
	}
	return p
}
