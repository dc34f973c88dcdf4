package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gofio/gofio/report"
)

func TestLookRounds(t *testing.T) {
	d := Design{Rows: 15, MinRounds: 5, Gated: true, ThresholdPct: 5}
	looks := d.LookRounds()
	if len(looks) != Looks {
		t.Fatalf("%d looks, want %d", len(looks), Looks)
	}
	if first := looks[0]; first < minSignedRankRounds(d.firstTail()) || first%2 != 0 {
		t.Errorf("first look at %d rounds: want even and >= %d (the fewest with an interval at tail %g)", first, minSignedRankRounds(d.firstTail()), d.firstTail())
	}
	for i := 1; i < len(looks); i++ {
		if looks[i]%2 != 0 || float64(looks[i]) < lookGrowth*float64(looks[i-1]) {
			t.Errorf("looks %v: look %d not even or not %g times the one before", looks, i+1, lookGrowth)
		}
	}
	if slower, _, eq := d.Levels(1, looks[0], Open{}); signedRankCritical(looks[0], slower) == 0 || signedRankCritical(looks[0], eq) == 0 {
		t.Errorf("no interval at the first look (%d rounds): levels %g and %g", looks[0], slower, eq)
	}
	d.MinRounds = 41
	if first := d.LookRounds()[0]; first != 42 {
		t.Errorf("--repeat 41: first look at %d, want 42", first)
	}
	ungated := Design{Rows: 3, MinRounds: 7}
	if got := ungated.LookRounds(); len(got) != 1 || got[0] != 7 {
		t.Errorf("ungated looks %v, want [7]", got)
	}
	if got, want := d.firstTail(), FamilyAlpha/(15*Looks); got != want {
		t.Errorf("firstTail = %g, want %g", got, want)
	}
}

func TestPlannedLooks(t *testing.T) {
	// A budget of 2 minutes over 3 rows of 100 ms runs plans 300 rounds
	// a row (1.5 times the even share); the looks reach it in 6 steps.
	if got := PlanRounds(2*time.Minute, 100*time.Millisecond, 3); got != 300 {
		t.Errorf("PlanRounds = %d, want 300", got)
	}
	if PlanRounds(0, time.Second, 3) != 0 || PlanRounds(time.Minute, 0, 3) != 0 || PlanRounds(time.Hour, time.Millisecond, 1) != maxPlannedRounds {
		t.Errorf("PlanRounds without a budget, without a run time, or past its bound")
	}
	d := Design{Rows: 3, MinRounds: 5, Gated: true, ThresholdPct: 5, MaxRounds: 300}
	looks := d.LookRounds()
	if len(looks) != Looks || looks[0] != 12 || looks[Looks-1] != 300 {
		t.Errorf("looks %v, want %d from 12 to 300", looks, Looks)
	}
	for i := 1; i < len(looks); i++ {
		if looks[i]%2 != 0 || looks[i] < looks[i-1]+2 {
			t.Errorf("looks %v: look %d not even or not a pair after the one before", looks, i+1)
		}
	}
	// A budget short of the default's first looks: fewer looks, a pair
	// apart, the last rounded up to a whole pair.
	d.MaxRounds = 17
	if got := d.LookRounds(); len(got) != 4 || got[3] != 18 {
		t.Errorf("MaxRounds 17: looks %v, want [12 14 16 18]", got)
	}
	d.MaxRounds = 5
	if got := d.LookRounds(); len(got) != 1 || got[0] != 12 {
		t.Errorf("MaxRounds 5: looks %v, want the first look alone", got)
	}
	// Rows of noise 10% (log scale) within a budget of 166 rounds a row:
	// the looks planned to the budget let the rows use it, where the
	// default's last look (96 rounds) stops them long before.
	if testing.Short() {
		return
	}
	planned := Design{Rows: 3, MinRounds: 5, Gated: true, ThresholdPct: 5, GateMetric: report.GateAvg, MaxRounds: int(budgetShare * 166)}
	same := map[bool]int{}
	for _, plan := range []bool{false, true} {
		d := planned
		if !plan {
			d.MaxRounds = 0
		}
		rng := rand.New(rand.NewPCG(17, 18))
		for i := range 300 {
			vs, _ := simSweep(rng, slowSweep(rng, i, 0.1, 1, false)[:3], d, 3*166)
			same[plan] += count(vs, report.VerdictSame)
		}
		t.Logf("looks %v: %.1f%% of unchanged rows read the same", d.LookRounds(), 100*float64(same[plan])/900)
	}
	if same[true] < same[false]*3/2 {
		t.Errorf("planned looks decided %d rows, the default %d", same[true], same[false])
	}
}

