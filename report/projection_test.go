package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// undecidedFixture is cmpFixture judged as a gated comparison in rounds
// that ended inconclusive: depth 4096 undecided with a projection of 580
// rounds to read the same (120 at twice the threshold), 2.1s a round;
// depth 16384 undecided with its estimate at the threshold (none; 300
// rounds at twice it), 3s a round. Each row ran 5 rounds but the last,
// whose old side ran 1. The looks were planned to the budget of 900s: 600
// rounds a row at most.
func undecidedFixture() *Comparison {
	c := pairedFixture()
	c.Design.Looks, c.Design.RoundsCap = []int{16, 32, 64, 128, 256, 600}, 2000
	verdicts := []string{VerdictNoResult, VerdictSame, VerdictSame, VerdictFaster, VerdictInconclusive, VerdictInconclusive}
	for i := range c.Rows {
		c.Rows[i].Verdict = verdicts[i]
		c.Rows[i].Stats.Verdict = verdicts[i]
	}
	c.Rows[4].Stats.Projection = &Projection{Rounds: 580, Decision: VerdictSame, Rounds2x: 120, Decision2x: VerdictSame, RoundSD: 0.15, RoundSeconds: 2.1}
	c.Rows[5].Stats.Projection = &Projection{Rounds2x: 300, Decision2x: VerdictSame, RoundSD: 0.4, RoundSeconds: 3}
	c.Verdict = GateInconclusive
	return c
}

func TestDecideBudget(t *testing.T) {
	c := undecidedFixture()
	b := c.DecideBudget(false)
	want := DecideBudget{ThresholdPct: 5, Undecided: 2, Within: 1, Never: 1, MoreRounds: 575, MoreSeconds: 575 * 2.1,
		WidestRow: "iodepth=4096", WidestRounds: 580, BudgetSeconds: 812.4 + 575*2.1, PlanSeconds: 900 * 580 / 600.0}
	if !reflect.DeepEqual(b, want) {
		t.Errorf("at 5%%: %+v, want %+v", b, want)
	}
	b = c.DecideBudget(true)
	want = DecideBudget{ThresholdPct: 10, Undecided: 2, Within: 2, MoreRounds: 115 + 299, MoreSeconds: 115*2.1 + 299*3,
		WidestRow: "iodepth=16384", WidestRounds: 300, BudgetSeconds: 812.4 + 115*2.1 + 299*3, PlanSeconds: 900 * 300 / 600.0}
	if !reflect.DeepEqual(b, want) {
		t.Errorf("at 10%%: %+v, want %+v", b, want)
	}
	// Looks planned to 100 rounds a row in 900s reach 580 only in 5220s:
	// that is the budget, more than the time the rounds take.
	c.Design.Looks = []int{16, 24, 36, 54, 82, 100}
	if b := c.DecideBudget(false); b.PlanSeconds != 5220 || b.BudgetSeconds != 5220 {
		t.Errorf("looks planned to 100 rounds: %+v, want a budget of 5220s", b)
	}
	if got, want := DecideNote(c), "--budget 1h27m (the looks give a row its share of the budget: iodepth=4096 needs 580 rounds)"; !strings.Contains(got, want) {
		t.Errorf("note %q lacks %q", got, want)
	}
	c.Design.Looks = []int{16, 32, 64, 128, 256, 600}
	// Beyond the rounds a row can run, a row is out of a budget's reach.
	c.Design.RoundsCap = 500
	if b := c.DecideBudget(false); b.Within != 0 || b.Beyond != 1 || b.BeyondRounds != 580 || b.Never != 1 || b.MoreRounds != 0 || b.BudgetSeconds != 812.4 {
		t.Errorf("rounds cap 500: %+v", b)
	}
}

func TestDecideNote(t *testing.T) {
	c := undecidedFixture()
	want := "at the spread measured, of the 2 undecided rows, 1 sits at ±5%, where no number of rounds decides it; " +
		"deciding the other one needs about 580 more rounds (about 20m): --budget 34m; " +
		"or --fail-if-slower 10: about 410 more rounds (about 19m), --budget 33m"
	if got := DecideNote(c); got != want {
		t.Errorf("note\n%s\nwant\n%s", got, want)
	}
	c.Rows[5].Stats.Projection = &Projection{Rounds: 1000, Decision: VerdictSlower, Rounds2x: 40, Decision2x: VerdictSame, RoundSeconds: 3}
	want = "at the spread measured, deciding the 2 undecided rows needs about 1600 more rounds (about 1h10m), iodepth=16384 to read slower: --budget 1h24m; " +
		"or --fail-if-slower 10: about 150 more rounds (about 6m), --budget 20m"
	if got := DecideNote(c); got != want {
		t.Errorf("note\n%s\nwant\n%s", got, want)
	}
	c.Design.RoundsCap = 100
	want = "at the spread measured, of the 2 undecided rows, 2 need up to about 1000 rounds, more than the 100 a row can run here; " +
		"--fail-if-slower 10 brings none within reach"
	c.Rows[4].Stats.Projection.Rounds2x, c.Rows[5].Stats.Projection.Rounds2x = 0, 0
	if got := DecideNote(c); got != want {
		t.Errorf("note\n%s\nwant\n%s", got, want)
	}
	c.Rows[5].Verdict = VerdictSame
	want = "at the spread measured, the undecided row needs about 580 rounds, more than the 100 a row can run here; " +
		"--fail-if-slower 10 brings none within reach"
	if got := DecideNote(c); got != want {
		t.Errorf("note\n%s\nwant\n%s", got, want)
	}
	if got := DecideNote(pairedFixture()); got != "" {
		t.Errorf("a failed comparison's row without a projection: note %q, want none", got)
	}
}

