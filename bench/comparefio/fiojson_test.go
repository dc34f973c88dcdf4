package main

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

// near reports whether a and b agree to a relative 1e-9.
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// TestParseSampleRealFio checks the sums and derived figures against a
// real fio 3.33 randrw output, read independently as a generic map.
func TestParseSampleRealFio(t *testing.T) {
	raw, err := os.ReadFile("testdata/fio-3.33-randrw.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSample(raw)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	job := doc["jobs"].([]any)[0].(map[string]any)
	var iops, bw, ios, latSum, latN float64
	for _, dir := range []string{"read", "write", "trim"} {
		d := job[dir].(map[string]any)
		iops += d["iops"].(float64)
		bw += d["bw_bytes"].(float64)
		ios += d["total_ios"].(float64)
		lat := d["lat_ns"].(map[string]any)
		latSum += lat["mean"].(float64) * lat["N"].(float64)
		latN += lat["N"].(float64)
	}
	cpu := (job["usr_cpu"].(float64) + job["sys_cpu"].(float64)) / 100 * job["job_runtime"].(float64) * 1e6 / ios
	if s.Version != doc["fio version"] {
		t.Errorf("version %q, want %q", s.Version, doc["fio version"])
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"iops", s.IOPS, iops},
		{"bw_bytes", s.BWBytes, bw},
		{"total_ios", float64(s.TotalIOs), ios},
		{"lat mean", s.LatMeanNs, latSum / latN},
		{"cpu per io", s.CPUPerIONs, cpu},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if len(s.Errors) != 0 || s.DropIOs != 0 || len(s.Extras) != 0 {
		t.Errorf("errors %v drops %d extras %d, want none", s.Errors, s.DropIOs, len(s.Extras))
	}
}

// TestParseSample covers the schema corners with small documents.
func TestParseSample(t *testing.T) {
	for _, c := range []struct {
		name    string
		in      string
		wantErr string
		check   func(Sample) bool
	}{
		// A notice before the document is skipped.
		{"leading notice", `note: something` + "\n" + `{"jobs":[{"read":{"iops":10,"total_ios":20,"lat_ns":{"mean":5,"N":20}},"job_runtime":2000,"usr_cpu":1,"sys_cpu":1}]}`, "",
			func(s Sample) bool { return s.IOPS == 10 && s.LatMeanNs == 5 && near(s.CPUPerIONs, 0.02*2000*1e6/20) }},
		// With lat off, clat stands in for it.
		{"clat fallback", `{"jobs":[{"read":{"total_ios":4,"clat_ns":{"mean":7,"N":4},"lat_ns":{"N":0}}}]}`, "",
			func(s Sample) bool { return s.LatMeanNs == 7 }},
		// Two jobs are summed, latency weighted by N.
		{"two jobs", `{"jobs":[{"read":{"iops":1,"total_ios":1,"lat_ns":{"mean":10,"N":1}}},{"read":{"iops":2,"total_ios":3,"lat_ns":{"mean":30,"N":3}}}]}`, "",
			func(s Sample) bool { return s.IOPS == 3 && s.TotalIOs == 4 && s.LatMeanNs == 25 }},
		// Job errors, drops and gofio extras are kept.
		{"error and extras", `{"jobs":[{"error":5,"read":{"total_ios":1,"drop_ios":2},"gofio":{"dropped_cqes":0}}]}`, "",
			func(s Sample) bool {
				return len(s.Errors) == 1 && s.Errors[0] == 5 && s.DropIOs == 2 && len(s.Extras) == 1
			}},
		// No I/O means no CPU per I/O rather than a division by zero.
		{"no io", `{"jobs":[{"job_runtime":1000,"usr_cpu":50}]}`, "",
			func(s Sample) bool { return s.CPUPerIONs == 0 }},
		{"no json", "fio: engine not found", "no json object", nil},
		{"no jobs", `{"jobs":[]}`, "no jobs", nil},
		{"truncated", `{"jobs":[{"read":`, "decode json", nil},
	} {
		s, err := ParseSample([]byte(c.in))
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !c.check(s) {
			t.Errorf("%s: unexpected sample %+v", c.name, s)
		}
	}
}
