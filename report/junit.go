package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteJUnit writes comparisons as a JUnit XML report (--junit FILE): a
// testsuites element holding, for each comparison cs[i] judged against
// gates[i], one testsuite named after its title, one testcase per row named
// "KEY=VALUE", failing where the row is slower by more than gate percent
// beyond noise (RowStats.SlowerBeyond; gate < 0 fails none) with the
// numbers in the failure message and body, and skipped where a side did not
// run or there were too few repeats to decide. CI systems (GitLab, Jenkins,
// GitHub test reporters) show it as a test report.
func WriteJUnit(w io.Writer, cs []*Comparison, gates []float64) error {
	type testsuites struct {
		XMLName  xml.Name    `xml:"testsuites"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Suites   []testsuite `xml:"testsuite"`
	}
	var all testsuites
	for i, c := range cs {
		s := junitSuite(c, gates[i])
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Skipped += s.Skipped
		all.Suites = append(all.Suites, s)
	}
	out, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	if _, err := io.WriteString(w, xml.Header+string(out)+"\n"); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	return nil
}

// junitSuite is one comparison as a testsuite.
func junitSuite(c *Comparison, gate float64) testsuite {
	suite := testsuite{Name: cmpTitle(c) + "; " + cmpSidesLine(c)}
	key := c.Key
	if key == "" {
		key = "iodepth"
	}
	class := "gofio.compare." + strings.ReplaceAll(key, ",", "_")
	for i := range c.Rows {
		r := &c.Rows[i]
		tc := testcase{Name: key + "=" + r.Value, Classname: class, Time: "0"}
		tc.SystemOut = junitNumbers(c, r)
		switch s, v := r.Stats, c.RowVerdict(r); {
		case v == VerdictNoResult:
			tc.Skipped = &skipped{Message: "no result: " + cmpOr(c.RowNoResultReason(r))}
		case s == nil:
			tc.Skipped = &skipped{Message: "no result: a side did not run"}
		case gate >= 0 && v == VerdictSlower && s.SlowerBeyond(gate):
			tc.Failure = &failure{
				Type: "slower",
				Message: fmt.Sprintf("%s slower than %s by %+.2f%% (CI [%+.2f%%, %+.2f%%], p=%.3g), beyond %g%%",
					c.New.Label(), cmpOr(c.Old.Label()), s.DeltaPct, s.LoPct, s.HiPct, s.P, gate),
				Body: tc.SystemOut,
			}
			suite.Failures++
		case v == VerdictTooFew:
			tc.Skipped = &skipped{Message: fmt.Sprintf("too few repeats (%d and %d) for the test to decide", s.NewN, s.OldN)}
		case v == VerdictInconclusive:
			tc.Skipped = &skipped{Message: fmt.Sprintf("inconclusive: %+.2f%% %s after %d rounds, neither beyond nor within %g%%",
				s.DeltaPct, junitInterval(s), s.NewN, c.ThresholdPct)}
			if w := cmpProjectionWords(c, r); w != "" {
				tc.Skipped.Message += "; " + w
			}
		}
		if tc.Skipped != nil {
			suite.Skipped++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suite.Tests = len(suite.Cases)
	return suite
}

// junitInterval is a row's interval as "CI [lo%, hi%]", or "(no
// interval yet)".
func junitInterval(s *RowStats) string {
	if !s.HasInterval() {
		return "(no interval yet)"
	}
	return fmt.Sprintf("CI [%+.2f%%, %+.2f%%]", s.LoPct, s.HiPct)
}

// The JUnit XML elements WriteJUnit writes.
type failure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}
type skipped struct {
	Message string `xml:"message,attr"`
}
type testcase struct {
	Name      string   `xml:"name,attr"`
	Classname string   `xml:"classname,attr"`
	Time      string   `xml:"time,attr"`
	Failure   *failure `xml:"failure,omitempty"`
	Skipped   *skipped `xml:"skipped,omitempty"`
	SystemOut string   `xml:"system-out,omitempty"`
}
type testsuite struct {
	XMLName  xml.Name   `xml:"testsuite"`
	Name     string     `xml:"name,attr"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Skipped  int        `xml:"skipped,attr"`
	Cases    []testcase `xml:"testcase"`
}

// junitNumbers is a row's figures as "key: value" lines.
func junitNumbers(c *Comparison, r *ComparisonRow) string {
	h, cells := cmpHeader(c), cmpCells(c, r)
	var b strings.Builder
	for i := range h {
		fmt.Fprintf(&b, "%s: %s\n", h[i], cells[i])
	}
	if s := r.Stats; s != nil {
		fmt.Fprintf(&b, "repeats: new %d, old %d; alpha %s\n", s.NewN, s.OldN, strconv.FormatFloat(s.Alpha, 'g', -1, 64))
	}
	b.WriteString(junitKStages("new", &r.New))
	b.WriteString(junitKStages("old", &r.Old))
	b.WriteString(junitKLock("new", &r.New))
	b.WriteString(junitKLock("old", &r.Old))
	return b.String()
}