func TestLevels(t *testing.T) {
	d := Design{Rows: 3, MinRounds: 5, Gated: true, ThresholdPct: 5}
	looks := d.LookRounds()
	for k, n := range looks {
		slower, faster, _ := d.Levels(k+1, n, Open{})
		if slower != faster {
			t.Errorf("look %d: slower %g, faster %g: the families are alike", k+1, slower, faster)
		}
		// Pocock-type spending over looks that grow apart: from the
		// third look on, every look at least Bonferroni's even share.
		if k > 1 && slower < FamilyAlpha/3/Looks {
			t.Errorf("look %d: slower level %g below Bonferroni's %g", k+1, slower, FamilyAlpha/3/Looks)
		}
	}
	if _, _, eq := d.Levels(Looks, looks[Looks-1], Open{}); eq < 2*EquivalenceBeta/Looks {
		t.Errorf("last look: equivalence level %g, want at least twice Bonferroni's %g", eq, EquivalenceBeta/Looks)
	}
	// Holm: a row's share grows as other rows are read slower.
	s3, _, _ := d.Levels(2, looks[1], Open{Slower: 3, Faster: 3})
	s1, f3, _ := d.Levels(2, looks[1], Open{Slower: 1, Faster: 3})
	if !(s1 > 2*s3) || f3 != s3 {
		t.Errorf("Holm: share of 1 open row %g, of 3 %g (faster %g)", s1, s3, f3)
	}
	// A look the budget called between two planned ones spends up to its
	// fraction: more than nothing, less than the planned next look.
	mid, _, _ := d.Levels(3, (looks[1]+looks[2])/2, Open{})
	s4, _, _ := d.Levels(3, looks[2], Open{})
	if !(mid > 0 && mid < s4) {
		t.Errorf("a look between looks 2 and 3: level %g, planned look 3 %g", mid, s4)
	}
	u := Design{Rows: 4, MinRounds: 10}
	if slower, faster, eq := u.Levels(1, 10, Open{}); slower != FamilyAlpha/4 || faster != slower || eq != 0 {
		t.Errorf("ungated: levels %g %g %g, want %g each way", slower, faster, eq, FamilyAlpha/4)
	}
}

// rounds returns n rounds whose new side is old times ratio, with
// multiplicative noise of the given spread.
func rounds(rng *rand.Rand, n int, old, ratio, spread float64) (nv, ov []float64) {
	for i := 0; i < n; i++ {
		o := old * math.Exp(rng.NormFloat64()*spread)
		nv = append(nv, o*ratio*math.Exp(rng.NormFloat64()*spread))
		ov = append(ov, o)
	}
	return nv, ov
}

