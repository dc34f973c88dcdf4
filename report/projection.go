package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// This file is what an inconclusive gate says about its undecided rows:
// how many rounds each would need to be decided at the spread it showed,
// and what that means for the --budget (docs/ci.md, "Reading
// inconclusive"). compare.JudgeRounds computes each row's Projection.

// Projection is how far a gated row still undecided stands from a
// decision: the rounds in all that would decide it were its estimate to
// stay where it is and the Walsh averages of further rounds to spread as
// those of its rounds did. It is normal-theory scaling of the row's
// signed-rank intervals to more rounds (their half-width shrinks about as
// 1/√rounds), at the levels the design's last look would use: an
// approximation, even odds of a decision at that many rounds, not a
// promise (docs/ci.md, "Reading inconclusive", has how close it came on
// simulated rows).
type Projection struct {
	// Rounds is the rounds in all (those run included) that would decide
	// the row, in whole ABBA pairs; 0 when no number of rounds does: the
	// estimate sits at ± the threshold, where neither the same nor beyond
	// it is open.
	Rounds int
	// Decision is the verdict those rounds would give: VerdictSame,
	// VerdictSlower or VerdictFaster; "" with Rounds 0.
	Decision string
	// Rounds2x and Decision2x are Rounds and Decision at twice the
	// threshold (--fail-if-slower 2T), the other lever.
	Rounds2x   int
	Decision2x string
	// RoundSD is the sample standard deviation of the row's per-round
	// differences (the log ratio new/old): the spread the rounds showed,
	// to read beside the projection.
	RoundSD float64
	// RoundSeconds is the time one of the row's rounds took, on average:
	// both sides and what ran beside them (0: unknown).
	RoundSeconds float64
}

// ProjectionRule says what the rounds to decide column of an undecided
// row holds, for the table's footer.
const ProjectionRule = "rounds to decide: the rounds in all that would decide an undecided row with even odds, " +
	"and the verdict they would give, were its estimate and the spread of its rounds to hold " +
	"(normal-theory scaling of its intervals to the levels of the last look; an approximation); " +
	"∞: the estimate sits at ± the threshold, where no number of rounds decides it"

// DecideBudget is what the projections of a gated comparison's undecided
// rows add up to, at one threshold.
type DecideBudget struct {
	ThresholdPct float64
	// Undecided is the rows read inconclusive; Within of them are decided
	// by rounds a row can run (RoundsCap), Beyond need more, Never have no
	// finite projection (the estimate at ± the threshold), NoInterval
	// reached no interval to project from.
	Undecided, Within, Beyond, Never, NoInterval int
	// BeyondRounds is the most rounds a Beyond row needs.
	BeyondRounds int
	// MoreRounds is the rounds the Within rows need beyond those they
	// ran, summed, and MoreSeconds their time at each row's own time per
	// round.
	MoreRounds  int
	MoreSeconds float64
	// SlowerRows are the Within rows whose rounds would read them slower
	// ("iodepth=2048"): their estimates lie beyond the threshold.
	SlowerRows []string
	// WidestRow is the Within row that needs the most rounds ("" for
	// none), WidestRounds its rounds.
	WidestRow    string
	WidestRounds int
	// BudgetSeconds is the --budget that covers them: the time the
	// comparison took plus MoreSeconds or, when more, PlanSeconds. It
	// decides every undecided row only when Within is Undecided.
	BudgetSeconds float64
	// PlanSeconds is the budget whose looks reach WidestRounds where the
	// looks are planned to the budget (they give a row a share of it, in
	// proportion: DesignInfo.Looks' last at Budget); 0 otherwise.
	PlanSeconds float64
}

// DecideBudget returns the projections of c's undecided rows added up, at
// its threshold or, twice true, at twice it.
func (c *Comparison) DecideBudget(twice bool) DecideBudget {
	b := DecideBudget{ThresholdPct: c.ThresholdPct}
	if twice {
		b.ThresholdPct *= 2
	}
	limit := math.MaxInt
	if c.Design != nil {
		b.BudgetSeconds = c.Design.Elapsed
		if c.Design.RoundsCap > 0 {
			limit = c.Design.RoundsCap
		}
	}
	for i := range c.Rows {
		r := &c.Rows[i]
		if c.RowVerdict(r) != VerdictInconclusive {
			continue
		}
		b.Undecided++
		if r.Stats == nil {
			b.NoInterval++
			continue
		}
		p := r.Stats.Projection
		if p == nil {
			b.NoInterval++
			continue
		}
		n, decision := p.Rounds, p.Decision
		if twice {
			n, decision = p.Rounds2x, p.Decision2x
		}
		switch {
		case n == 0:
			b.Never++
		case n > limit:
			b.Beyond++
			b.BeyondRounds = max(b.BeyondRounds, n)
		default:
			b.Within++
			if decision == VerdictSlower {
				b.SlowerRows = append(b.SlowerRows, cmpOr(c.Key)+"="+r.Value)
			}
			if n > b.WidestRounds {
				b.WidestRow, b.WidestRounds = cmpOr(c.Key)+"="+r.Value, n
			}
			more := max(0, n-min(len(r.New.Repeats), len(r.Old.Repeats)))
			b.MoreRounds += more
			b.MoreSeconds += float64(more) * p.RoundSeconds
		}
	}
	b.BudgetSeconds += b.MoreSeconds
	if d := c.Design; d != nil && d.Budget > 0 && len(d.Looks) > 0 && d.RoundsCap > d.Looks[len(d.Looks)-1] {
		b.PlanSeconds = d.Budget * float64(b.WidestRounds) / float64(d.Looks[len(d.Looks)-1])
		b.BudgetSeconds = math.Max(b.BudgetSeconds, b.PlanSeconds)
	}
	return b
}

