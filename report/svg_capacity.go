package report

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// The capacity chart of --capacity-plot: latency against IOPS, the
// picture storage engineers draw by hand. Written by hand as WriteSVG is,
// with every coordinate at two decimals, so the same Capacity gives the
// same bytes.

// Capacity chart geometry, in SVG user units.
const (
	capW, capH          = 860, 600
	capLeft, capRight   = 80.0, 680.0
	capTop, capBottom   = 70.0, 500.0
	capLegendX          = 700.0
	capColorSLO         = "#2ca02c"
	capColorKnee        = "#ff7f0e"
	capDashP50          = "2 3"
	capMarkR, capKneeR  = 3.0, 7.0
	capLabelDy          = -7.0
	capFooterY, capRule = 545, 560
)

// WriteCapacitySVG draws the capacity c of comparison cmp (which names
// the job in the title): p50 and p99 latency (log10 µs) against IOPS
// (linear, from 0), one point per row of the sweep labelled with its
// depth (or rate), each side in its color (the other side of a
// --compare dashed), p99 solid and p50 dotted; the objective as a
// horizontal line at its limit, each side's capacity as a vertical line
// at its IOPS, and its knee circled. The output is deterministic.
func WriteCapacitySVG(w io.Writer, c *Capacity, cmp *Comparison) error {
	var b strings.Builder
	title := "gofio capacity"
	if cmp != nil {
		title = strings.Replace(cmpTitle(cmp), "gofio compare", "gofio capacity", 1)
	}
	fmt.Fprintf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	fmt.Fprintf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n",
		capW, capH, capW, capH)
	fmt.Fprintf(&b, "<title>%s</title>\n", svgEsc(title))
	fmt.Fprintf(&b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", capW, capH)
	head, rest := title, ""
	if i := strings.LastIndex(title[:min(len(title), 90)], ", "); len(title) > 90 && i > 0 {
		head, rest = title[:i], title[i+2:]
	}
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">%s</text>\n", capW/2, svgEsc(head))
	if rest != "" {
		fmt.Fprintf(&b, "<text x=\"%d\" y=\"38\" text-anchor=\"middle\" font-size=\"11\">%s</text>\n", capW/2, svgEsc(rest))
	}
	what := "latency"
	if c.Response {
		what = "response latency (from each I/O's intended time)"
	}
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"54\" text-anchor=\"middle\" font-size=\"12\">p50 and p99 %s against IOPS, one point per %s; objective %s</text>\n",
		capW/2, svgEsc(what), svgEsc(capKeyWord(c)), svgEsc(c.SLO))
	xs, ys := newCapX(c), newCapY(c)
	capAxes(&b, xs, ys)
	sides := c.Sides()
	colors := []string{svgColorNew, svgColorOld}
	for i, s := range sides {
		capCurves(&b, s, xs, ys, colors[i], i > 0)
	}
	capObjective(&b, c, ys)
	for i, s := range sides {
		capMarks(&b, c, s, xs, ys, colors[i])
	}
	capLegend(&b, c, colors)
	footer := "knee: " + KneeMethod
	if cmp != nil {
		footer = cmpFooter(cmp) + "; " + footer
	}
	fmt.Fprintf(&b, "<text x=\"%.2f\" y=\"%d\" font-size=\"10\">%s</text>\n", capLeft, capFooterY, svgEsc(footer))
	fmt.Fprintf(&b, "<text x=\"%.2f\" y=\"%d\" font-size=\"9\" fill=\"#555555\">IOPS: mean of the repeats; p50, p99: of the latency histograms of all repeats merged (fio's bucket midpoints)</text>\n",
		capLeft, capRule)
	b.WriteString("</svg>\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("capacity svg: %w", err)
	}
	return nil
}

// capKeyWord names what one point of the curve is.
func capKeyWord(c *Capacity) string {
	if c.Key == "iodepth" || c.Key == "" {
		return "iodepth"
	}
	return c.Key + " point"
}

// capX maps IOPS to x, linear from 0 to a round maximum.
type capX struct{ hi float64 }

func newCapX(c *Capacity) capX {
	mx := 0.0
	for _, s := range c.Sides() {
		for _, p := range s.Curve {
			mx = math.Max(mx, p.IOPS)
		}
	}
	return capX{hi: capNice(mx * 1.05)}
}

func (x capX) at(v float64) float64 { return capLeft + v/x.hi*(capRight-capLeft) }

// capY maps µs to y on a log10 scale of whole decades.
type capY struct{ lo, hi int }

func newCapY(c *Capacity) capY {
	mn, mx := c.LimitUs, c.LimitUs
	for _, s := range c.Sides() {
		for _, p := range s.Curve {
			for _, v := range []float64{p.P50Us, p.P99Us} {
				if v > 0 {
					mn, mx = math.Min(mn, v), math.Max(mx, v)
				}
			}
		}
	}
	y := capY{lo: int(math.Floor(math.Log10(mn))), hi: int(math.Ceil(math.Log10(mx)))}
	if y.hi <= y.lo {
		y.hi = y.lo + 1
	}
	return y
}

func (y capY) at(us float64) float64 {
	v := math.Log10(math.Max(us, math.Pow(10, float64(y.lo))))
	return capBottom - (v-float64(y.lo))/float64(y.hi-y.lo)*(capBottom-capTop)
}

