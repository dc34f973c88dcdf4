package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// The chart of --plot is written by hand rather than with gonum.org/v1/plot:
// it is one fixed layout of two panels, lines and bars, about 300 lines of
// code with no new dependency, where gonum/plot would add a module tree
// (fonts, image libraries) to go.mod, and its SVG backend embeds fonts and
// floating-point text whose bytes are not stable enough for a golden test.
// Every coordinate here is printed with two decimals, so the same
// Comparison always gives the same bytes.

// Chart geometry, in SVG user units.
const (
	svgW, svgH            = 860, 660
	svgDashTW             = "2 3"       // tw wait lines
	svgLeft, svgRight     = 80.0, 690.0 // plot area, x
	svgTop, svgBottom     = 70.0, 380.0 // latency panel, y
	svgDTop, svgDBottom   = 420.0, 530.0
	svgLegendX            = 710.0
	svgColorNew           = "#1f77b4"
	svgColorOld           = "#d62728"
	svgColorKernel        = "#2ca02c" // the kernel's own SQPOLL reference
	svgDashKernel         = "1 3"
	svgDash               = "7 4"
	svgBarBeyond          = "#404040"
	svgBarNoise           = "#c8c8c8"
	svgGrid, svgGridMinor = "#d0d0d0", "#ececec"
)

// WriteSVG draws the comparison as an SVG chart: the average latency
// against the swept key (log2 x axis when the values are positive numbers,
// evenly spaced otherwise; log10 y axis), the new side solid and the old
// one dashed, each with its p99 as a thin line of the same style (medians
// of the per-repeat figures), and below it a strip of Δ% bars of the gate
// metric with their confidence intervals, greyed out where the verdict is
// not faster or slower. The legend names the sides by their values. The title
// comes from the job (rw, bs, ioengine, sqthread_poll), the footer names
// the gofio version and the kernel. With kernel stages (kernel_stages=1) a
// third panel below shows where the latency goes at each point: one
// stacked bar per row and side, enter, submit, queue, device, tw and reap
// as shares of their sum, the sum in µs above the bar. The output is
// deterministic.
func WriteSVG(w io.Writer, c *Comparison) error {
	var b strings.Builder
	title := cmpTitle(c)
	metric := c.Metric
	if metric == "" {
		metric = "lat"
	}
	rules := svgRuleLines(c)
	extra := 12 * max(0, len(rules)-4) // the footer's lines beyond the four it has room for
	height := svgH + extra
	stages := kstagesMeasuredAny(c)
	if stages {
		height += svgKPanelH
	}
	fmt.Fprintf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	fmt.Fprintf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n",
		svgW, height, svgW, height)
	fmt.Fprintf(&b, "<title>%s</title>\n", svgEsc(title))
	fmt.Fprintf(&b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", svgW, height)
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"28\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">%s</text>\n",
		svgW/2, svgEsc(title))
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"48\" text-anchor=\"middle\" font-size=\"12\">avg %s and p99 against %s; %s</text>\n",
		svgW/2, svgEsc(metric), svgEsc(c.KeyLabel()), svgEsc(cmpSidesLine(c)))

	xs := newSVGX(c)
	ys := newSVGY(c)
	svgLatencyPanel(&b, c, xs, ys, metric)
	svgDeltaPanel(&b, c, xs)
	svgXAxis(&b, c, xs)
	svgLegend(&b, c)

	fmt.Fprintf(&b, "<text x=\"%.2f\" y=\"598\" font-size=\"11\">%s</text>\n", svgLeft, svgEsc(cmpFooter(c)))
	for i, line := range rules {
		fmt.Fprintf(&b, "<text x=\"%.2f\" y=\"%d\" font-size=\"9\" fill=\"#555555\">%s</text>\n",
			svgLeft, 612+12*i, svgEsc(line))
	}
	if stages {
		svgStagesPanel(&b, c, float64(svgH+extra))
	}
	b.WriteString("</svg>\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("svg: %w", err)
	}
	return nil
}

// svgRuleLines are the footer's lines: the statistics rule and the tw
// rule, each cut at its clauses ("; ") into lines of at most 170
// characters.
func svgRuleLines(c *Comparison) []string {
	var lines []string
	for _, rule := range []string{cmpStatsRule(c), TWRule} {
		line := ""
		for _, clause := range strings.Split(rule, "; ") {
			switch {
			case line == "":
				line = clause
			case len(line)+2+len(clause) <= 170:
				line += "; " + clause
			default:
				lines = append(lines, line+";")
				line = clause
			}
		}
		lines = append(lines, line)
	}
	return lines
}

// svgX maps rows to x positions: log2 of Row.X when every X is positive
// and increasing, else the row index.
type svgX struct {
	log2   bool
	lo, hi float64
	n      int
}