// TestProjectionWriters checks that every format carries the
// projections: the table's rounds to decide column and note, the
// Markdown note, the JUnit message, the CSV's rounds_to_decide and
// projected_verdict, and the JSON's per-row fields and the comparison's
// budget_to_decide_s.
func TestProjectionWriters(t *testing.T) {
	c := undecidedFixture()
	var table, md, csvb, junit, js bytes.Buffer
	for _, err := range []error{WriteCompareTable(&table, c), WriteCompareMarkdown(&md, c, 5), WriteCompareCSV(&csvb, c),
		WriteJUnit(&junit, []*Comparison{c}, []float64{5}), WriteCompareJSON(&js, c)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	note := DecideNote(c)
	for _, want := range []string{"rounds to decide", "~580 same", "  ∞", "\n" + note + "\n"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	if !strings.Contains(md.String(), "rows undecided (--fail-if-slower 5). At the spread measured, of the 2 undecided rows") ||
		!strings.Contains(md.String(), "| rounds to decide |") {
		t.Errorf("markdown lacks the note or the column:\n%s", md.String())
	}
	for _, want := range []string{"after 5 rounds, neither beyond nor within 5%; about 580 rounds in all would read it same at the spread measured",
		"its estimate sits at ±5%, where no number of rounds decides it", "rounds to decide: ~580 same"} {
		if !strings.Contains(junit.String(), want) {
			t.Errorf("junit lacks %q:\n%s", want, junit.String())
		}
	}
	lines := strings.Split(strings.TrimSpace(csvb.String()), "\n")
	if !strings.Contains(lines[0], ",no_result_reason,rounds_to_decide,projected_verdict,") ||
		!strings.Contains(lines[5], ",580,same,") || !strings.Contains(lines[6], ",,,") {
		t.Errorf("csv:\n%s", csvb.String())
	}
	var doc struct {
		C ComparisonJSON `json:"gofio_compare"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if b := doc.C.BudgetToDecideS; b != nil || len(doc.C.DecideProjection) != 2 {
		t.Fatalf("json: budget_to_decide_s %v with a row at the threshold, projection %+v", b, doc.C.DecideProjection)
	}
	if d := doc.C.DecideProjection; d[0].Within != 1 || d[0].Never != 1 || d[0].MoreRounds != 575 || d[0].BudgetS != 2019.9 ||
		d[1].ThresholdPct != 10 || d[1].Within != 2 || d[1].MoreRounds != 414 || d[1].BudgetS != 1950.9 || doc.C.Design.RoundsCap != 2000 {
		t.Errorf("json decide_projection %+v, rounds_cap %d", d, doc.C.Design.RoundsCap)
	}
	r4, r5 := doc.C.Rows[4].Stats, doc.C.Rows[5].Stats
	if r4.RoundsToDecide == nil || *r4.RoundsToDecide != 580 || r4.ProjectedVerdict != VerdictSame || *r4.RoundsToDecide2x != 120 ||
		*r4.RoundSD != 0.15 || *r4.RoundS != 2.1 {
		t.Errorf("json row 4096 stats %+v", r4)
	}
	if r5.RoundsToDecide != nil || r5.ProjectedVerdict != "" || *r5.RoundsToDecide2x != 300 || *r5.RoundS != 3 {
		t.Errorf("json row 16384 stats %+v: want no rounds_to_decide, 300 at twice", r5)
	}
	if doc.C.Rows[1].Stats.RoundSD != nil || strings.Contains(js.String(), `"rounds_to_decide": null`) {
		t.Errorf("json: a decided row carries a projection")
	}
	// With every undecided row within reach, the budget is given.
	c.Rows[5].Stats.Projection.Rounds, c.Rows[5].Stats.Projection.Decision = 40, VerdictSame
	if b := CompareJSON(c).BudgetToDecideS; b == nil || *b != cmpRound(812.4+575*2.1+39*3, 1) {
		t.Errorf("budget_to_decide_s %v, want %.1f", b, 812.4+575*2.1+39*3)
	}
}
