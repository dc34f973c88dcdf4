package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// This file writes a comparison in the formats CI benchmark tools read:
// Go's benchmark format (benchstat, golang.org/x/perf/benchfmt),
// github-action-benchmark's customSmallerIsBetter JSON and Bencher's
// Metric Format (BMF) JSON. Each names a benchmark per row and side the
// same way (BenchName).

// BenchConfig is what the benchmark formats say about the run besides its
// figures: Go benchmark file configuration lines, in order ("cpu",
// "kernel", ...).
type BenchConfig [][2]string

// BenchName names one row and side of c as the benchmark formats do:
// "gofio/rw=randread/bs=4k/iodepth=64/tw_priority=1" (in the Go benchmark
// format "BenchmarkGofio/rw=randread/..."), each swept key with
// the row's value and, under --compare, the compared key with the side's
// value (under a diff, run=new or run=old); a title field that is swept or
// compared is left out.
func BenchName(c *Comparison, r *ComparisonRow, side *SideSpec) string {
	parts := []string{"gofio"}
	for _, kv := range [][2]string{{"rw", c.RW}, {"bs", c.BS}} {
		if kv[1] != "" && kv[1] != "swept" && kv[1] != "compared" && !slices.Contains(c.Keys, kv[0]) && side.Key != kv[0] {
			parts = append(parts, kv[0]+"="+kv[1])
		}
	}
	keys := c.Keys
	if len(keys) == 0 && c.Key != "" {
		keys = strings.Split(c.Key, ",")
	}
	for i, k := range keys {
		v := r.Value
		if i < len(r.Values) {
			v = r.Values[i]
		}
		parts = append(parts, k+"="+v)
	}
	if c.Compared {
		switch {
		case side.Key == DiffSideKey:
			parts = append(parts, "run="+side.Name)
		case side.Key != "" && !slices.Contains(keys, side.Key):
			parts = append(parts, side.Key+"="+side.Value)
		}
	}
	return strings.Join(parts, "/")
}

// benchSide is one benchmark of the formats: a row's side that ran.
type benchSide struct {
	name string
	side *ComparisonSide
}

// benchSides lists c's benchmarks in row order, new side before old.
func benchSides(c *Comparison) []benchSide {
	var out []benchSide
	for i := range c.Rows {
		r := &c.Rows[i]
		for _, s := range []struct {
			spec *SideSpec
			side *ComparisonSide
		}{{&c.New, &r.New}, {&c.Old, &r.Old}} {
			if s.side.Ran() {
				out = append(out, benchSide{BenchName(c, r, s.spec), s.side})
			}
		}
	}
	return out
}

// The units of the Go benchmark format lines: the per-I/O average and
// 99th-percentile latency (benchstat tidies ns to seconds) and IOPS.
const (
	BenchUnitAvg  = "avg-ns/io"
	BenchUnitP99  = "p99-ns/io"
	BenchUnitIOPS = "io/s"
)

// WriteBenchfmt writes c in the Go benchmark format that benchstat reads:
// the configuration lines, unit metadata (IOPS is better higher; every
// unit assumes nothing, as benchstat's default), and one result line per
// repeat of every row and side, "Benchmark" and BenchName, the repeat's
// I/O count as the iterations, then its average and 99th-percentile
// latency in ns per I/O and its IOPS. benchstat then gives each benchmark's
// median and interval over the repeats; `benchstat -col /tw_priority
// run.txt` compares the sides.
func WriteBenchfmt(w io.Writer, c *Comparison, cfg BenchConfig) error {
	var b strings.Builder
	for _, kv := range cfg {
		if !benchKeyOK(kv[0]) || strings.ContainsAny(kv[1], "\n") {
			return fmt.Errorf("benchfmt: bad configuration %q: %q", kv[0], kv[1])
		}
		if kv[1] != "" {
			fmt.Fprintf(&b, "%s: %s\n", kv[0], kv[1])
		}
	}
	fmt.Fprintf(&b, "Unit %s better=lower\nUnit %s better=lower\nUnit %s better=higher\n", BenchUnitAvg, BenchUnitP99, BenchUnitIOPS)
	for _, bs := range benchSides(c) {
		name := "BenchmarkGofio" + strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return '_'
			}
			return r
		}, strings.TrimPrefix(bs.name, "gofio"))
		for _, rep := range bs.side.Repeats {
			fmt.Fprintf(&b, "%s %d %s %s %s %s %s %s\n", name, max(rep.IOs, 1),
				benchNum(rep.AvgLatUs*1000), BenchUnitAvg, benchNum(rep.P99Us*1000), BenchUnitP99, benchNum(rep.IOPS), BenchUnitIOPS)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// benchKeyOK reports whether k is a valid Go benchmark configuration key:
// it starts with a lower-case letter and has no space or upper-case
// letter.
func benchKeyOK(k string) bool {
	for i, r := range k {
		if i == 0 && !unicode.IsLower(r) || unicode.IsSpace(r) || unicode.IsUpper(r) {
			return false
		}
	}
	return k != ""
}

// benchNum formats a figure for the benchmark formats: up to six
// significant digits.
func benchNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// ghBench is one entry of github-action-benchmark's custom JSON.
type ghBench struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
	Range string  `json:"range,omitempty"`
	Extra string  `json:"extra,omitempty"`
}