// capNice rounds v up to 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a
// power of ten.
func capNice(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// capAxes draws the grid and both axes with their labels.
func capAxes(b *strings.Builder, xs capX, ys capY) {
	for d := ys.lo; d <= ys.hi; d++ {
		y := ys.at(math.Pow(10, float64(d)))
		fmt.Fprintf(b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\"/>\n", capLeft, y, capRight, y, svgGrid)
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%s</text>\n", capLeft-6, y+4, svgEsc(svgUs(math.Pow(10, float64(d)))))
	}
	for i := 0; i <= 5; i++ {
		v := xs.hi * float64(i) / 5
		x := xs.at(v)
		fmt.Fprintf(b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\"/>\n", x, capTop, x, capBottom, svgGridMinor)
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%s</text>\n", x, capBottom+16, svgEsc(capIOPS(v)))
	}
	fmt.Fprintf(b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"#000000\"/>\n", capLeft, capTop, capRight-capLeft, capBottom-capTop)
	fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">IOPS</text>\n", (capLeft+capRight)/2, capBottom+34)
	fmt.Fprintf(b, "<text x=\"20\" y=\"%.2f\" text-anchor=\"middle\" transform=\"rotate(-90 20 %.2f)\">latency (usec, log scale)</text>\n",
		(capTop+capBottom)/2, (capTop+capBottom)/2)
}

// capIOPS writes an IOPS tick: "0", "250k", "1.2M".
func capIOPS(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.3g", v)
}

// capCurves draws one side's p99 (solid) and p50 (dotted) curves with a
// mark and a label per point; the other side of a --compare is dashed.
func capCurves(b *strings.Builder, s *CapacitySide, xs capX, ys capY, color string, other bool) {
	for k, lat := range []func(CurvePoint) float64{func(p CurvePoint) float64 { return p.P99Us }, func(p CurvePoint) float64 { return p.P50Us }} {
		var pts []string
		for _, p := range s.Curve {
			pts = append(pts, fmt.Sprintf("%.2f,%.2f", xs.at(p.IOPS), ys.at(lat(p))))
		}
		dash := ""
		switch {
		case k == 1:
			dash = fmt.Sprintf(" stroke-dasharray=\"%s\"", capDashP50)
		case other:
			dash = fmt.Sprintf(" stroke-dasharray=\"%s\"", svgDash)
		}
		fmt.Fprintf(b, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\"%s/>\n", strings.Join(pts, " "), color, 2.0-float64(k)*0.8, dash)
		for _, p := range s.Curve {
			fmt.Fprintf(b, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.1f\" fill=\"%s\"/>\n", xs.at(p.IOPS), ys.at(lat(p)), capMarkR, color)
		}
	}
	for _, p := range s.Curve {
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"9\" fill=\"%s\">%s</text>\n",
			xs.at(p.IOPS), ys.at(p.P99Us)+capLabelDy, color, svgEsc(p.Point))
	}
}

// capObjective draws the objective's limit across the plot.
func capObjective(b *strings.Builder, c *Capacity, ys capY) {
	y := ys.at(c.LimitUs)
	fmt.Fprintf(b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"%s\"/>\n",
		capLeft, y, capRight, y, capColorSLO, svgDash)
	fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" fill=\"%s\">objective %s</text>\n", capRight-4, y-5, capColorSLO, svgEsc(c.SLO))
}

// capMarks draws one side's capacity (a vertical line at its IOPS) and
// circles its knee on the objective's statistic.
func capMarks(b *strings.Builder, c *Capacity, s *CapacitySide, xs capX, ys capY, color string) {
	if s.Met {
		x := xs.at(s.IOPS)
		fmt.Fprintf(b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"1\" stroke-dasharray=\"%s\"/>\n",
			x, capTop, x, capBottom, color, svgDash)
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\" fill=\"%s\" transform=\"rotate(-90 %.2f %.2f)\">capacity %s IOPS</text>\n",
			x-3, capBottom-6, color, x-3, capBottom-6, svgEsc(capIOPS(s.IOPS)))
	}
	if k := s.Knee; k != nil {
		x, y := xs.at(k.IOPS), ys.at(k.LatUs)
		fmt.Fprintf(b, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.1f\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", x, y, capKneeR, capColorKnee)
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\" fill=\"%s\">knee (%s)</text>\n", x+9, y+14, capColorKnee, svgEsc(c.Stat))
	}
}

// capLegend names the sides, the lines and the marks.
func capLegend(b *strings.Builder, c *Capacity, colors []string) {
	y := capTop + 10
	for i, s := range c.Sides() {
		dash := ""
		if i > 0 {
			dash = fmt.Sprintf(" stroke-dasharray=\"%s\"", svgDash)
		}
		fmt.Fprintf(b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"2\"%s/>\n", capLegendX, y, capLegendX+24, y, colors[i], dash)
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\">%s</text>\n", capLegendX+30, y+4, svgEsc(s.Side))
		y += 16
		line := "none met"
		if s.Met {
			line = capIOPS(s.IOPS) + " IOPS"
		}
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\">capacity %s</text>\n", capLegendX+30, y+4, svgEsc(line))
		y += 22
	}
	for _, l := range []struct{ dash, text string }{{"", "p99"}, {capDashP50, "p50"}} {
		dash := ""
		if l.dash != "" {
			dash = fmt.Sprintf(" stroke-dasharray=\"%s\"", l.dash)
		}
		fmt.Fprintf(b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#404040\" stroke-width=\"1.5\"%s/>\n", capLegendX, y, capLegendX+24, y, dash)
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\">%s</text>\n", capLegendX+30, y+4, l.text)
		y += 16
	}
	fmt.Fprintf(b, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.1f\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", capLegendX+12, y, capKneeR, capColorKnee)
	fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\">knee</text>\n", capLegendX+30, y+4)
}
