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
// stay where it is and its rounds to keep the spread they showed. It is
// normal-theory scaling of the intervals the row reached (an interval's
// half-width shrinks as 1/√rounds), at the levels the design's last look
// would use: an approximation, about even odds of deciding by then, not a
// promise.
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
	// RoundSD is the standard deviation of one round's difference (the
	// log ratio new/old) that the row's intervals imply.
	RoundSD float64
	// RoundSeconds is the time one of the row's rounds took, on average:
	// both sides and what ran beside them (0: unknown).
	RoundSeconds float64
}

// DecideBudget is what the projections of a gated comparison's undecided
// rows add up to, at one threshold.
type DecideBudget struct {
	ThresholdPct float64
	// Undecided is the rows read inconclusive; Within of them are decided
	// by rounds a row can run (RoundsCap), Beyond need more, Never have no
	// finite projection (the estimate at ± the threshold), NoInterval
	// reached no interval to project from.
	Undecided, Within, Beyond, Never, NoInterval int
	// MoreRounds is the rounds the Within rows need beyond those they
	// ran, summed, and MoreSeconds their time at each row's own time per
	// round.
	MoreRounds  int
	MoreSeconds float64
	// BudgetSeconds is the --budget that covers them: the time the
	// comparison took plus MoreSeconds. It decides every undecided row
	// only when Within is Undecided.
	BudgetSeconds float64
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
		n := p.Rounds
		if twice {
			n = p.Rounds2x
		}
		switch {
		case n == 0:
			b.Never++
		case n > limit:
			b.Beyond++
		default:
			b.Within++
			more := max(0, n-min(len(r.New.Repeats), len(r.Old.Repeats)))
			b.MoreRounds += more
			b.MoreSeconds += float64(more) * p.RoundSeconds
		}
	}
	b.BudgetSeconds += b.MoreSeconds
	return b
}

// DecideNote says in words what the undecided rows of an inconclusive
// comparison need (DecideBudget), for the verdict line and the notes
// under the tables, e.g. "at the spread measured, deciding the 14
// undecided rows needs about 2600 more rounds (about 1h30m): --budget
// 1h45m, or --fail-if-slower 10 (about 500 more rounds, 25m)"; "" when
// no row is undecided or none has a projection.
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
		return fmt.Sprintf("about %s more rounds (about %s)", aboutCount(b.MoreRounds), aboutDuration(b.MoreSeconds))
	}
	switch {
	case b.Within == b.Undecided:
		s += "deciding " + rows + " needs " + need(b) + ": --budget " + budgetArg(b.BudgetSeconds)
	case b.Within > 0:
		s += fmt.Sprintf("of %s, %s; deciding the other %d needs %s: --budget %s",
			rows, outOfReach(c, b), b.Within, need(b), budgetArg(b.BudgetSeconds))
	default:
		s += fmt.Sprintf("of %s, %s", rows, outOfReach(c, b))
	}
	if c.ThresholdPct <= 0 {
		return s
	}
	b2 := c.DecideBudget(true)
	switch {
	case b2.Within == b2.Undecided:
		s += fmt.Sprintf("; or --fail-if-slower %g: %s, --budget %s", b2.ThresholdPct, need(b2), budgetArg(b2.BudgetSeconds))
	case b2.Within > 0:
		s += fmt.Sprintf("; or --fail-if-slower %g: %d of them in %s, --budget %s", b2.ThresholdPct, b2.Within, need(b2), budgetArg(b2.BudgetSeconds))
	default:
		s += fmt.Sprintf("; --fail-if-slower %g brings none within reach", b2.ThresholdPct)
	}
	return s
}

// outOfReach says which undecided rows no --budget decides, and why.
func outOfReach(c *Comparison, b DecideBudget) string {
	var parts []string
	if b.Beyond > 0 {
		parts = append(parts, fmt.Sprintf("%d need more than the %d rounds a row can run", b.Beyond, c.Design.RoundsCap))
	}
	if b.Never > 0 {
		parts = append(parts, fmt.Sprintf("%d sit at ±%g%%, where no number of rounds decides them", b.Never, b.ThresholdPct))
	}
	if b.NoInterval > 0 {
		parts = append(parts, fmt.Sprintf("%d reached no interval to project from", b.NoInterval))
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
