package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/openloop"
	"github.com/gofio/gofio/jobfile"
)

// openLoopResult is synthResult with its first job open-loop: 200 reads
// with response latencies of 1 to 200 ms, 40 of them late.
func openLoopResult() *Result {
	r := synthResult()
	ol := &openloop.Stats{}
	d := &ol.Dirs[jobfile.DirRead]
	for i := uint64(1); i <= 200; i++ {
		d.Response.Add(i * 1000000)
		d.Hist.Add(i * 1000000)
	}
	d.Late = 40
	d.LateBy.Add(3000)
	r.Jobs[0].OpenLoop = ol
	return r
}

// TestOpenLoopNormal: the response lines come in the job's gofio group,
// after fio's block, and say what they measure.
func TestOpenLoopNormal(t *testing.T) {
	var b bytes.Buffer
	if err := WriteNormal(&b, openLoopResult()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"  gofio response: read: lat (usec): min=1000, max=200000, avg=100500.00, stdev=57879.18, from each I/O's intended time (fio's lat: from its start)\n",
		"  gofio response: read: p50=100.14ms, p90=179.31ms, p99=198.18ms, p99.9=200.28ms, p99.99=200.28ms\n",
		"  gofio response: read: late=40 of 20000 I/Os (0.20%): issued after their intended time with every slot busy, 3.0us late on average\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("normal output lacks\n%q\n%s", want, out)
		}
	}
	if strings.Contains(out, "response: write") {
		t.Error("a direction without response samples printed")
	}
	if i, k := strings.Index(out, "gofio response"), strings.Index(out, "  gofio policy "); i < k {
		t.Error("the response lines come before the job's other gofio lines")
	}
}

// TestOpenLoopJSON: response_lat_ns follows lat_ns in lat_ns's shape
// (bins under json+), late_ios after it; a closed-loop job has neither.
func TestOpenLoopJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, openLoopResult(), true); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Jobs []map[string]json.RawMessage `json:"jobs"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var read map[string]any
	if err := json.Unmarshal(doc.Jobs[0]["read"], &read); err != nil {
		t.Fatal(err)
	}
	resp, ok := read["response_lat_ns"].(map[string]any)
	if !ok {
		t.Fatalf("no response_lat_ns in %v", read)
	}
	lat := read["lat_ns"].(map[string]any)
	for k := range lat {
		if _, ok := resp[k]; !ok && k != "percentile" && k != "bins" {
			t.Errorf("response_lat_ns lacks lat_ns's key %q", k)
		}
	}
	if resp["N"].(float64) != 200 || resp["bins"] == nil || resp["percentile"] == nil || read["late_ios"].(float64) != 40 {
		t.Errorf("response_lat_ns %v, late_ios %v", resp, read["late_ios"])
	}
	raw := string(doc.Jobs[0]["read"])
	if strings.Index(raw, `"response_lat_ns"`) < strings.Index(raw, `"lat_ns"`) {
		t.Error("response_lat_ns comes before lat_ns")
	}
	if strings.Contains(string(doc.Jobs[1]["read"]), "response_lat_ns") {
		t.Error("a closed-loop job has response_lat_ns")
	}
}

// TestOpenLoopStateAndMerge: the figures survive gofio merge's exact
// state, and group_reporting adds them.
func TestOpenLoopStateAndMerge(t *testing.T) {
	j := openLoopResult().Jobs[0]
	raw, err := json.Marshal(StateOf(j))
	if err != nil {
		t.Fatal(err)
	}
	var s JobState
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	got, err := JobResultFromState(&s, nil, "j", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.OpenLoop, j.OpenLoop) {
		t.Errorf("state round trip: got %+v", got.OpenLoop.Dirs[0].Response)
	}
	m := MergeGroup([]*JobResult{j, j})
	if d := m.OpenLoop.Dirs[0]; d.Response.N != 400 || d.Late != 80 {
		t.Errorf("merged %d responses, %d late", d.Response.N, d.Late)
	}
	if j.OpenLoop.Dirs[0].Response.N != 200 {
		t.Error("the merge changed a member's figures")
	}
}
