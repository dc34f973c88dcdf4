package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// CompareJSONKey is the top-level key under which --output-format=json
// carries the comparison, next to fio's own keys.
const CompareJSONKey = "gofio_compare"

// ComparisonJSON is the JSON shape of a Comparison. Figures are rounded to
// 3 decimals (µs, IOPS) and 2 (percent) so the output is stable.
type ComparisonJSON struct {
	RW        string           `json:"rw"`
	BS        string           `json:"bs"`
	IOEngine  string           `json:"ioengine"`
	SQPoll    string           `json:"sqthread_poll"`
	Version   string           `json:"version"`
	Kernel    string           `json:"kernel"`
	Key       string           `json:"key"`
	Keys      []string         `json:"keys"`
	Metric    string           `json:"metric"`
	Repeat    int              `json:"repeat"`
	Compared  bool             `json:"compared"`
	NoiseRule string           `json:"noise_rule"`
	Rows      []ComparisonRowJ `json:"rows"`
}

// ComparisonRowJ is one row of ComparisonJSON. DeltaPct and WithinNoise are
// null when a side did not run; so is that side.
type ComparisonRowJ struct {
	Value       string          `json:"value"`
	Values      []string        `json:"values"`
	X           float64         `json:"x"`
	DeltaPct    *float64        `json:"delta_pct"`
	WithinNoise *bool           `json:"within_noise"`
	Priority    *ComparisonSide `json:"priority"`
	FIFO        *ComparisonSide `json:"fifo"`
}

// MarshalJSON writes a side with snake_case keys and rounded figures.
func (s ComparisonSide) MarshalJSON() ([]byte, error) {
	type rep struct {
		Repeat   int     `json:"repeat"`
		AvgLatUs float64 `json:"avg_lat_us"`
		P50Us    float64 `json:"p50_us"`
		P99Us    float64 `json:"p99_us"`
		IOPS     float64 `json:"iops"`
		IOs      uint64  `json:"ios"`
	}
	out := struct {
		Policy    string  `json:"policy"`
		Repeats   int     `json:"repeats"`
		AvgLatUs  float64 `json:"avg_lat_us"`
		MinAvgUs  float64 `json:"min_avg_lat_us"`
		MaxAvgUs  float64 `json:"max_avg_lat_us"`
		SpreadPct float64 `json:"spread_pct"`
		P50Us     float64 `json:"p50_us"`
		P99Us     float64 `json:"p99_us"`
		IOPS      float64 `json:"iops"`
		PerRepeat []rep   `json:"per_repeat"`
	}{
		Policy: s.Policy, Repeats: len(s.Repeats),
		AvgLatUs: cmpRound(s.AvgLatUs, 3), MinAvgUs: cmpRound(s.MinAvgUs, 3), MaxAvgUs: cmpRound(s.MaxAvgUs, 3),
		SpreadPct: cmpRound(s.SpreadPct(), 2),
		P50Us:     cmpRound(s.P50Us, 3), P99Us: cmpRound(s.P99Us, 3), IOPS: cmpRound(s.IOPS, 3),
		PerRepeat: make([]rep, len(s.Repeats)),
	}
	for i, r := range s.Repeats {
		out.PerRepeat[i] = rep{r.Repeat, cmpRound(r.AvgLatUs, 3), cmpRound(r.P50Us, 3), cmpRound(r.P99Us, 3),
			cmpRound(r.IOPS, 3), r.IOs}
	}
	return json.Marshal(out)
}

// CompareJSON returns the value to put under CompareJSONKey in the JSON
// output.
func CompareJSON(c *Comparison) *ComparisonJSON {
	keys := c.Keys
	if keys == nil {
		keys = []string{}
	}
	j := &ComparisonJSON{
		RW: c.RW, BS: c.BS, IOEngine: c.Engine, SQPoll: c.SQPoll, Version: c.Version, Kernel: c.Kernel,
		Key: c.Key, Keys: keys, Metric: c.Metric, Repeat: c.Repeat, Compared: c.Compared,
		NoiseRule: NoiseRule,
		Rows:      make([]ComparisonRowJ, len(c.Rows)),
	}
	for i := range c.Rows {
		r := &c.Rows[i]
		values := r.Values
		if values == nil {
			values = []string{}
		}
		rj := ComparisonRowJ{Value: r.Value, Values: values, X: r.X}
		if r.HasDelta {
			d, n := cmpRound(r.DeltaPct, 2), r.Noise
			rj.DeltaPct, rj.WithinNoise = &d, &n
		}
		if r.Priority.Ran() {
			rj.Priority = &r.Priority
		}
		if r.Baseline.Ran() {
			rj.FIFO = &r.Baseline
		}
		j.Rows[i] = rj
	}
	return j
}

// WriteCompareJSON writes {"gofio_compare": ...} alone, indented as fio
// indents its JSON, for --output-format=compare with JSON wanted.
func WriteCompareJSON(w io.Writer, c *Comparison) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(map[string]any{CompareJSONKey: CompareJSON(c)}); err != nil {
		return fmt.Errorf("compare json: %w", err)
	}
	return nil
}

// cmpRound rounds v to prec decimals; NaN and infinities become 0 (JSON has
// no spelling for them).
func cmpRound(v float64, prec int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	p := math.Pow(10, float64(prec))
	return math.Round(v*p) / p
}