func TestJudgeRoundsVerdicts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	gated := Design{Rows: 1, Gated: true, ThresholdPct: 5, GateMetric: report.GateAvg}
	n := gated.LookRounds()[0]
	for _, tc := range []struct {
		name    string
		d       Design
		ratio   float64
		spread  float64
		verdict string
	}{
		{"latency 25% up is slower", gated, 1.25, 0.01, report.VerdictSlower},
		{"latency 25% down is faster", gated, 0.75, 0.01, report.VerdictFaster},
		{"iops 25% down is slower", withMetric(gated, report.GateIOPS), 0.75, 0.01, report.VerdictSlower},
		{"iops 25% up is faster", withMetric(gated, report.GateIOPS), 1.25, 0.01, report.VerdictFaster},
		{"no change within 5% is the same", gated, 1, 0.002, report.VerdictSame},
		{"2% up within 5% is the same", gated, 1.02, 0.002, report.VerdictSame},
		{"5% up, right at the threshold, is undecided", gated, 1.05, 0.002, report.VerdictInconclusive},
		{"noise wider than the threshold is undecided", gated, 1, 0.3, report.VerdictInconclusive},
		{"ungated no change is no evidence", Design{Rows: 1, MinRounds: n, GateMetric: report.GateAvg}, 1, 0.002, report.VerdictNoEvidence},
		{"ungated 3% up is slower", Design{Rows: 1, MinRounds: n, GateMetric: report.GateAvg}, 1.03, 0.002, report.VerdictSlower},
	} {
		nv, ov := rounds(rng, n, 100, tc.ratio, tc.spread)
		s := JudgeRounds(nv, ov, tc.d, 1, Open{})
		if s.Verdict != tc.verdict {
			t.Errorf("%s: verdict %q (Δ %+.2f%% [%+.2f%%, %+.2f%%]), want %q", tc.name, s.Verdict, s.DeltaPct, s.LoPct, s.HiPct, tc.verdict)
		}
		if slower, faster, _ := tc.d.Levels(1, n, Open{}); !s.Paired || s.NewN != n || !s.HasInterval() || s.Confidence < 1-slower-faster {
			t.Errorf("%s: stats %+v", tc.name, s)
		}
		if want := (tc.ratio - 1) * 100; math.Abs(s.DeltaPct-want) > 1+tc.spread*100 {
			t.Errorf("%s: Δ %+.2f%%, want about %+.2f%%", tc.name, s.DeltaPct, want)
		}
	}
	// Too few rounds for an interval: ungated too few, gated inconclusive.
	nv, ov := rounds(rng, 3, 100, 2, 0.01)
	if s := JudgeRounds(nv, ov, Design{Rows: 1, MinRounds: 3}, 1, Open{}); s.Verdict != report.VerdictTooFew || s.HasInterval() {
		t.Errorf("3 rounds ungated: %q", s.Verdict)
	}
	if s := JudgeRounds(nv, ov, gated, 0, Open{}); s.Verdict != report.VerdictInconclusive || s.HasInterval() {
		t.Errorf("3 rounds gated before any look: %q", s.Verdict)
	}
	// Zero values fall back to differences against the old median.
	s := JudgeRounds([]float64{0, 0, 0}, []float64{0, 0, 0}, Design{Rows: 1, MinRounds: 3}, 1, Open{})
	if s.Verdict != report.VerdictTooFew {
		t.Errorf("all zero: %q", s.Verdict)
	}
}

func withMetric(d Design, m string) Design {
	d.GateMetric = m
	return d
}

// simNoise is a model of the per-run noise of a shared runner, on the log
// scale of the gate metric, at scale sigma.
type simNoise struct {
	name string
	draw func(rng *rand.Rand, sigma float64) float64
}

// simNoises are the heavy-tailed and bimodal noises the simulations use:
// Student's t with 3 degrees of freedom, a lognormal slowdown (a value
// times 1 + e^Z/2: skewed, a long right tail), 5% outliers ten times as
// wide, and two modes 4 sigma apart (the two vCPU speeds seen at depth 1
// on this project's VM), with normal noise for reference.
var simNoises = []simNoise{
	{"normal", func(rng *rand.Rand, s float64) float64 { return rng.NormFloat64() * s }},
	{"t3", func(rng *rand.Rand, s float64) float64 { return studentT3(rng) * s / math.Sqrt(3) }},
	{"lognormal", func(rng *rand.Rand, s float64) float64 { return math.Log1p(math.Exp(rng.NormFloat64())/2) * s * 2 }},
	{"outliers", func(rng *rand.Rand, s float64) float64 {
		if rng.Float64() < 0.05 {
			return rng.NormFloat64() * 10 * s
		}
		return rng.NormFloat64() * s
	}},
	{"bimodal", func(rng *rand.Rand, s float64) float64 {
		if rng.Float64() < 0.3 {
			return 4*s + rng.NormFloat64()*s/2
		}
		return rng.NormFloat64() * s / 2
	}},
}

// simRow is one row of a simulated sweep: the log effect of the new side,
// and the runner's drift and bursts.
type simRow struct {
	effect float64 // log(new/old) of the true figures
	noise  simNoise
	sigma  float64
	slope  float64 // linear drift per run, log scale
	walk   float64 // random-walk step per run
	order  float64 // what running second adds, log scale
}

// simStream draws a simulated row's rounds one at a time: its runs
// alternate in ABBA order from a random start, and an intermittent hog
// slows a run by 3 sigma with chance 0.05 at each run, for 1 to 4 runs.
type simStream struct {
	r        simRow
	rng      *rand.Rand
	level, t float64
	hog      int
	newFirst bool
	rounds   int
}

func (r simRow) stream(rng *rand.Rand) *simStream {
	return &simStream{r: r, rng: rng, newFirst: rng.IntN(2) == 0}
}