// DecideNote says in words what the undecided rows of an inconclusive
// comparison need (DecideBudget), for the verdict line and the notes
// under the tables, e.g. "at the spread measured, deciding the 14
// undecided rows needs about 2600 more rounds (about 1h30m): --budget
// 1h45m; or --fail-if-slower 10: about 700 more rounds (about 25m),
// --budget 40m", naming the rows out of reach, those headed for slower,
// and the row whose rounds set the budget where the looks' plan does; ""
// when no row is undecided or none has a projection.
func DecideNote(c *Comparison) string {
	b := c.DecideBudget(false)
	if b.Undecided == 0 || b.NoInterval == b.Undecided {
		return ""
	}
	rows := "the undecided row"
	if b.Undecided > 1 {
		rows = fmt.Sprintf("the %d undecided rows", b.Undecided)
	}
	s := "at the spread measured, "
	need := func(b DecideBudget) string {
		s := fmt.Sprintf("about %s more rounds (about %s)", aboutCount(b.MoreRounds), aboutDuration(b.MoreSeconds))
		switch n := len(b.SlowerRows); {
		case n == 1:
			s += ", " + b.SlowerRows[0] + " to read slower"
		case n > 1 && n <= 3:
			s += ", " + strings.Join(b.SlowerRows, ", ") + " to read slower"
		case n > 3:
			s += fmt.Sprintf(", %d of them to read slower", n)
		}
		return s
	}
	why := " (the looks give a row its share of the budget: "
	budget := func(b DecideBudget) string {
		s := "--budget " + budgetArg(b.BudgetSeconds)
		if b.PlanSeconds >= b.BudgetSeconds {
			s += fmt.Sprintf("%s%s needs %s rounds)", why, b.WidestRow, aboutCount(b.WidestRounds))
			why = " ("
		}
		return s
	}
	switch {
	case b.Within == b.Undecided:
		s += "deciding " + rows + " needs " + need(b) + ": " + budget(b)
	case b.Within > 0:
		other := "the other one"
		if b.Within > 1 {
			other = fmt.Sprintf("the other %d", b.Within)
		}
		s += fmt.Sprintf("of %s, %s; deciding %s needs %s: %s", rows, outOfReach(c, b), other, need(b), budget(b))
	case b.Undecided == 1:
		s += "the undecided row " + strings.TrimPrefix(outOfReach(c, b), "1 ")
	default:
		s += fmt.Sprintf("of %s, %s", rows, outOfReach(c, b))
	}
	if c.ThresholdPct <= 0 {
		return s
	}
	b2 := c.DecideBudget(true)
	switch {
	case b2.Within == b2.Undecided:
		s += fmt.Sprintf("; or --fail-if-slower %g: %s, %s", b2.ThresholdPct, need(b2), budget(b2))
	case b2.Within > 0:
		s += fmt.Sprintf("; or --fail-if-slower %g: %d of them in %s, %s", b2.ThresholdPct, b2.Within, need(b2), budget(b2))
	default:
		s += fmt.Sprintf("; --fail-if-slower %g brings none within reach", b2.ThresholdPct)
	}
	return s
}

// outOfReach says which undecided rows no --budget decides, and why,
// each reason starting with its count of rows.
func outOfReach(c *Comparison, b DecideBudget) string {
	verb := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.Itoa(n) + " " + many
	}
	var parts []string
	switch {
	case b.Beyond == 1:
		parts = append(parts, fmt.Sprintf("1 needs about %s rounds, more than the %d a row can run here", aboutCount(b.BeyondRounds), c.Design.RoundsCap))
	case b.Beyond > 1:
		parts = append(parts, fmt.Sprintf("%d need up to about %s rounds, more than the %d a row can run here", b.Beyond, aboutCount(b.BeyondRounds), c.Design.RoundsCap))
	}
	if b.Never > 0 {
		them := "them"
		if b.Never == 1 {
			them = "it"
		}
		parts = append(parts, verb(b.Never, "sits", "sit")+fmt.Sprintf(" at ±%g%%, where no number of rounds decides %s", b.ThresholdPct, them))
	}
	if b.NoInterval > 0 {
		parts = append(parts, verb(b.NoInterval, "reached", "reached")+" no interval to project from")
	}
	return strings.Join(parts, ", ")
}

