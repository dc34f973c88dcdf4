package report

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// This file is the data model of --slo (compare/capacity fills it) and
// its text: the capacity of each side of a sweep, the knee of its
// latency-IOPS curve and the curve itself.

// CapacityJSONKey is the top-level JSON key of a run's capacity.
const CapacityJSONKey = "gofio_capacity"

// KneeMethod names how the knee is found, in words the writers print.
const KneeMethod = "Kneedle: where IOPS less latency, both scaled to [0, 1] over the curve, is largest"

// Capacity is what --slo found on a sweep over iodepth or rate: per side,
// the point of highest IOPS whose latency statistic meets the objective,
// the knee and the curve.
type Capacity struct {
	// SLO is the objective as given ("p99<=2ms"); Stat its statistic and
	// LimitUs its limit in µs.
	SLO     string  `json:"slo"`
	Stat    string  `json:"statistic"`
	LimitUs float64 `json:"limit_us"`
	// Key is the swept option the curve runs over: "iodepth",
	// "rate_iops" or "rate".
	Key string `json:"key"`
	// Search says how the points were chosen: "list" (the sweep's),
	// "bisection" (iodepth=auto) or "fractions" (of the maximum rate).
	Search string `json:"search"`
	// MaxRate is, for a sweep of fractions of the maximum rate, the
	// maximum measured, in the swept key's unit (I/Os or bytes a second,
	// every job and direction summed).
	MaxRate float64 `json:"max_rate,omitempty"`
	// CapacitySide is the side under test (the only one without
	// --compare).
	CapacitySide
	// Old is the other side of a --compare, nil without one; ChangePct
	// is new's capacity IOPS against old's, in percent (nil unless both
	// met the objective).
	Old       *CapacitySide `json:"old,omitempty"`
	ChangePct *float64      `json:"change_pct,omitempty"`
	// KneeMethod is KneeMethod.
	KneeMethod string `json:"knee_method"`
	// Gate is --fail-if-capacity-below's verdict; nil without it.
	Gate *CapacityGate `json:"gate,omitempty"`
}

// CapacityGate is the verdict of --fail-if-capacity-below on the side
// under test.
type CapacityGate struct {
	// Below is the flag as given: IOPS ("150k") or a percentage of the
	// reference's capacity ("90%").
	Below string `json:"below"`
	// Reference names what a percentage is of ("the baseline b.json",
	// "the median of 12 runs in hist/"); "" for IOPS. ReferenceIOPS is
	// its capacity (0 where it met no objective) and ReferenceMinIOPS the
	// smallest of a history's (0 for a baseline).
	Reference        string  `json:"reference,omitempty"`
	ReferenceIOPS    float64 `json:"reference_iops,omitempty"`
	ReferenceMinIOPS float64 `json:"reference_min_iops,omitempty"`
	// FloorIOPS is the capacity below which the gate fails.
	FloorIOPS float64 `json:"floor_iops"`
	// Verdict is GatePass or GateFail.
	Verdict string `json:"verdict"`
}

// Words says the gate's verdict in one line.
func (g *CapacityGate) Words(c *Capacity) string {
	have := "none met the objective"
	if c.Met {
		have = fmt.Sprintf("%.0f IOPS", c.IOPS)
	}
	floor := fmt.Sprintf("%.0f IOPS", g.FloorIOPS)
	if g.Reference != "" {
		floor = fmt.Sprintf("%s of %s's %.0f IOPS (%.0f)", g.Below, g.Reference, g.ReferenceIOPS, g.FloorIOPS)
	}
	switch {
	case g.Verdict == GateFail:
		return fmt.Sprintf("FAIL: capacity %s, below %s", have, floor)
	case c.IOPS < g.FloorIOPS:
		return fmt.Sprintf("pass: capacity %s, below %s but within the %.0f IOPS the history has measured", have, floor, g.ReferenceMinIOPS)
	}
	return fmt.Sprintf("pass: capacity %s, not below %s", have, floor)
}

// CapacitySide is the capacity of one side's curve.
type CapacitySide struct {
	Side string `json:"side"`
	// Met says some point met the objective. Point, IODepth, IOPS and
	// ValueUs are then that point's: the highest IOPS that met it. When
	// none did, IODepth and IOPS are 0 and ValueUs is the smallest value
	// measured (BestPoint's).
	Met       bool    `json:"met"`
	Point     string  `json:"point"`
	IODepth   int     `json:"iodepth"`
	IOPS      float64 `json:"iops"`
	ValueUs   float64 `json:"value_us"`
	BestPoint string  `json:"best_point,omitempty"`
	// Response says the latencies are the response latency of an
	// open-loop job (open_loop=1), from each I/O's intended time.
	Response bool          `json:"response_latency,omitempty"`
	Knee     *CapacityKnee `json:"knee"`
	Curve    []CurvePoint  `json:"curve"`
}