// run returns one run's value, log scale.
func (s *simStream) run(isNew, second bool) float64 {
	r := s.r
	s.t++
	s.level += s.rng.NormFloat64() * r.walk
	if s.hog == 0 && s.rng.Float64() < 0.05 {
		s.hog = 1 + s.rng.IntN(4)
	}
	v := s.level + r.slope*s.t + r.noise.draw(s.rng, r.sigma)
	if s.hog > 0 {
		s.hog--
		v += 3 * r.sigma
	}
	if second {
		v += r.order
	}
	if isNew {
		v += r.effect
	}
	return v
}

// next returns the next round's difference, log(new/old).
func (s *simStream) next() float64 {
	nf := s.newFirst == (s.rounds%2 == 0)
	s.rounds++
	a := s.run(nf, false)
	b := s.run(!nf, true)
	if nf {
		return a - b
	}
	return b - a
}

// simRowState is one simulated row while its sweep runs.
type simRowState struct {
	s              *simStream
	diffs          []float64
	verdict        string
	looked, lastAt int
	starved        bool
}

// simSweep runs the sequential rule on a simulated sweep as Rounds.Run
// runs it: the rows judged together at each look (Holm's step-down), their
// rounds taken from a budget of budget rounds in all (0: none), row after
// row when the next look's rounds do not all fit, the first pair of a row
// whatever the budget, and a row the budget stopped between looks judged
// once more at the rounds it ran. It returns each row's verdict
// (inconclusive when undecided) and the rounds all rows ran.
func simSweep(rng *rand.Rand, rows []simRow, d Design, budget int) (verdicts []string, total int) {
	d.Rows = len(rows)
	looks := d.LookRounds()
	st := make([]*simRowState, len(rows))
	for i, r := range rows {
		st[i] = &simRowState{s: r.stream(rng)}
	}
	open := Open{Slower: d.Rows, Faster: d.Rows}
	left := budget
	judge := func(at []*simRowState, look func(*simRowState) (int, int)) {
		open = stepDown(open, len(at), func(i int, open Open) string {
			x := at[i]
			k, n := look(x)
			x.looked, x.lastAt, x.verdict = k, n, ""
			if v := newWalsh(x.diffs[:n]).verdict(d.lookLevels(k, n, open), pctToLog, d); v != report.VerdictInconclusive {
				x.verdict = v
			}
			return x.verdict
		})
	}
	for li, target := range looks {
		var at []*simRowState
		for _, x := range st {
			for x.verdict == "" && !x.starved && len(x.diffs) < target {
				n := min(2, target-len(x.diffs))
				if budget > 0 && len(x.diffs) >= 2 && n > left {
					x.starved = true
					break
				}
				for range n {
					x.diffs = append(x.diffs, x.s.next())
				}
				left -= n
			}
			if x.verdict == "" && len(x.diffs) >= target {
				at = append(at, x)
			}
		}
		judge(at, func(*simRowState) (int, int) { return li + 1, target })
	}
	var extra []*simRowState
	for _, x := range st {
		if x.verdict == "" && x.looked < len(looks) && len(x.diffs) > x.lastAt && len(x.diffs)%2 == 0 {
			extra = append(extra, x)
		}
	}
	judge(extra, func(x *simRowState) (int, int) { return x.looked + 1, len(x.diffs) })
	for _, x := range st {
		v := x.verdict
		if v == "" {
			v = report.VerdictInconclusive
		}
		verdicts = append(verdicts, v)
		total += len(x.diffs)
	}
	return verdicts, total
}

// aaSweep draws an A/A sweep of 15 rows from the simulation's runner
// models: a noise model and scale per row, a drift slope and random walk,
// an order effect.
func aaSweep(rng *rand.Rand, i int) []simRow {
	rows := make([]simRow, 15)
	sigmas := []float64{0.01, 0.05, 0.2, 0.5}
	for j := range rows {
		s := sigmas[(i+j)%len(sigmas)]
		rows[j] = simRow{
			noise: simNoises[(i+j/3)%len(simNoises)], sigma: s,
			slope: rng.NormFloat64() * s / 5, walk: s / 4, order: s / 2,
		}
	}
	return rows
}

// count returns how many of vs are v.
func count(vs []string, v string) int {
	n := 0
	for _, x := range vs {
		if x == v {
			n++
		}
	}
	return n
}

