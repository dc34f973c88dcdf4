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
			if n := strings.Count(strings.ReplaceAll(l, "\\|", ""), "|"); n != 12 {
				t.Errorf("line %q has %d cell borders, want 12", l, n)
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

func TestWriteJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, cmpFixture(), 12); err != nil {
		t.Fatal(err)
	}
	cmpGolden(t, "compare_junit.xml", b.Bytes())
	var suite struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(b.Bytes(), &suite); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	// At 12% no row fails: the slower rows' intervals, [+10.1%, +13.6%]
	// and [+11.2%, +14.4%], both reach below 12 although depth 16's Δ is
	// +12.66%. The row with one old repeat is skipped.
	if suite.Tests != 6 || suite.Failures != 0 || suite.Skipped != 1 {
		t.Errorf("tests %d failures %d skipped %d, want 6 0 1", suite.Tests, suite.Failures, suite.Skipped)
	}
	b.Reset()
	if err := WriteJUnit(&b, cmpFixture(), 10); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b.Bytes(), &suite); err != nil {
		t.Fatal(err)
	}
	if suite.Failures != 2 {
		t.Fatalf("failures %d at 10%%, want 2 (depths 8 and 16)", suite.Failures)
	}
	for _, c := range suite.Cases {
		if c.Failure == nil {
			continue
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