// CapacityKnee is the knee of a side's curve of the objective's statistic.
type CapacityKnee struct {
	Point   string  `json:"point"`
	IODepth int     `json:"iodepth"`
	IOPS    float64 `json:"iops"`
	LatUs   float64 `json:"lat_us"`
}

// CurvePoint is one measured point of a side's curve.
type CurvePoint struct {
	Point    string  `json:"point"`
	IODepth  int     `json:"iodepth"`
	RateIOPS float64 `json:"rate_iops,omitempty"`
	IOPS     float64 `json:"iops"`
	AvgUs    float64 `json:"avg_us"`
	P50Us    float64 `json:"p50_us"`
	P90Us    float64 `json:"p90_us"`
	P99Us    float64 `json:"p99_us"`
	P999Us   float64 `json:"p99.9_us"`
	P9999Us  float64 `json:"p99.99_us"`
	Met      bool    `json:"met"`
}

// Sides returns the sides that ran: the one under test, then the other.
func (c *Capacity) Sides() []*CapacitySide {
	if c.Old == nil {
		return []*CapacitySide{&c.CapacitySide}
	}
	return []*CapacitySide{&c.CapacitySide, c.Old}
}

// WriteCapacity writes the capacity's lines: per side "capacity: 8123
// IOPS at iodepth 64 (p99 1.80 ms <= 2 ms)" and its knee, and under
// --compare the change between the sides.
func WriteCapacity(w io.Writer, c *Capacity) error {
	var b strings.Builder
	for _, s := range c.Sides() {
		name := "capacity"
		if c.Old != nil {
			name += " " + s.Side
		}
		fmt.Fprintf(&b, "%s: %s\n", name, c.Line(s))
		if k := s.Knee; k != nil {
			fmt.Fprintf(&b, "%s knee: %.0f IOPS at %s, %s %s (%s)\n", name, k.IOPS, c.pointWords(k.Point, k.IODepth), c.Stat, usText(k.LatUs), KneeMethod)
		}
	}
	if c.ChangePct != nil {
		fmt.Fprintf(&b, "capacity change: %+.1f%% (%s against %s)\n", *c.ChangePct, c.Side, c.Old.Side)
	}
	if c.Gate != nil {
		fmt.Fprintf(&b, "capacity gate: %s\n", c.Gate.Words(c))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("capacity: %w", err)
	}
	return nil
}

// Line says one side's capacity in words: "8123 IOPS at iodepth 64 (p99
// 1.80 ms <= 2 ms)", or why there is none.
func (c *Capacity) Line(s *CapacitySide) string {
	what := ""
	if s.Response {
		what = " response"
	}
	if !s.Met {
		if len(s.Curve) == 0 {
			return "none: no point measured"
		}
		return fmt.Sprintf("none: %s%s above %s at every point (%s at best, at %s)", c.Stat, what, usText(c.LimitUs), usText(s.ValueUs), c.pointWords(s.BestPoint, 0))
	}
	op := "<="
	if !strings.Contains(c.SLO, "<=") {
		op = "<"
	}
	return fmt.Sprintf("%.0f IOPS at %s (%s%s %s %s %s)", s.IOPS, c.pointWords(s.Point, s.IODepth), c.Stat, what, usText(s.ValueUs), op, usText(c.LimitUs))
}

// pointWords names a point of the curve: "iodepth 64", "rate_iops 70%".
func (c *Capacity) pointWords(point string, depth int) string {
	if c.Key == "iodepth" || c.Key == "" {
		if depth > 0 {
			return fmt.Sprintf("iodepth %d", depth)
		}
		return "iodepth " + point
	}
	return c.Key + " " + point
}

// usText writes a latency in µs in the unit that reads best: "850 us",
// "1.80 ms", "2.50 s".
func usText(us float64) string {
	switch {
	case us < 1000:
		return fmt.Sprintf("%.3g us", us)
	case us < 1e6:
		return fmt.Sprintf("%.3g ms", us/1e3)
	}
	return fmt.Sprintf("%.3g s", us/1e6)
}

// changePct returns a's IOPS against b's in percent, nil unless both met
// the objective.
func changePct(a, b *CapacitySide) *float64 {
	if a == nil || b == nil || !a.Met || !b.Met || b.IOPS <= 0 {
		return nil
	}
	v := (a.IOPS - b.IOPS) / b.IOPS * 100
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

// SetChange sets ChangePct from the two sides.
func (c *Capacity) SetChange() { c.ChangePct = changePct(&c.CapacitySide, c.Old) }
