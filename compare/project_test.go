package compare

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofio/gofio/report"
)

// sweepDesign is the design of the patch's sweep: 15 rows gated at 5%.
var sweepDesign = Design{Rows: 15, MinRounds: 5, Gated: true, ThresholdPct: 5, GateMetric: report.GateAvg}

// lastLookLevels returns the levels d's last look would judge n rounds
// at: what a projection assumes of the rounds it projects.
func lastLookLevels(d Design, n int) levels {
	looks := d.LookRounds()
	lv := d.lookLevels(len(looks), looks[len(looks)-1], Open{})
	lv.klo, lv.khi, lv.keq = signedRankCritical(n, lv.lo), signedRankCritical(n, lv.hi), signedRankCritical(n, lv.eq)
	return lv
}

// judgeLogs judges per-round log ratios at look (JudgeRounds), as rounds
// of an old side at 100.
func judgeLogs(diffs []float64, d Design, look int) report.RowStats {
	nv, ov := make([]float64, len(diffs)), make([]float64, len(diffs))
	for i, x := range diffs {
		nv[i], ov[i] = 100*math.Exp(x), 100
	}
	return JudgeRounds(nv, ov, d, look, Open{})
}

// continued returns seeds streams of upTo per-round log ratios: first,
// then rounds of the given effect and normal spread.
func continued(first []float64, effect, sigma float64, seeds, upTo int) [][]float64 {
	out := make([][]float64, seeds)
	for s := range out {
		rng := rand.New(rand.NewPCG(uint64(s), 77))
		all := append(make([]float64, 0, upTo), first...)
		for len(all) < upTo {
			all = append(all, effect+sigma*rng.NormFloat64())
		}
		out[s] = all
	}
	return out
}

// decidedRounds returns, over streams judged at the last look's levels
// at every 5% more rounds from from on, the fewest rounds at which half
// of them are decided, and the median of the rounds at which each is
// first decided.
func decidedRounds(d Design, streams [][]float64, from int) (half, firstMedian int) {
	var first []int
	done := make([]bool, len(streams))
	for n := from; n <= len(streams[0]); n = even(n + max(2, n/20)) {
		lv, decided := lastLookLevels(d, n), 0
		for i, s := range streams {
			if newWalsh(s[:n]).verdict(lv, pctToLog, d) != report.VerdictInconclusive {
				decided++
				if !done[i] {
					done[i] = true
					first = append(first, n)
				}
			}
		}
		if half == 0 && 2*decided >= len(streams) {
			half = n
		}
		if half > 0 && 2*len(first) > len(streams) {
			break
		}
	}
	slices.Sort(first)
	return half, first[len(first)/2]
}

// TestProjectionMatchesSimulatedRounds checks a projection against the
// rounds that decide the row when more are simulated: rows whose first
// rounds show their true change and spread exactly (the normal quantiles
// of it), undecided at a look of the sweep's design; 300 continuations
// of each at that change and spread, judged at the last look's levels,
// are half decided within 30% of the projected rounds, and the spread
// read is the one simulated within 10%.
func TestProjectionMatchesSimulatedRounds(t *testing.T) {
	looks := sweepDesign.LookRounds()
	for _, tc := range []struct {
		name          string
		effect, sigma float64
		look          int // 1-based, of sweepDesign
		decision      string
	}{
		{"20% slower, sd 0.5", math.Log(1.2), 0.5, 2, report.VerdictSlower},
		{"10% slower, sd 0.3", math.Log(1.1), 0.3, 2, report.VerdictSlower},
		{"no change, sd 0.15", 0, 0.15, 2, report.VerdictSame},
		{"2% slower, sd 0.15", 0.02, 0.15, 2, report.VerdictSame},
		{"no change, sd 0.3", 0, 0.3, 3, report.VerdictSame},
		{"no change, sd 0.5", 0, 0.5, 4, report.VerdictSame},
	} {
		n0 := looks[tc.look-1]
		first := make([]float64, n0)
		for i := range first {
			first[i] = tc.effect + tc.sigma*normalQuantile((float64(i)+0.5)/float64(n0))
		}
		s := judgeLogs(first, sweepDesign, tc.look)
		p := s.Projection
		if s.Verdict != report.VerdictInconclusive || p == nil || p.Decision != tc.decision || p.Rounds <= n0 {
			t.Fatalf("%s: verdict %q, projection %+v; want inconclusive, %s in more than %d rounds", tc.name, s.Verdict, p, tc.decision, n0)
		}
		if math.Abs(p.RoundSD/tc.sigma-1) > 0.1 {
			t.Errorf("%s: spread read %.3f, simulated %.3f", tc.name, p.RoundSD, tc.sigma)
		}
		half, firstMedian := decidedRounds(sweepDesign, continued(first, tc.effect, tc.sigma, 300, 4*p.Rounds), n0+2)
		t.Logf("%s: projected %d rounds (%s, sd %.3f); half decided at %d, first decided at %d (median)", tc.name, p.Rounds, p.Decision, p.RoundSD, half, firstMedian)
		if half == 0 || math.Abs(float64(p.Rounds)/float64(half)-1) > 0.3 {
			t.Errorf("%s: projected %d rounds, half the simulations decided at %d", tc.name, p.Rounds, half)
		}
	}
}