func TestSequentialFalseAlarms(t *testing.T) {
	// 10,000 A/A sweeps of 15 rows, heavy-tailed, drifting, with an
	// intermittent hog, every other one within a budget of 30 rounds a
	// row (rows stopped between looks, judged once more; half of those
	// with the looks planned to the budget): the gate fails
	// (some row slower) in at most FamilyAlpha of them, and some row reads
	// faster in at most FamilyAlpha, each within three standard errors of
	// sampling.
	if testing.Short() {
		t.Skip("10,000 simulated sweeps")
	}
	const sweeps = 10000
	rng := rand.New(rand.NewPCG(9, 10))
	fails, faster, decided, rows := 0, 0, 0, 0
	for i := 0; i < sweeps; i++ {
		d := Design{MinRounds: 5, Gated: true, ThresholdPct: 5, GateMetric: report.GateAvg}
		if i%2 == 1 {
			d.GateMetric = report.GateIOPS
		}
		budget := 0
		if i%4 >= 2 {
			budget = 15 * 30
		}
		if i%4 == 3 {
			d.MaxRounds = int(budgetShare * 30) // looks planned to the budget
		}
		vs, _ := simSweep(rng, aaSweep(rng, i), d, budget)
		if count(vs, report.VerdictSlower) > 0 {
			fails++
		}
		if count(vs, report.VerdictFaster) > 0 {
			faster++
		}
		decided += len(vs) - count(vs, report.VerdictInconclusive)
		rows += len(vs)
	}
	se := func(p float64) float64 { return 3 * math.Sqrt(p*(1-p)/sweeps) }
	failRate, fasterRate := float64(fails)/sweeps, float64(faster)/sweeps
	t.Logf("%d A/A sweeps of 15 rows: %.3f%% fail, %.3f%% read faster somewhere; %.1f%% of rows decided", sweeps, 100*failRate, 100*fasterRate, 100*float64(decided)/float64(rows))
	if failRate > FamilyAlpha+se(FamilyAlpha) {
		t.Errorf("false alarms in %.3f%% of A/A sweeps, bound %.2f%%", 100*failRate, 100*FamilyAlpha)
	}
	if fasterRate > FamilyAlpha+se(FamilyAlpha) {
		t.Errorf("some row faster in %.3f%% of A/A sweeps, bound %.2f%%", 100*fasterRate, 100*FamilyAlpha)
	}
}

// slowSweep returns 15 rows of noise sigma, with effect (a ratio, 1 for
// none) at row i%15 or, when all, at every row.
func slowSweep(rng *rand.Rand, i int, sigma, effect float64, all bool) []simRow {
	rows := make([]simRow, 15)
	for j := range rows {
		rows[j] = simRow{noise: simNoises[(i+j)%len(simNoises)], sigma: sigma,
			slope: rng.NormFloat64() * sigma / 5, walk: sigma / 4, order: sigma / 2}
		if all || j == i%15 {
			rows[j].effect = math.Log(effect)
		}
	}
	return rows
}