// cmpHasProjection reports whether a row of c is undecided with a
// projection: the tables then give each row's rounds to decide.
func cmpHasProjection(c *Comparison) bool {
	for i := range c.Rows {
		if rowProjection(c, &c.Rows[i]) != nil {
			return true
		}
	}
	return false
}

// cmpProjectionCell is a row's "rounds to decide" cell: "~580 same",
// "∞" where no number of rounds decides it, "-" for a row decided or
// without a projection.
func cmpProjectionCell(c *Comparison, r *ComparisonRow) string {
	switch p := rowProjection(c, r); {
	case p == nil:
		return "-"
	case p.Rounds > 0:
		return "~" + aboutCount(p.Rounds) + " " + p.Decision
	}
	return "∞"
}

// rowProjection returns r's projection when it is undecided, else nil.
func rowProjection(c *Comparison, r *ComparisonRow) *Projection {
	if c.RowVerdict(r) != VerdictInconclusive || r.Stats == nil {
		return nil
	}
	return r.Stats.Projection
}

// aboutCount writes n to two significant figures: 2634 as "2600".
func aboutCount(n int) string {
	if n < 100 {
		return strconv.Itoa(n)
	}
	p := math.Pow(10, math.Floor(math.Log10(float64(n)))-1)
	return strconv.FormatFloat(math.Round(float64(n)/p)*p, 'f', 0, 64)
}

// aboutDuration writes secs as a duration to the precision that means
// something: seconds under a minute, tens of seconds under ten minutes,
// minutes under ten hours, hours beyond.
func aboutDuration(secs float64) string {
	d := time.Duration(secs * float64(time.Second))
	switch {
	case d < time.Minute:
		d = d.Round(time.Second)
	case d < 10*time.Minute:
		d = d.Round(10 * time.Second)
	case d < 10*time.Hour:
		d = d.Round(time.Minute)
	default:
		d = d.Round(time.Hour)
	}
	return trimDuration(d)
}

// budgetArg writes secs as a --budget value: up to the whole minute, at
// least one.
func budgetArg(secs float64) string {
	m := max(1, math.Ceil(secs/60))
	return trimDuration(time.Duration(m) * time.Minute)
}

// trimDuration writes d without trailing zero units: "1h45m", "25m",
// "40s".
func trimDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// projectionJSON fills the projection's fields of a row's JSON statistics
// from p (nil: none).
func projectionJSON(j *RowStatsJSON, p *Projection) {
	if p == nil {
		return
	}
	if p.Rounds > 0 {
		n := p.Rounds
		j.RoundsToDecide, j.ProjectedVerdict = &n, p.Decision
	}
	if p.Rounds2x > 0 {
		n := p.Rounds2x
		j.RoundsToDecide2x, j.ProjectedVerdict2x = &n, p.Decision2x
	}
	sd, secs := cmpRound(p.RoundSD, 4), cmpRound(p.RoundSeconds, 3)
	j.RoundSD, j.RoundS = &sd, &secs
}

// decideJSON returns the JSON of c's DecideBudget at its threshold and at
// twice it, with the --budget that decides every undecided row when one
// does; nothing for a comparison without undecided rows.
func decideJSON(c *Comparison) (*float64, []DecideBudgetJSON) {
	if !c.Gated {
		return nil, nil
	}
	var out []DecideBudgetJSON
	for _, twice := range []bool{false, true} {
		b := c.DecideBudget(twice)
		if b.Undecided == 0 {
			return nil, nil
		}
		out = append(out, DecideBudgetJSON{ThresholdPct: b.ThresholdPct, Undecided: b.Undecided, Within: b.Within, Beyond: b.Beyond, BeyondRounds: b.BeyondRounds,
			Never: b.Never, NoInterval: b.NoInterval, MoreRounds: b.MoreRounds, MoreS: cmpRound(b.MoreSeconds, 1), BudgetS: cmpRound(b.BudgetSeconds, 1),
			WidestRow: b.WidestRow, WidestRounds: b.WidestRounds, PlanS: cmpRound(b.PlanSeconds, 1), SlowerRows: b.SlowerRows})
	}
	if out[0].Within != out[0].Undecided {
		return nil, out
	}
	budget := out[0].BudgetS
	return &budget, out
}

// cmpProjectionWords says what a row's projection is, for the JUnit
// message of an undecided row: "about 580 rounds in all would read it
// same at the spread measured"; "" without one.
func cmpProjectionWords(c *Comparison, r *ComparisonRow) string {
	switch p := rowProjection(c, r); {
	case p == nil:
		return ""
	case p.Rounds > 0:
		return fmt.Sprintf("about %s rounds in all would read it %s at the spread measured", aboutCount(p.Rounds), p.Decision)
	}
	return fmt.Sprintf("its estimate sits at ±%g%%, where no number of rounds decides it", c.ThresholdPct)
}

// csvProjection is a row's rounds_to_decide and projected_verdict cells:
// empty for a row decided, without a projection, or with none finite.
func csvProjection(c *Comparison, r *ComparisonRow) []string {
	if p := rowProjection(c, r); p != nil && p.Rounds > 0 {
		return []string{strconv.Itoa(p.Rounds), p.Decision}
	}
	return []string{"", ""}
}
