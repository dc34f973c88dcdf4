package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// pairedFixture is cmpFixture judged as a gated comparison in rounds: the
// row verdicts the sequential rule gives (no result for the same
// schedule, slower, slower, faster, same, inconclusive), each row's rounds
// and the design.
func pairedFixture() *Comparison {
	c := cmpFixture()
	c.Paired, c.Gated, c.ThresholdPct, c.FamilyAlpha = true, true, 5, 0.01
	c.Design = &DesignInfo{MinRounds: 16, Looks: []int{16, 24, 36, 54, 82, 124}, IntervalRounds: 15, Budget: 900, Elapsed: 812.4, BudgetSpent: true}
	verdicts := []string{VerdictNoResult, VerdictSlower, VerdictSlower, VerdictFaster, VerdictSame, VerdictInconclusive}
	for i := range c.Rows {
		r := &c.Rows[i]
		r.Verdict = verdicts[i]
		if r.Stats != nil {
			r.Stats.Paired, r.Stats.Verdict, r.Stats.Look = true, verdicts[i], 1
			r.Stats.PAdj = min(1, r.Stats.P*6*6)
			if verdicts[i] == VerdictSlower || verdicts[i] == VerdictFaster {
				r.Stats.PAdj = 0.0044
			}
		}
	}
	c.Verdict = GateFail
	return c
}

func TestPairedComparisonGolden(t *testing.T) {
	c := pairedFixture()
	var b bytes.Buffer
	if err := WriteCompareTable(&b, c); err != nil {
		t.Fatal(err)
	}
	cmpGolden(t, "compare_paired.txt", b.Bytes())
	out := b.String()
	for _, want := range []string{"98% CI", "  rounds  ", "rounds of both sides (ABBA)", "gated at 5% (--fail-if-slower); the 6 rows are judged together, looked at after 16, 24, 36, 54, 82, 124 rounds"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	// Every format says each row's verdict in the same words.
	var md, csvb, junit bytes.Buffer
	if err := WriteCompareMarkdown(&md, c, 5); err != nil {
		t.Fatal(err)
	}
	if err := WriteCompareCSV(&csvb, c); err != nil {
		t.Fatal(err)
	}
	if err := WriteJUnit(&junit, []*Comparison{c}, []float64{5}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		C ComparisonJSON `json:"gofio_compare"`
	}
	var js bytes.Buffer
	if err := WriteCompareJSON(&js, c); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.C.Verdict != GateFail || doc.C.ThresholdPct == nil || *doc.C.ThresholdPct != 5 || !doc.C.Paired || doc.C.Design == nil {
		t.Errorf("json: verdict %q threshold %v paired %v design %v", doc.C.Verdict, doc.C.ThresholdPct, doc.C.Paired, doc.C.Design)
	}
	for i, r := range c.Rows {
		v := c.RowVerdict(&r)
		if doc.C.Rows[i].Verdict != v {
			t.Errorf("row %s: json verdict %q, want %q", r.Value, doc.C.Rows[i].Verdict, v)
		}
		if st := doc.C.Rows[i].Stats; st != nil && st.Verdict != v {
			t.Errorf("row %s: json stats verdict %q, want %q", r.Value, st.Verdict, v)
		}
		for name, text := range map[string]string{"table": out, "markdown": md.String(), "csv": csvb.String(), "junit": junit.String()} {
			if !strings.Contains(text, v) {
				t.Errorf("row %s: %s lacks %q", r.Value, name, v)
			}
		}
	}
	if !strings.Contains(junit.String(), `skipped message="inconclusive: `) || !strings.Contains(junit.String(), `skipped message="no result: same schedule"`) {
		t.Errorf("junit does not skip the inconclusive and the no-result rows:\n%s", junit.String())
	}
}
