package report

import (
	"fmt"
	"io"
	"strings"
)

// WriteCompareMarkdown writes the comparison as GitHub-flavoured Markdown
// (--output-format=markdown): a heading with the title, a line naming the
// sides by their values and what the figures are, the table with the same
// columns as WriteCompareTable, and the statistics rule. Verdicts of
// slower are bold, and so is a row that fails gate (its Stats.SlowerBeyond
// the --fail-if-slower percentage; gate < 0 marks none). It is meant for
// $GITHUB_STEP_SUMMARY and pull-request comments.
func WriteCompareMarkdown(w io.Writer, c *Comparison, gate float64) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", mdEsc(cmpTitle(c)))
	fmt.Fprintf(&b, "%s; %s\n\n", mdEsc(cmpSidesLine(c)), mdEsc(cmpMetricLine(c)))
	if l := cmpSQLine(c); l != "" {
		fmt.Fprintf(&b, "%s\n\n", mdEsc(l))
	}
	if l := cmpTaskRunLine(c); l != "" {
		fmt.Fprintf(&b, "%s\n\n", mdEsc(l))
	}
	header := cmpHeader(c)
	b.WriteString("| " + strings.Join(mdEscAll(header), " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" ---: |", len(header)) + "\n")
	failed := 0
	for i := range c.Rows {
		r := &c.Rows[i]
		cells := mdEscAll(cmpCells(c, r))
		if v := cmpVerdictColumn(c); v >= 0 && c.RowVerdict(r) == VerdictSlower {
			cells[v] = "**" + cells[v] + "**"
		}
		if gate >= 0 && c.RowVerdict(r) == VerdictSlower && r.Stats.SlowerBeyond(gate) {
			cells[0] = "**" + cells[0] + "** ❌"
			failed++
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\n")
	if c.HasKStages() && !kstagesMeasuredAny(c) {
		fmt.Fprintf(&b, "%s\n\n", mdEsc(cmpKStagesUnavailable(c)))
	} else if c.HasKStages() {
		mdTable(&b, cmpKStagesHeader(c), cmpKStagesRows(c))
	}
	for _, l := range cmpKStageDeltaLines(c) {
		fmt.Fprintf(&b, "- %s\n", mdEsc(l))
	}
	if len(cmpKStageDeltaLines(c)) > 0 {
		b.WriteString("\n")
	}
	writeKLockMarkdown(&b, c)
	if gate >= 0 {
		switch {
		case failed > 0:
			fmt.Fprintf(&b, "**%d of %d rows slower by more than %g%% beyond noise (--fail-if-slower %g).**\n\n", failed, len(c.Rows), gate, gate)
		case c.Verdict == GateInconclusive:
			fmt.Fprintf(&b, "**Inconclusive:** no row slower by more than %g%% beyond noise, but %d of %d rows undecided (--fail-if-slower %g).",
				gate, cmpCount(c, VerdictInconclusive), len(c.Rows), gate)
			if l := DecideNote(c); l != "" {
				b.WriteString(" " + mdEsc(strings.ToUpper(l[:1])+l[1:]) + ".")
			}
			b.WriteString("\n\n")
		default:
			fmt.Fprintf(&b, "No row slower by more than %g%% beyond noise (--fail-if-slower %g).\n\n", gate, gate)
		}
	}
	if l := cmpDriftLine(c); l != "" {
		fmt.Fprintf(&b, "%s\n\n", mdEsc(l))
	}
	rules := append([]string{cmpStatsRule(c), TWRule}, cmpKernelRules(c)...)
	if c.HasKLock() {
		rules = append(rules, KLockRule)
	}
	fmt.Fprintf(&b, "<sub>%s. %s</sub>\n", mdEsc(strings.Join(rules, ". ")), mdEsc(cmpFooter(c)))
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("compare markdown: %w", err)
	}
	return nil
}

// cmpCount returns how many rows read verdict.
func cmpCount(c *Comparison, verdict string) int {
	n := 0
	for i := range c.Rows {
		if c.RowVerdict(&c.Rows[i]) == verdict {
			n++
		}
	}
	return n
}

// mdEsc escapes the characters that would break a table cell or start
// markup: | and the emphasis and link characters.
func mdEsc(s string) string { return mdEscaper.Replace(s) }

var mdEscaper = strings.NewReplacer("|", "\\|", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]", "<", "&lt;", ">", "&gt;", "~", "\\~")

// mdTable writes a right-aligned Markdown table of header and rows, its
// cells escaped, and a blank line after it.
func mdTable(b *strings.Builder, header []string, rows [][]string) {
	b.WriteString("| " + strings.Join(mdEscAll(header), " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" ---: |", len(header)) + "\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(mdEscAll(r), " | ") + " |\n")
	}
	b.WriteString("\n")
}

func mdEscAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = mdEsc(s)
	}
	return out
}