func newSVGX(c *Comparison) svgX {
	s := svgX{log2: len(c.Rows) > 0, n: len(c.Rows)}
	for i, r := range c.Rows {
		if r.X <= 0 || i > 0 && r.X <= c.Rows[i-1].X {
			s.log2 = false
		}
	}
	if s.log2 {
		s.lo, s.hi = math.Log2(c.Rows[0].X), math.Log2(c.Rows[len(c.Rows)-1].X)
	} else {
		s.lo, s.hi = 0, float64(len(c.Rows)-1)
	}
	if s.hi <= s.lo {
		s.lo, s.hi = s.lo-1, s.hi+1
	}
	return s
}

// at returns the x coordinate of row i.
func (s svgX) at(c *Comparison, i int) float64 {
	v := float64(i)
	if s.log2 {
		v = math.Log2(c.Rows[i].X)
	}
	pad := (svgRight - svgLeft) * 0.03
	return svgLeft + pad + (v-s.lo)/(s.hi-s.lo)*(svgRight-svgLeft-2*pad)
}

// svgY maps µs to y on a log10 scale spanning whole decades.
type svgY struct{ lo, hi int } // decades: 10^lo .. 10^hi

func newSVGY(c *Comparison) svgY {
	mn, mx := math.Inf(1), math.Inf(-1)
	for i := range c.Rows {
		for _, s := range []*ComparisonSide{&c.Rows[i].New, &c.Rows[i].Old, &c.Rows[i].Kernel} {
			if !s.Ran() {
				continue
			}
			for _, v := range []float64{sideMedian(s, GateAvg), sideMedian(s, GateP99), s.TWWaitUs} {
				if v > 0 {
					mn, mx = math.Min(mn, v), math.Max(mx, v)
				}
			}
		}
	}
	if math.IsInf(mn, 1) {
		return svgY{0, 1}
	}
	y := svgY{int(math.Floor(math.Log10(mn))), int(math.Ceil(math.Log10(mx)))}
	if y.hi <= y.lo {
		y.hi = y.lo + 1
	}
	return y
}

// at returns the y coordinate of v µs (v > 0).
func (s svgY) at(v float64) float64 {
	f := (math.Log10(v) - float64(s.lo)) / float64(s.hi-s.lo)
	return svgBottom - f*(svgBottom-svgTop)
}

// svgLatencyPanel draws the grid, the y axis and the four latency lines.
func svgLatencyPanel(b *strings.Builder, c *Comparison, xs svgX, ys svgY, metric string) {
	b.WriteString("<g id=\"latency\">\n")
	for d := ys.lo; d <= ys.hi; d++ {
		dec := math.Pow(10, float64(d))
		y := ys.at(dec)
		fmt.Fprintf(b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\"/>\n",
			svgLeft, y, svgRight, y, svgGrid)
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%s</text>\n",
			svgLeft-6, y+4, strconv.FormatFloat(dec, 'f', -1, 64))
		if d == ys.hi {
			break
		}
		for _, m := range []float64{2, 5} {
			y := ys.at(m * dec)
			fmt.Fprintf(b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\"/>\n",
				svgLeft, y, svgRight, y, svgGridMinor)
		}
	}
	for i := range c.Rows {
		x := xs.at(c, i)
		fmt.Fprintf(b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\"/>\n",
			x, svgTop, x, svgDBottom, svgGridMinor)
	}
	fmt.Fprintf(b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"#000000\"/>\n",
		svgLeft, svgTop, svgRight-svgLeft, svgBottom-svgTop)
	mid := (svgTop + svgBottom) / 2
	fmt.Fprintf(b, "<text x=\"24\" y=\"%.2f\" text-anchor=\"middle\" transform=\"rotate(-90 24 %.2f)\">avg %s / p99 / tw wait (usec, log10)</text>\n",
		mid, mid, svgEsc(metric))

	type series struct {
		id, color, dash string
		width           float64
		side            func(*ComparisonRow) *ComparisonSide
		val             func(*ComparisonSide) float64
		marker          bool
	}
	newSide := func(r *ComparisonRow) *ComparisonSide { return &r.New }
	oldSide := func(r *ComparisonRow) *ComparisonSide { return &r.Old }
	kernelSide := func(r *ComparisonRow) *ComparisonSide { return &r.Kernel }
	avg := func(s *ComparisonSide) float64 { return sideMedian(s, GateAvg) }
	p99 := func(s *ComparisonSide) float64 { return sideMedian(s, GateP99) }
	tw := func(s *ComparisonSide) float64 { return s.TWWaitUs }
	for _, s := range []series{
		{"new-tw", svgColorNew, svgDashTW, 1.2, newSide, tw, false},
		{"old-tw", svgColorOld, svgDashTW, 1.2, oldSide, tw, false},
		{"new-p99", svgColorNew, "", 0.9, newSide, p99, false},
		{"old-p99", svgColorOld, svgDash, 0.9, oldSide, p99, false},
		{"new-avg", svgColorNew, "", 2.2, newSide, avg, true},
		{"old-avg", svgColorOld, svgDash, 2.2, oldSide, avg, true},
		{"kernel-avg", svgColorKernel, svgDashKernel, 2.2, kernelSide, avg, true},
	} {
		var d strings.Builder
		var pts [][2]float64
		pen := false
		for i := range c.Rows {
			sd := s.side(&c.Rows[i])
			v := s.val(sd)
			if !sd.Ran() || v <= 0 {
				pen = false
				continue
			}
			x, y := xs.at(c, i), ys.at(v)
			cmd := "L"
			if !pen {
				cmd = "M"
			}
			if d.Len() > 0 {
				d.WriteByte(' ')
			}
			fmt.Fprintf(&d, "%s%.2f %.2f", cmd, x, y)
			pen = true
			pts = append(pts, [2]float64{x, y})
		}
		if d.Len() == 0 {
			continue
		}
		dash := ""
		if s.dash != "" {
			dash = fmt.Sprintf(" stroke-dasharray=\"%s\"", s.dash)
		}
		fmt.Fprintf(b, "<path id=\"%s\" d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\"%s/>\n",
			s.id, d.String(), s.color, s.width, dash)
		if s.marker {
			fill := s.color
			if s.dash != "" {
				fill = "#ffffff"
			}
			for _, p := range pts {
				fmt.Fprintf(b, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
					p[0], p[1], fill, s.color)
			}
		}
	}
	b.WriteString("</g>\n")
}