// TestProjectionFromNoisyRounds checks projections made from random
// rounds, as a row shows them, against the rounds at which each row goes
// on to be decided when judged at every 5% more rounds, over 200 rows
// undecided at the sweep's second look. Looking that often decides
// sooner than the even odds a projection gives (about 0.7 of it,
// TestProjectionMatchesSimulatedRounds), and a row of no change still
// undecided is one whose estimate strayed from 0, which a projection
// takes at its word: a slower row's projection is 0.9 to 1.5 times the
// rounds that decided it in the median, a row of no change's 1 to 2.5.
func TestProjectionFromNoisyRounds(t *testing.T) {
	n0 := sweepDesign.LookRounds()[1]
	for _, tc := range []struct {
		name          string
		effect, sigma float64
		lo, hi        float64 // bounds of the median ratio projected/decided
	}{
		{"20% slower, sd 0.5", math.Log(1.2), 0.5, 0.9, 1.5},
		{"10% slower, sd 0.3", math.Log(1.1), 0.3, 0.9, 1.5},
		{"no change, sd 0.15", 0, 0.15, 1, 2.5},
		{"no change, sd 0.3", 0, 0.3, 1, 2.5},
	} {
		var ratios []float64
		for _, all := range continued(nil, tc.effect, tc.sigma, 200, 3000) {
			s := judgeLogs(all[:n0], sweepDesign, 2)
			if s.Projection == nil || s.Projection.Rounds == 0 {
				continue
			}
			for n := n0 + 2; n <= len(all); n = even(n + max(2, n/20)) {
				if newWalsh(all[:n]).verdict(lastLookLevels(sweepDesign, n), pctToLog, sweepDesign) != report.VerdictInconclusive {
					ratios = append(ratios, float64(s.Projection.Rounds)/float64(n))
					break
				}
			}
		}
		slices.Sort(ratios)
		med := ratios[len(ratios)/2]
		t.Logf("%s: %d rows, projected/decided q25 %.2f, median %.2f, q75 %.2f", tc.name, len(ratios), ratios[len(ratios)/4], med, ratios[3*len(ratios)/4])
		if len(ratios) < 150 || med < tc.lo || med > tc.hi {
			t.Errorf("%s: %d rows, median ratio %.2f, want within [%g, %g]", tc.name, len(ratios), med, tc.lo, tc.hi)
		}
	}
}

// atThreshold returns 24 per-round differences whose Walsh averages have
// their median at c exactly: pairs c ± j/1024, exact in floating point
// for c near ±5% (every value stays in c's binade).
func atThreshold(c float64) []float64 {
	var d []float64
	for j := 1; j <= 12; j++ {
		e := float64(j) / 1024
		d = append(d, c+e, c-e)
	}
	return d
}

// TestProjectionAtThreshold checks that a row whose estimate sits at +T
// or -T, where neither the same nor beyond the threshold is open, gets no
// finite projection, and at twice the threshold a finite one, the same.
func TestProjectionAtThreshold(t *testing.T) {
	d := sweepDesign
	for _, c := range []float64{pctToLog(5), pctToLog(-5)} {
		w := newWalsh(atThreshold(c))
		a := w.averages()
		if median(a) != c {
			t.Fatalf("centre %v, want %v exactly", median(a), c)
		}
		if v := w.verdict(d.lookLevels(3, len(w), Open{}), pctToLog, d); v != report.VerdictInconclusive {
			t.Fatalf("at %+.2f%%: verdict %q, want inconclusive", logToPct(c), v)
		}
		p := d.project(w, a, Open{}, pctToLog)
		if p == nil || p.Rounds != 0 || p.Decision != "" {
			t.Errorf("at %+.2f%%: projection %+v, want none finite", logToPct(c), p)
			continue
		}
		if p.Rounds2x <= len(w) || p.Decision2x != report.VerdictSame {
			t.Errorf("at %+.2f%%: at twice the threshold %d rounds, %q; want the same in more than %d", logToPct(c), p.Rounds2x, p.Decision2x, len(w))
		}
	}
	// Just beyond the threshold the row is headed for slower instead,
	// and just within it for the same, in far more rounds.
	w := newWalsh(atThreshold(pctToLog(5)))
	up, down := make([]float64, len(w)), make([]float64, len(w))
	for i, x := range w {
		up[i], down[i] = x+1e-4, x-1e-4
	}
	wu, wd := newWalsh(up), newWalsh(down)
	pu, pd := d.project(wu, wu.averages(), Open{}, pctToLog), d.project(wd, wd.averages(), Open{}, pctToLog)
	if pu.Decision != report.VerdictSlower || pd.Decision != report.VerdictSame || pd.Rounds <= 100*pu.Rounds {
		t.Errorf("just above +5%%: %d rounds %s; just below: %d rounds %s", pu.Rounds, pu.Decision, pd.Rounds, pd.Decision)
	}
}

