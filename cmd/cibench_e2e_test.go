package cmd

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// TestCIBenchFilesE2E: a --compare sweep writes the three CI benchmark
// files: the Go benchmark format (read back with benchfmt's reader, one
// result per repeat, the run's CPU and jobs hash as configuration),
// github-action-benchmark's customSmallerIsBetter array and Bencher's
// BMF object, each naming the same benchmarks.
func TestCIBenchFilesE2E(t *testing.T) {
	dir := t.TempDir()
	bf, gh, bm := filepath.Join(dir, "bench.txt"), filepath.Join(dir, "gh.json"), filepath.Join(dir, "bmf.json")
	code, out, errs := runCmdWith(t, fakeEngine(120, 100), "--compare", "--sweep", "iodepth=1,8", "--repeat", "5", "--output-format=compare",
		"--benchfmt", bf, "--github-benchmark", gh, "--bencher", bm, "--name=ci", "--ioengine=null", "--size=1m", "--rw=randread")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	r := benchfmt.NewReader(bytes.NewReader(mustRead(t, bf)), bf)
	names := map[string]int{}
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("%v", rec)
		case *benchfmt.Result:
			names[string(rec.Name.Full())]++
			if rec.GetConfig("jobs-hash") == "" || rec.GetConfig("runner") == "" {
				t.Errorf("%s lacks the jobs hash or runner configuration", rec.Name.Full())
			}
		}
	}
	if len(names) != 4 || names["Gofio/rw=randread/bs=4k/iodepth=8/tw_priority=1"] != 5 {
		t.Errorf("benchmarks %v, want 4 with 5 repeats each", names)
	}
	var ghs []struct {
		Name  string  `json:"name"`
		Unit  string  `json:"unit"`
		Value float64 `json:"value"`
	}
	if err := json.Unmarshal(mustRead(t, gh), &ghs); err != nil || len(ghs) != 8 || ghs[0].Unit != "us" || ghs[0].Value != 120 ||
		!strings.HasPrefix(ghs[0].Name, "gofio/rw=randread/bs=4k/iodepth=1/tw_priority=1 ") {
		t.Errorf("github-benchmark (%v): %+v", err, ghs)
	}
	var bmf map[string]map[string]map[string]float64
	if err := json.Unmarshal(mustRead(t, bm), &bmf); err != nil || len(bmf) != 4 ||
		bmf["gofio/rw=randread/bs=4k/iodepth=1/tw_priority=0"]["latency"]["value"] != 100000 {
		t.Errorf("bencher (%v): %v", err, bmf)
	}
}