// svgDeltaPanel draws the Δ% strip: one bar per row with its confidence
// interval as a whisker, grey unless the verdict is faster or slower.
func svgDeltaPanel(b *strings.Builder, c *Comparison, xs svgX) {
	lim := svgNiceLimit(c)
	yAt := func(p float64) float64 {
		mid := (svgDTop + svgDBottom) / 2
		return mid - p/lim*(svgDBottom-svgDTop)/2
	}
	b.WriteString("<g id=\"delta\">\n")
	for _, p := range []float64{-lim, 0, lim} {
		y := yAt(p)
		color := svgGrid
		if p == 0 {
			color = "#000000"
		}
		fmt.Fprintf(b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\"/>\n",
			svgLeft, y, svgRight, y, color)
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%s%%</text>\n",
			svgLeft-6, y+4, strconv.FormatFloat(p, 'f', -1, 64))
	}
	fmt.Fprintf(b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"#000000\"/>\n",
		svgLeft, svgDTop, svgRight-svgLeft, svgDBottom-svgDTop)
	mid := (svgDTop + svgDBottom) / 2
	fmt.Fprintf(b, "<text x=\"24\" y=\"%.2f\" text-anchor=\"middle\" transform=\"rotate(-90 24 %.2f)\">Δ %%</text>\n",
		mid, mid)
	fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\" fill=\"#555555\">Δ%% of the median %s, new vs old, with its CI; grey: no evidence (~) or too few repeats</text>\n",
		svgLeft+4, svgDTop-6, svgEsc(c.GateMetricOrDefault()))
	if !c.Compared {
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" fill=\"#909090\">one side (no --compare): nothing to compare</text>\n",
			(svgLeft+svgRight)/2, mid-8)
	}
	width := (svgRight - svgLeft) / float64(max(len(c.Rows), 1)) * 0.5
	width = math.Min(width, 22)
	for i := range c.Rows {
		st := c.Rows[i].Stats
		if st == nil {
			continue
		}
		clamp := func(p float64) float64 { return math.Max(-lim, math.Min(lim, p)) }
		v := clamp(st.DeltaPct)
		x, y0, y1 := xs.at(c, i), yAt(0), yAt(v)
		top, h := math.Min(y0, y1), math.Abs(y1-y0)
		fill, text := svgBarBeyond, "#000000"
		verdict := c.RowVerdict(&c.Rows[i])
		if verdict != VerdictFaster && verdict != VerdictSlower {
			fill, text = svgBarNoise, "#909090"
		}
		fmt.Fprintf(b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
			x-width/2, top, width, h, fill)
		if st.HasInterval() {
			ylo, yhi := yAt(clamp(st.LoPct)), yAt(clamp(st.HiPct))
			fmt.Fprintf(b, "<path d=\"M%.2f %.2f L%.2f %.2f M%.2f %.2f L%.2f %.2f M%.2f %.2f L%.2f %.2f\" stroke=\"#000000\" stroke-width=\"1\"/>\n",
				x, ylo, x, yhi, x-3, ylo, x+3, ylo, x-3, yhi, x+3, yhi)
		}
		ty := top - 3
		if v < 0 {
			ty = top + h + 10
		}
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"9\" fill=\"%s\">%+.1f</text>\n",
			x, ty, text, st.DeltaPct)
		switch verdict {
		case VerdictNoResult, VerdictSame, VerdictInconclusive:
			fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"8\" fill=\"#909090\">%s</text>\n",
				x, svgDTop+10, verdict)
		}
	}
	b.WriteString("</g>\n")
}