// TestProjectionIOPS checks the orientation for IOPS: fewer IOPS beyond
// the threshold is headed for slower, more for faster.
func TestProjectionIOPS(t *testing.T) {
	d := withMetric(sweepDesign, report.GateIOPS)
	n0 := d.LookRounds()[1]
	for _, tc := range []struct {
		effect   float64
		decision string
	}{{math.Log(0.85), report.VerdictSlower}, {math.Log(1.15), report.VerdictFaster}} {
		first := make([]float64, n0)
		for i := range first {
			first[i] = tc.effect + 0.5*normalQuantile((float64(i)+0.5)/float64(n0))
		}
		if p := judgeLogs(first, d, 2).Projection; p == nil || p.Decision != tc.decision {
			t.Errorf("IOPS %+.0f%%: projection %+v, want %s", logToPct(tc.effect), p, tc.decision)
		}
	}
}

// TestRoundsProjection checks what Rounds.Run gives an undecided row: its
// projection with its own time per round (two runs of 1s), none on a
// decided row, and the rounds a row can run at most.
func TestRoundsProjection(t *testing.T) {
	f := newRoundsFake(3)
	f.noise[1], f.noise[2] = 0.3, 0.001
	d := Design{MinRounds: 5, Gated: true, ThresholdPct: 5, GateMetric: report.GateAvg, Budget: 100 * time.Second}
	rs := Rounds{Design: d, Now: f.clock, Rand: rand.New(rand.NewPCG(1, 2))}
	c, err := rs.Run(context.Background(), []Sweep{{Key: "iodepth", Values: []string{"1", "2"}}}, prioAB, f.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	d.Rows = 2
	looks := d.LookRounds()
	if c.Design.RoundsCap != looks[len(looks)-1] {
		t.Errorf("rounds cap %d, want the last look's %d (looks not planned to the budget)", c.Design.RoundsCap, looks[len(looks)-1])
	}
	noisy, quiet := &c.Rows[0], &c.Rows[1]
	if c.RowVerdict(quiet) != report.VerdictSame || quiet.Stats.Projection != nil {
		t.Errorf("quiet row %q with projection %+v, want the same and none", c.RowVerdict(quiet), quiet.Stats.Projection)
	}
	p := noisy.Stats.Projection
	if c.RowVerdict(noisy) != report.VerdictInconclusive || p == nil || p.RoundSeconds != 2 || p.Rounds <= noisy.Stats.NewN || math.Abs(p.RoundSD/0.3/math.Sqrt2-1) > 0.3 {
		t.Fatalf("noisy row %q after %d rounds, projection %+v; want inconclusive, 2s a round, a spread near 0.3·√2", c.RowVerdict(noisy), noisy.Stats.NewN, p)
	}
	b := c.DecideBudget(false)
	more := p.Rounds - len(noisy.New.Repeats)
	if p.Rounds > c.Design.RoundsCap {
		if b.Beyond != 1 || b.Within != 0 {
			t.Errorf("budget %+v, want the row beyond reach", b)
		}
	} else if b.Within != 1 || b.MoreRounds != more || b.MoreSeconds != float64(2*more) || b.BudgetSeconds != c.Design.Elapsed+float64(2*more) {
		t.Errorf("budget %+v, want %d more rounds of 2s after %gs", b, more, c.Design.Elapsed)
	}
}

// TestProjectionTies checks a row whose rounds take few values (as a p99
// read off histogram buckets does): log ratios cycling through ±ln 2 and
// ±ln 4, undecided at 82 rounds with a quarter of its Walsh averages at
// 0. Its equivalence interval closes on 0 from 104 rounds on; the
// projection reads that off the Walsh averages rather than a standard
// deviation, which would put it in the thousands.
func TestProjectionTies(t *testing.T) {
	d := Design{Rows: 1, MinRounds: 5, Gated: true, ThresholdPct: 5, GateMetric: report.GateAvg}
	cycle := []float64{math.Log(0.25), math.Log(0.5), math.Log(2), math.Log(4)}
	rounds := func(n int) walsh {
		diffs := make([]float64, n)
		for i := range diffs {
			diffs[i] = cycle[i%4]
		}
		return newWalsh(diffs)
	}
	w := rounds(82)
	if v := w.verdict(d.lookLevels(5, 82, Open{}), pctToLog, d); v != report.VerdictInconclusive {
		t.Fatalf("82 rounds: %q, want inconclusive", v)
	}
	p := d.project(w, w.averages(), Open{}, pctToLog)
	if p == nil || p.Decision != report.VerdictSame || p.Rounds < 100 || p.Rounds > 116 || math.Abs(p.RoundSD-1.1) > 0.01 {
		t.Fatalf("projection %+v, want the same in 100 to 116 rounds, sd 1.1", p)
	}
	for n := p.Rounds; n <= p.Rounds+20; n += 2 {
		if v := rounds(n).verdict(lastLookLevels(d, n), pctToLog, d); v != report.VerdictSame {
			t.Errorf("%d rounds, from the projected %d on: %q, want the same", n, p.Rounds, v)
		}
	}
}

// TestProjectionSweep runs a sweep shaped like the patch's 15 depths on
// a noisy 2-core VM through Rounds.Run: no change at any depth, a
// per-round sd of the log ratio of 0.65, 0.5 and 0.3 at depths 1 to 4 and
// 0.18 to 0.11 beyond, 2.1s a round, within --budget 15m with the looks
// planned to it (1s runs). Every undecided row carries its spread (within
// 30% of the simulated one) and its 2.1s a round, and the verdict note
// sums them into a budget beyond the 15 minutes spent: at 5%, 14 rows
// within reach in about 2400 more rounds (1h24m), but --budget 4h10m,
// since the looks plan depth 4's 770 rounds only from that budget on.
func TestProjectionSweep(t *testing.T) {
	f := newRoundsFake(11)
	f.step = 1050 * time.Millisecond
	var depths []string
	sd := map[int]float64{}
	for i, depth := 0, 1; depth <= 16384; i, depth = i+1, depth*2 {
		depths = append(depths, strconv.Itoa(depth))
		sd[depth] = []float64{0.65, 0.5, 0.3}[min(i, 2)]
		if depth >= 8 {
			sd[depth] = 0.18 - 0.07*float64(i-3)/11
		}
		f.noise[depth] = sd[depth] / math.Sqrt2 // each side's; a round's ratio has both
	}
	d := Design{MinRounds: 5, Gated: true, ThresholdPct: 5, GateMetric: report.GateAvg, Budget: 15 * time.Minute}
	d.MaxRounds = PlanRounds(d.Budget, time.Second, len(depths))
	rs := Rounds{Design: d, Now: f.clock, Rand: rand.New(rand.NewPCG(5, 6))}
	c, err := rs.Run(context.Background(), []Sweep{{Key: "iodepth", Values: depths}}, prioAB, f.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range c.Rows {
		r := &c.Rows[i]
		depth, _ := strconv.Atoi(r.Value)
		if c.RowVerdict(r) != report.VerdictInconclusive {
			t.Logf("depth %5d: %s after %d rounds", depth, c.RowVerdict(r), r.Stats.NewN)
			continue
		}
		p := r.Stats.Projection
		t.Logf("depth %5d: inconclusive after %d rounds, %+.1f%%, sd %.3f (simulated %.3f): %d rounds to read %s (%d, %s at 10%%)",
			depth, r.Stats.NewN, r.Stats.DeltaPct, p.RoundSD, sd[depth], p.Rounds, p.Decision, p.Rounds2x, p.Decision2x)
		if math.Abs(p.RoundSD/sd[depth]-1) > 0.3 || math.Abs(p.RoundSeconds-2.1) > 1e-9 {
			t.Errorf("depth %d: sd %.3f for %.3f simulated, %gs a round for 2.1", depth, p.RoundSD, sd[depth], p.RoundSeconds)
		}
	}
	b := c.DecideBudget(false)
	note := report.DecideNote(c)
	t.Logf("%s; %+v", note, b)
	if c.Verdict != report.GateInconclusive || b.Undecided < 10 || b.BudgetSeconds <= c.Design.Elapsed || note == "" || c.Design.RoundsCap != maxPlannedRounds {
		t.Errorf("verdict %q, %+v, rounds cap %d, note %q", c.Verdict, b, c.Design.RoundsCap, note)
	}
	// The looks give each row 1.5 times an even share of the budget, so
	// the noisiest row within reach sets it, not the rounds' time.
	if b.PlanSeconds <= c.Design.Elapsed+b.MoreSeconds || b.BudgetSeconds != b.PlanSeconds || !strings.Contains(note, b.WidestRow+" needs") {
		t.Errorf("budget %+v: want the looks' plan to set it", b)
	}
}
