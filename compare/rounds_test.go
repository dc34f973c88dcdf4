package compare

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// roundsFake is a RunFunc for comparisons in rounds of tw_priority: a run
// at iodepth D has the latency base µs times ratio[D] under priority (1
// when absent), times e^(noise[D]·Z) with Z standard normal, and a clock
// that every run advances by step.
type roundsFake struct {
	ratio map[int]float64
	noise map[int]float64
	same  map[int]bool // rows whose policies run the same schedule
	rng   *rand.Rand
	now   time.Time
	step  time.Duration
	calls []string // "D/P" of every run, in order
}

func (f *roundsFake) clock() time.Time { return f.now }

func (f *roundsFake) run(_ context.Context, sets []string) (*report.Result, error) {
	f.now = f.now.Add(f.step)
	job := &jobfile.Job{RW: jobfile.RWRandRead, IOEngine: "null", IODepth: 1, NumJobs: 1}
	for _, s := range sets {
		k, v, _ := strings.Cut(s, "=")
		switch k {
		case "iodepth":
			job.IODepth, _ = strconv.Atoi(v)
		case "tw_priority":
			job.TWPriority = v == "1"
		}
	}
	p := "0"
	lat := 100.0
	if job.TWPriority {
		p = "1"
		if r, ok := f.ratio[job.IODepth]; ok {
			lat *= r
		}
	}
	f.calls = append(f.calls, strconv.Itoa(job.IODepth)+"/"+p)
	lat *= math.Exp(f.noise[job.IODepth] * f.rng.NormFloat64())
	jr := &report.JobResult{Job: job, Name: "fake"}
	ds := &jr.Dirs[jobfile.DirRead]
	for range 10 {
		ds.Lat.Add(uint64(lat * 1000))
		ds.LatHist.Add(uint64(lat * 1000))
	}
	ds.TotalIOs, ds.Runtime = 10, time.Second
	tw := uint64(1000)
	if !job.TWPriority && !f.same[job.IODepth] {
		tw = 3000
	}
	jr.TWWait.Add(tw)
	return &report.Result{Jobs: []*report.JobResult{jr}}, nil
}

func newRoundsFake(seed uint64) *roundsFake {
	return &roundsFake{ratio: map[int]float64{}, noise: map[int]float64{}, same: map[int]bool{},
		rng: rand.New(rand.NewPCG(seed, seed+1)), now: time.Unix(1700000000, 0), step: time.Second}
}

var prioAB = &AB{Key: "tw_priority", New: "1", Old: "0"}

func TestRoundsABBA(t *testing.T) {
	// Ungated: exactly --repeat rounds, each a run of both sides back to
	// back, the order alternating round by round from a random start.
	for seed := uint64(0); seed < 4; seed++ {
		f := newRoundsFake(1)
		rs := Rounds{Design: Design{MinRounds: 6, GateMetric: report.GateAvg}, Now: f.clock, Rand: rand.New(rand.NewPCG(seed, 9))}
		c, err := rs.Run(context.Background(), nil, prioAB, f.run, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.calls) != 12 {
			t.Fatalf("%d runs, want 12: %v", len(f.calls), f.calls)
		}
		for i := 0; i+3 < len(f.calls); i += 4 {
			a, b, b2, a2 := f.calls[i], f.calls[i+1], f.calls[i+2], f.calls[i+3]
			if a == b || a != a2 || b != b2 {
				t.Errorf("seed %d: runs %d-%d %v, want ABBA", seed, i, i+3, f.calls[i:i+4])
			}
		}
		if !c.Paired || c.Gated || c.Verdict != report.GateNotGated || c.Design == nil || len(c.Design.Looks) != 1 {
			t.Errorf("seed %d: comparison paired %v gated %v verdict %q design %+v", seed, c.Paired, c.Gated, c.Verdict, c.Design)
		}
		if r := c.Rows[0]; len(r.New.Repeats) != 6 || r.Stats == nil || r.Stats.NewN != 6 {
			t.Errorf("seed %d: row %+v", seed, r)
		}
	}
}