// svgNiceLimit returns the Δ strip's half-range: the largest |Δ| (at least
// 5%) rounded up to 1, 2, 2.5 or 5 times a power of ten.
func svgNiceLimit(c *Comparison) float64 {
	m := 5.0
	for _, r := range c.Rows {
		if r.Stats != nil {
			m = math.Max(m, math.Abs(r.Stats.DeltaPct))
		}
	}
	m = math.Min(m, 1000)
	p := math.Pow(10, math.Floor(math.Log10(m)))
	for _, f := range []float64{1, 2, 2.5, 5, 10} {
		if f*p >= m {
			return f * p
		}
	}
	return 10 * p
}

// svgXAxis labels the shared x axis below the Δ strip.
func svgXAxis(b *strings.Builder, c *Comparison, xs svgX) {
	step := max((len(c.Rows)+15)/16, svgLabelStep(c, (svgRight-svgLeft)/float64(max(len(c.Rows), 1))))
	for i := range c.Rows {
		if !svgLabelled(i, len(c.Rows), step) {
			continue
		}
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%s</text>\n",
			xs.at(c, i), svgDBottom+16, svgEsc(c.Rows[i].Value))
	}
	scale := "log2"
	if !xs.log2 {
		scale = "evenly spaced"
	}
	fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"12\">%s (%s)</text>\n",
		(svgLeft+svgRight)/2, svgDBottom+36, svgEsc(c.KeyLabel()), scale)
	if len(c.Rows) == 0 {
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">no data</text>\n",
			(svgLeft+svgRight)/2, (svgTop+svgBottom)/2)
	}
}

// svgLegend explains the line styles and bar shades.
func svgLegend(b *strings.Builder, c *Comparison) {
	b.WriteString("<g id=\"legend\">\n")
	y := svgTop + 10
	type entry struct {
		label, color, dash string
		width              float64
	}
	entries := []entry{
		{"new avg (" + c.New.Name + ")", svgColorNew, "", 2.2},
		{"old avg (" + cmpOr(c.Old.Name) + ")", svgColorOld, svgDash, 2.2},
		{"new p99", svgColorNew, "", 0.9},
		{"old p99", svgColorOld, svgDash, 0.9},
		{"new tw wait", svgColorNew, svgDashTW, 1.2},
		{"old tw wait", svgColorOld, svgDashTW, 1.2},
	}
	if c.HasKernelRef() {
		entries = append(entries, entry{"kernel SQPOLL avg (no model)", svgColorKernel, svgDashKernel, 2.2})
	}
	if !c.Compared {
		// One side: no old lines to tell apart.
		entries = []entry{
			{"avg (" + cmpOr(c.New.Name) + ")", svgColorNew, "", 2.2},
			{"p99", svgColorNew, "", 0.9},
			{"tw wait", svgColorNew, svgDashTW, 1.2},
		}
	}
	for _, e := range entries {
		dash := ""
		if e.dash != "" {
			dash = fmt.Sprintf(" stroke-dasharray=\"%s\"", e.dash)
		}
		fmt.Fprintf(b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"%.1f\"%s/>\n",
			svgLegendX, y, svgLegendX+30, y, e.color, e.width, dash)
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\">%s</text>\n", svgLegendX+36, y+4, svgEsc(e.label))
		y += 20
	}
	y = svgDTop + 10
	for _, e := range []struct{ label, fill string }{
		{"faster/slower", svgBarBeyond},
		{"~, too few or same", svgBarNoise},
	} {
		fmt.Fprintf(b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"14\" height=\"10\" fill=\"%s\"/>\n",
			svgLegendX+8, y-5, e.fill)
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\">%s</text>\n", svgLegendX+36, y+4, e.label)
		y += 20
	}
	b.WriteString("</g>\n")
}

// svgEsc escapes text for XML character data and attributes.
func svgEsc(s string) string {
	return svgEscaper.Replace(s)
}

var svgEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\"", "&quot;", "'", "&apos;")
