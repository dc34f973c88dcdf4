package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gofio/gofio/internal/kstage"
)

// The kernel stage panel of the chart, below the other two.
const (
	svgKPanelH           = 300 // added to the chart's height
	svgKTop, svgKBottom  = 50.0, 220.0
	svgKOldOpacity       = "0.55"
	svgKBarFrac          = 0.7 // of a row's slot, for its one or two bars
	svgKBarMax           = 40.0
	svgKLabelMinFraction = 0.08 // a segment this share or more gets its percent printed
	svgKCharW            = 4.5  // width of a character of a bar's 8-unit label
	svgCharW             = 6.0  // width of a character of an 11-unit axis label
)

// svgLabelled reports whether row i of n gets an x axis label: every
// step-th row counted back from the last, so the sweep's end is always
// labelled and no two labels are closer than a step.
func svgLabelled(i, n, step int) bool { return (n-1-i)%step == 0 }

// svgLabelStep is how many rows apart the x axis labels go so that labels
// of about svgCharW a character do not run into each other, rows slot
// units apart.
func svgLabelStep(c *Comparison, slot float64) int {
	longest := 1
	for i := range c.Rows {
		longest = max(longest, len(c.Rows[i].Value))
	}
	return max(1, int(math.Ceil(float64(longest)*svgCharW/slot)))
}

// svgStageColors colors each stage, tw (the kernel's completion task-work
// wait, the patch's subject) in the strongest hue.
// Its type fails to compile when a stage is added at the end without a
// color; TestSVGStageColors fails on one added in between.
var svgStageColors [kstage.NumStages]string = [...]string{kstage.Enter: "#9467bd", kstage.Submit: "#8c564b",
	kstage.Queue: "#e377c2", kstage.Device: "#7f7f7f", kstage.TW: "#ff7f0e", kstage.Reap: "#17becf"}

// svgStagesPanel draws where the latency goes: per row one 100% stacked
// bar per side (new solid, old paler to its right), enter at the bottom
// and reap at the top, each segment its stage's share of the sum of the
// stage means, the sum above the bar where it fits; "n/a" where a side
// was not traced. y0 is the panel's top in the chart.
func svgStagesPanel(b *strings.Builder, c *Comparison, y0 float64) {
	top, bottom := y0+svgKTop, y0+svgKBottom
	b.WriteString("<g id=\"kstages\">\n")
	fmt.Fprintf(b, "<text x=\"%d\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"12\">where the latency goes: kernel stages per %s, share of the joined I/Os' mean lat (the sum above each bar, usec unless ms)</text>\n",
		svgW/2, y0+22, svgEsc(c.KeyLabel()))
	for _, p := range []float64{0, 0.25, 0.5, 0.75, 1} {
		y := bottom - p*(bottom-top)
		fmt.Fprintf(b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\"/>\n", svgLeft, y, svgRight, y, svgGridMinor)
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%s%%</text>\n", svgLeft-6, y+4, strconv.Itoa(int(p*100)))
	}
	fmt.Fprintf(b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"#000000\"/>\n",
		svgLeft, top, svgRight-svgLeft, bottom-top)
	mid := (top + bottom) / 2
	fmt.Fprintf(b, "<text x=\"24\" y=\"%.2f\" text-anchor=\"middle\" transform=\"rotate(-90 24 %.2f)\">share of lat (%%)</text>\n", mid, mid)

	n := max(len(c.Rows), 1)
	slot := (svgRight - svgLeft) / float64(n)
	sides := 1
	if c.Compared {
		sides = 2
	}
	width := math.Min(slot*svgKBarFrac/float64(sides), svgKBarMax)
	step := svgLabelStep(c, slot)
	for i := range c.Rows {
		r := &c.Rows[i]
		center := svgLeft + slot*(float64(i)+0.5)
		for k, sd := range []*ComparisonSide{&r.New, &r.Old}[:sides] {
			x := center - float64(sides)*width/2 + float64(k)*width
			opacity := ""
			if k == 1 {
				opacity = " fill-opacity=\"" + svgKOldOpacity + "\""
			}
			ks := sd.KStages
			if !sd.Ran() || !ks.Measured() {
				fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"8\" fill=\"#909090\">n/a</text>\n",
					x+width/2, bottom-4)
				continue
			}
			y := bottom
			for st := kstage.Stage(0); st < kstage.NumStages; st++ {
				h := kstageShare(ks, int(st)) * (bottom - top)
				if h <= 0 {
					continue
				}
				y -= h
				fmt.Fprintf(b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"%s><title>%s %s %s: %.2f usec</title></rect>\n",
					x, y, width, h, svgStageColors[st], opacity, svgEsc(r.Value), svgEsc(sd.Name), st, ks.MeanUs[st])
				if share := kstageShare(ks, int(st)); share >= svgKLabelMinFraction && width >= 14 {
					fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"8\" fill=\"#ffffff\">%.0f</text>\n",
						x+width/2, y+h/2+3, share*100)
				}
			}
			if sum := svgUs(ks.SumUs()); float64(len(sum))*svgKCharW <= width+2 {
				fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"8\">%s</text>\n",
					x+width/2, top-3, sum)
			}
		}
		if svgLabelled(i, len(c.Rows), step) {
			fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%s</text>\n", center, bottom+14, svgEsc(r.Value))
		}
	}
	fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"12\">%s</text>\n",
		(svgLeft+svgRight)/2, bottom+32, svgEsc(c.KeyLabel()))
	if c.Compared {
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\" fill=\"#555555\">left bar: new (%s), right bar, paler: old (%s)</text>\n",
			svgLeft, bottom+48, svgEsc(c.New.Name), svgEsc(cmpOr(c.Old.Name)))
	}
	y := top + 10
	for st := kstage.NumStages - 1; st >= 0; st-- {
		fmt.Fprintf(b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"14\" height=\"10\" fill=\"%s\"/>\n", svgLegendX+8, y-5, svgStageColors[st])
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\">%s</text>\n", svgLegendX+36, y+4, st)
		y += 18
	}
	w1, w2, _ := strings.Cut(kstagesWords, "; ")
	for i, l := range []string{"stages: " + w1 + ";", w2} {
		fmt.Fprintf(b, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"9\" fill=\"#555555\">%s</text>\n", svgLeft, bottom+62+12*float64(i), svgEsc(l))
	}
	b.WriteString("</g>\n")
}

// kstagesWords is the stages' meaning in one line, for the chart.
const kstagesWords = "enter = gofio's submission to the SQE taken, submit = to the bio queued, queue = to the request issued; " +
	"device = to the device completion, tw = to the CQE posted (the kernel's task-work wait), reap = to gofio's harvest"

// svgUs formats a bar's sum for its label, short enough for a narrow bar:
// µs with one decimal below 100, whole µs below 1000, then ms ("3.7ms",
// "164ms").
func svgUs(v float64) string {
	switch {
	case v < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v < 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v < 10000:
		return strconv.FormatFloat(v/1000, 'f', 1, 64) + "ms"
	}
	return strconv.FormatFloat(v/1000, 'f', 0, 64) + "ms"
}