func TestRoundsFirstSideIsRandom(t *testing.T) {
	firsts := map[string]int{}
	for seed := uint64(0); seed < 40; seed++ {
		f := newRoundsFake(1)
		rs := Rounds{Design: Design{MinRounds: 2}, Now: f.clock, Rand: rand.New(rand.NewPCG(seed, 3))}
		if _, err := rs.Run(context.Background(), nil, prioAB, f.run, nil); err != nil {
			t.Fatal(err)
		}
		firsts[f.calls[0]]++
	}
	if firsts["1/1"] < 8 || firsts["1/0"] < 8 {
		t.Errorf("first side over 40 seeds: %v, want both often", firsts)
	}
}

func TestRoundsSequentialRule(t *testing.T) {
	// Three depths gated at 5%: 25% slower at depth 1 (decided at the
	// first look, slower), no change at depth 2 (the same), noise far
	// wider than 5% at depth 4 (every look, then inconclusive). A decided
	// row gets no more rounds.
	f := newRoundsFake(2)
	f.ratio[1], f.noise[1] = 1.25, 0.01
	f.noise[2] = 0.001
	f.noise[4] = 0.5
	d := Design{MinRounds: 5, Gated: true, ThresholdPct: 5, GateMetric: report.GateAvg}
	rs := Rounds{Design: d, Now: f.clock, Rand: rand.New(rand.NewPCG(1, 1))}
	sweeps := []Sweep{{Key: "iodepth", Values: []string{"1", "2", "4"}}}
	c, err := rs.Run(context.Background(), sweeps, prioAB, f.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	d.Rows = 3
	looks := d.LookRounds()
	want := []struct {
		verdict string
		rounds  int
	}{{report.VerdictSlower, looks[0]}, {report.VerdictSame, looks[0]}, {report.VerdictInconclusive, looks[len(looks)-1]}}
	for i, w := range want {
		r := &c.Rows[i]
		if v := c.RowVerdict(r); v != w.verdict || len(r.New.Repeats) != w.rounds || r.Stats.NewN != w.rounds {
			t.Errorf("depth %s: %q after %d rounds (stats over %d), want %q after %d", r.Value, v, len(r.New.Repeats), r.Stats.NewN, w.verdict, w.rounds)
		}
		if r.Stats.Verdict != c.RowVerdict(r) {
			t.Errorf("depth %s: stats verdict %q, row %q", r.Value, r.Stats.Verdict, c.RowVerdict(r))
		}
	}
	if s := c.Rows[2].Stats; !s.HasInterval() || s.Look != len(looks) {
		t.Errorf("inconclusive row: look %d interval %v, want the last look's", s.Look, s.HasInterval())
	}
	if c.Verdict != report.GateFail || len(Gate(c, 5)) != 1 || c.Design.BudgetSpent {
		t.Errorf("verdict %q, %d rows fail, budget spent %v; want fail, 1, false", c.Verdict, len(Gate(c, 5)), c.Design.BudgetSpent)
	}
	if c.Design.Elapsed != float64(len(f.calls)) {
		t.Errorf("elapsed %gs, want %d runs of 1s", c.Design.Elapsed, len(f.calls))
	}
}

func TestRoundsBudget(t *testing.T) {
	// Two noisy rows, each run 1s, a budget of 100s: both rows run their
	// first pair, then rounds while the budget lasts; they end
	// inconclusive, the budget said to be spent, and no pair started
	// that the budget could not finish.
	f := newRoundsFake(3)
	f.noise[1], f.noise[2] = 0.5, 0.5
	d := Design{MinRounds: 5, Gated: true, ThresholdPct: 5, GateMetric: report.GateAvg, Budget: 100 * time.Second}
	rs := Rounds{Design: d, Now: f.clock, Rand: rand.New(rand.NewPCG(1, 2))}
	c, err := rs.Run(context.Background(), []Sweep{{Key: "iodepth", Values: []string{"1", "2"}}}, prioAB, f.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict != report.GateInconclusive || !c.Design.BudgetSpent || c.Design.Elapsed > 100 {
		t.Errorf("verdict %q, budget spent %v, elapsed %gs; want inconclusive within 100s", c.Verdict, c.Design.BudgetSpent, c.Design.Elapsed)
	}
	for i := range c.Rows {
		r := &c.Rows[i]
		if c.RowVerdict(r) != report.VerdictInconclusive || len(r.New.Repeats) < 2 {
			t.Errorf("depth %s: %q after %d rounds", r.Value, c.RowVerdict(r), len(r.New.Repeats))
		}
	}
	// The budget covers the first two looks (12 and 18 rounds a row: 72
	// runs of 1s) but not the third (28: 40 more): that phase runs row
	// after row, so the first row reaches it and the second does not; the
	// second is judged once more, at a third look, at the rounds it ran.
	d.Rows = 2
	looks := d.LookRounds()
	n0, n1 := len(c.Rows[0].New.Repeats), len(c.Rows[1].New.Repeats)
	if n0 != looks[2] || n1 >= looks[2] || n1 <= looks[1] || c.Rows[0].Stats.Look != 3 || c.Rows[1].Stats.Look != 3 || c.Rows[1].Stats.NewN != n1 {
		t.Errorf("rounds %d and %d, looks %d and %d at %d and %d rounds; want %d (look 3) and between %d and %d (look 3 at all its rounds)",
			n0, n1, c.Rows[0].Stats.Look, c.Rows[1].Stats.Look, c.Rows[0].Stats.NewN, c.Rows[1].Stats.NewN, looks[2], looks[1], looks[2])
	}
}

func TestRoundsNoResult(t *testing.T) {
	// A row whose policies ran the same schedule is no result at its
	// first look and runs no more; it never gates, even 50% slower.
	f := newRoundsFake(4)
	f.same[1], f.ratio[1], f.noise[1] = true, 1.5, 0.01
	f.noise[2] = 0.001
	d := Design{MinRounds: 5, Gated: true, ThresholdPct: 5, GateMetric: report.GateAvg}
	rs := Rounds{Design: d, Now: f.clock, Rand: rand.New(rand.NewPCG(1, 3))}
	c, err := rs.Run(context.Background(), []Sweep{{Key: "iodepth", Values: []string{"1", "2"}}}, prioAB, f.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	d.Rows = 2
	r := &c.Rows[0]
	if c.RowVerdict(r) != report.VerdictNoResult || c.RowNoResultReason(r) != report.NoResultSameSchedule || len(r.New.Repeats) != d.LookRounds()[0] {
		t.Errorf("same-schedule row: %q (%q) after %d rounds", c.RowVerdict(r), c.RowNoResultReason(r), len(r.New.Repeats))
	}
	if c.Verdict != report.GatePass {
		t.Errorf("verdict %q, want pass", c.Verdict)
	}
}

func TestRoundsInterrupted(t *testing.T) {
	f := newRoundsFake(5)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	run := func(ctx context.Context, sets []string) (*report.Result, error) {
		if n++; n == 5 {
			cancel()
		}
		return f.run(ctx, sets)
	}
	rs := Rounds{Design: Design{MinRounds: 6}, Now: f.clock}
	c, err := rs.Run(ctx, nil, prioAB, run, nil)
	if err == nil || !strings.Contains(err.Error(), ErrInterrupted.Error()) {
		t.Fatalf("err %v, want interrupted", err)
	}
	// Five runs: two whole rounds and one side of the third, judged on
	// the two whole rounds (too few for an interval).
	if c == nil || len(c.Rows) != 1 || len(c.Rows[0].New.Repeats)+len(c.Rows[0].Old.Repeats) != 5 {
		t.Fatalf("comparison of the runs made: %+v", c)
	}
	if s := c.Rows[0].Stats; s == nil || s.NewN != 2 || c.RowVerdict(&c.Rows[0]) != report.VerdictTooFew {
		t.Errorf("stats %+v, verdict %q; want 2 rounds, too few repeats", s, c.RowVerdict(&c.Rows[0]))
	}
}
