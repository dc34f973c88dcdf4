package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

func TestWriteCompareMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCompareMarkdown(&b, cmpFixture(), 5); err != nil {
		t.Fatal(err)
	}
	cmpGolden(t, "compare_table.md", b.Bytes())
	out := b.String()
	rows := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| ") {
			rows++
			if n := strings.Count(strings.ReplaceAll(l, "\\|", ""), "|"); n != len(cmpHeader(cmpFixture()))+1 {
				t.Errorf("line %q has %d cell borders, want %d", l, n, len(cmpHeader(cmpFixture()))+1)
			}
		}
	}
	if want := 2 + len(cmpFixture().Rows); rows != want { // header, rule, rows
		t.Errorf("%d table lines, want %d", rows, want)
	}
	for _, want := range []string{"**8** ❌", "**16** ❌", "**slower**", "2 of 6 rows slower by more than 5%",
		"new = priority (tw\\_priority=1), old = fifo (tw\\_priority=0)"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// Without a gate nothing is marked failed.
	b.Reset()
	if err := WriteCompareMarkdown(&b, cmpFixture(), -1); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "❌") || strings.Contains(b.String(), "--fail-if-slower") {
		t.Errorf("ungated markdown marks rows:\n%s", b.String())
	}
}

// junitDoc is the part of a JUnit report the tests read.
type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Skipped  int `xml:"skipped,attr"`
	Suites   []struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, b []byte) junitDoc {
	t.Helper()
	var doc junitDoc
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b)
	}
	return doc
}

func TestWriteJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, []*Comparison{cmpFixture()}, []float64{12}); err != nil {
		t.Fatal(err)
	}
	cmpGolden(t, "compare_junit.xml", b.Bytes())
	// At 12% no row fails: the slower rows' intervals, [+10.1%, +13.6%]
	// and [+11.2%, +14.4%], both reach below 12 although depth 16's Δ is
	// +12.66%. The row with one old repeat and the row that ran the same
	// schedule (no result) are skipped.
	doc := readJUnit(t, b.Bytes())
	if len(doc.Suites) != 1 || doc.Tests != 6 || doc.Failures != 0 || doc.Skipped != 2 {
		t.Errorf("suites %d tests %d failures %d skipped %d, want 1 6 0 2", len(doc.Suites), doc.Tests, doc.Failures, doc.Skipped)
	}
	// At 10% depths 8 and 16 fail, with their numbers; a second,
	// ungated comparison adds a suite that fails nothing.
	b.Reset()
	if err := WriteJUnit(&b, []*Comparison{cmpFixture(), cmpFixture()}, []float64{10, -1}); err != nil {
		t.Fatal(err)
	}
	doc = readJUnit(t, b.Bytes())
	if len(doc.Suites) != 2 || doc.Failures != 2 || doc.Suites[1].Failures != 0 || doc.Tests != 12 {
		t.Fatalf("suites %d failures %d (second %d) tests %d, want 2 2 0 12", len(doc.Suites), doc.Failures, doc.Suites[1].Failures, doc.Tests)
	}
	for _, c := range doc.Suites[0].Cases {
		if c.Failure == nil {
			continue
		}
		if c.Name != "iodepth=8" && c.Name != "iodepth=16" {
			t.Errorf("%s failed", c.Name)
		}
		for _, want := range []string{"priority (tw_priority=1) slower than fifo (tw_priority=0)", "CI [+", "p=0.0079", "beyond 10%"} {
			if !strings.Contains(c.Failure.Message, want) {
				t.Errorf("%s: failure message %q lacks %q", c.Name, c.Failure.Message, want)
			}
		}
		if !strings.Contains(c.Failure.Body, "verdict: slower") || !strings.Contains(c.Failure.Body, "old p99:") {
			t.Errorf("%s: failure body lacks the numbers:\n%s", c.Name, c.Failure.Body)
		}
	}
}

// TestCmpCellsSmallP checks that a p-value below 0.001 reads "<0.001"
// rather than a rounded 0.000.
func TestCmpCellsSmallP(t *testing.T) {
	c := cmpFixture()
	c.Rows[1].Stats.P, c.Rows[1].Stats.PAdj = 0.0002, 0.0002
	if got := cmpCells(c, &c.Rows[1])[5]; got != "<0.001" {
		t.Errorf("p cell %q, want <0.001", got)
	}
}