// WriteGitHubBenchmark writes c as github-action-benchmark's
// customSmallerIsBetter JSON (tool: 'customSmallerIsBetter'): an array of
// {name, unit, value, range, extra}, two per row and side, its average
// and its 99th-percentile latency in µs (smaller is better), each the
// median over the repeats with "± half their range" and, in extra, the
// repeats and the IOPS.
func WriteGitHubBenchmark(w io.Writer, c *Comparison) error {
	out := []ghBench{}
	for _, bs := range benchSides(c) {
		extra := fmt.Sprintf("%d repeats; IOPS median %s", len(bs.side.Repeats), benchNum(sideMedian(bs.side, GateIOPS)))
		for _, m := range []struct{ what, metric string }{{"avg latency", GateAvg}, {"p99 latency", GateP99}} {
			vals := bs.side.Values(m.metric)
			lo, hi := slices.Min(vals), slices.Max(vals)
			out = append(out, ghBench{Name: bs.name + " " + m.what, Unit: "us", Value: roundSig(sideMedian(bs.side, m.metric)),
				Range: "± " + benchNum(roundSig((hi-lo)/2)), Extra: extra})
		}
	}
	return writeIndentedJSON(w, out, "github-action-benchmark")
}

// bmfMetric is one measure of a Bencher benchmark.
type bmfMetric struct {
	Value      float64 `json:"value"`
	LowerValue float64 `json:"lower_value"`
	UpperValue float64 `json:"upper_value"`
}

// WriteBencherBMF writes c as Bencher Metric Format JSON: an object keyed
// by benchmark name (BenchName), each with the built-in measures latency
// (the average latency in ns, Bencher's unit for it) and throughput (IOPS,
// operations per second) and the measure p99-latency (ns), each the median
// over the repeats with their least and greatest as lower_value and
// upper_value.
func WriteBencherBMF(w io.Writer, c *Comparison) error {
	out := map[string]map[string]bmfMetric{}
	for _, bs := range benchSides(c) {
		m := map[string]bmfMetric{}
		for _, f := range []struct {
			measure, metric string
			scale           float64
		}{{"latency", GateAvg, 1000}, {"throughput", GateIOPS, 1}, {"p99-latency", GateP99, 1000}} {
			vals := bs.side.Values(f.metric)
			m[f.measure] = bmfMetric{Value: roundSig(sideMedian(bs.side, f.metric) * f.scale),
				LowerValue: roundSig(slices.Min(vals) * f.scale), UpperValue: roundSig(slices.Max(vals) * f.scale)}
		}
		out[bs.name] = m
	}
	return writeIndentedJSON(w, out, "bencher")
}

// roundSig rounds v to six significant digits (0 for NaN or infinity).
func roundSig(v float64) float64 {
	f, _ := strconv.ParseFloat(benchNum(v), 64)
	return f
}

// writeIndentedJSON writes v as indented JSON and a newline.
func writeIndentedJSON(w io.Writer, v any, what string) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s json: %w", what, err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