func TestSequentialPower(t *testing.T) {
	// A slowdown at one depth of a 15-depth sweep, on a runner whose
	// per-run noise is sigma (log scale, with drift, order effect and the
	// intermittent hog), gated at 5%: a 25% one fails at least 95% of the
	// time, a 10% one at least 80%, when sigma is 5%; the log shows how
	// the power falls with wider noise.
	if testing.Short() {
		t.Skip("simulated sweeps")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	const sweeps = 400
	for _, sigma := range []float64{0.02, 0.05, 0.1, 0.2} {
		for _, effect := range []float64{1.10, 1.25} {
			fails, total := 0, 0
			for i := 0; i < sweeps; i++ {
				d := Design{MinRounds: 5, Gated: true, ThresholdPct: 5, GateMetric: report.GateAvg}
				vs, n := simSweep(rng, slowSweep(rng, i, sigma, effect, false), d, 0)
				total += n
				if count(vs, report.VerdictSlower) > 0 {
					fails++
				}
			}
			power := float64(fails) / sweeps
			t.Logf("sigma %.2f, %+.0f%% at one depth of 15: fails %.1f%%, %.1f rounds a row", sigma, (effect-1)*100, 100*power, float64(total)/sweeps/15)
			want := map[float64]float64{1.10: 0.80, 1.25: 0.95}[effect]
			if sigma <= 0.05 && power < want {
				t.Errorf("%s", fmt.Sprintf("sigma %.2f, %+.0f%%: power %.3f below %.2f", sigma, (effect-1)*100, power, want))
			}
		}
	}
}

func TestSequentialMisses(t *testing.T) {
	// A row truly slower by 5% (the threshold itself), 10% or 25% reads
	// the same, a miss, in at most EquivalenceBeta of rows at 5% (the
	// rule's bound, within three standard errors) and far less beyond:
	// every row of 15 slowed, at every noise scale, with a budget and
	// without.
	if testing.Short() {
		t.Skip("simulated sweeps")
	}
	rng := rand.New(rand.NewPCG(13, 14))
	const sweeps = 200
	for _, effect := range []float64{1.05, 1.10, 1.25} {
		for _, sigma := range []float64{0.02, 0.05, 0.1, 0.2} {
			same, slower, rows := 0, 0, 0
			for i := 0; i < sweeps; i++ {
				d := Design{MinRounds: 5, Gated: true, ThresholdPct: 5, GateMetric: report.GateAvg}
				budget := 0
				if i%2 == 1 {
					budget = 15 * 30
				}
				vs, _ := simSweep(rng, slowSweep(rng, i, sigma, effect, true), d, budget)
				same += count(vs, report.VerdictSame)
				slower += count(vs, report.VerdictSlower)
				rows += len(vs)
			}
			rate := float64(same) / float64(rows)
			t.Logf("%+.0f%% slower, sigma %.2f: %.2f%% of rows read the same, %.1f%% slower", (effect-1)*100, sigma, 100*rate, 100*float64(slower)/float64(rows))
			bound := EquivalenceBeta
			if effect > 1.05 {
				bound = EquivalenceBeta / 5
			}
			if rate > bound+3*math.Sqrt(bound*(1-bound)/float64(rows)) {
				t.Errorf("%+.0f%% slower, sigma %.2f: %.2f%% of rows read the same, bound %.2f%%", (effect-1)*100, sigma, 100*rate, 100*bound)
			}
		}
	}
}

// bonferroniSpending spends alpha in equal shares at the looks of d,
// each look at its share (Bonferroni over the looks): the rule before
// error spending, for comparison.
func bonferroniSpending(d Design) Spending {
	looks := d.LookRounds()
	last := float64(looks[len(looks)-1])
	return Spending{Name: "Bonferroni", plain: true, spend: func(alpha, t float64) float64 {
		k := 0
		for _, n := range looks {
			if float64(n)/last <= t+1e-12 {
				k++
			}
		}
		return alpha * float64(k) / float64(len(looks))
	}}
}

func TestSpendingChoice(t *testing.T) {
	// The spending functions on unchanged sweeps of 3 rows (the depths
	// 1, 64 and 1024 of the operating characteristics) at noise scales
	// 5% and 10%, with no budget and with a budget of 40 rounds a
	// row: the share of rows decided (the same), the rounds they took,
	// and the power against a 10% slowdown at one row. DefaultSpending
	// must decide at least as many unchanged rows as Bonferroni over the
	// looks, with as much power.
	if testing.Short() {
		t.Skip("simulated sweeps")
	}
	d := Design{Rows: 3, MinRounds: 5, Gated: true, ThresholdPct: 5, GateMetric: report.GateAvg}
	const sweeps = 400
	decided := map[string]int{}
	power := map[string]int{}
	for _, sp := range []Spending{bonferroniSpending(d), PocockSpending, OBrienFlemingSpending} {
		d.Spending = sp
		for _, budget := range []int{0, 3 * 40} {
			for _, sigma := range []float64{0.05, 0.1} {
				rng := rand.New(rand.NewPCG(15, 16))
				same, rows, rounds, fails := 0, 0, 0, 0
				for i := range sweeps {
					rs := slowSweep(rng, i, sigma, 1, false)[:3]
					vs, n := simSweep(rng, rs, d, budget)
					same += count(vs, report.VerdictSame)
					rows += len(vs)
					rounds += n
					rs = slowSweep(rng, i, sigma, 1.10, true)[:3]
					rs[1].effect, rs[2].effect = 0, 0
					if vs, _ := simSweep(rng, rs, d, budget); count(vs, report.VerdictSlower) > 0 {
						fails++
					}
				}
				decided[sp.Name] += same
				power[sp.Name] += fails
				t.Logf("%-26s budget %3d, sigma %.2f: A/A rows the same %5.1f%% (%.0f rounds a row); +10%% at one row fails %5.1f%%",
					sp.Name, budget, sigma, 100*float64(same)/float64(rows), float64(rounds)/float64(rows), 100*float64(fails)/sweeps)
			}
		}
	}
	if b, p := "Bonferroni", DefaultSpending.Name; decided[p] < decided[b] || power[p] < power[b]*95/100 {
		t.Errorf("%s decides %d rows and fails %d slowed sweeps, Bonferroni %d and %d", p, decided[p], power[p], decided[b], power[b])
	}
}
