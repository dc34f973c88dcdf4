package cmd

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/run"
)

// TestCompareSweepE2E runs --compare --sweep iodepth=1..64 for real on a
// tmpfs scratch file and checks every output: the JSON (fio's jobs, both
// policies at every depth, the gofio_compare rows), the CSV, the SVG
// (valid per xmllint), the --json-dir files named {rw}-{iodepth}-{numjobs}
// and the sides named by value throughout.
func TestCompareSweepE2E(t *testing.T) {
	scr := scratchDir(t)
	job := writeJob(t, scr, "sweep.fio", "[sweep]\nioengine=io_uring\nrw=randread\nbs=4k\nsize=8m\ntime_based\nruntime=10s\n")
	csvPath := filepath.Join(scr, "cmp.csv")
	svgPath := filepath.Join(scr, "cmp.svg")
	jsonDir := filepath.Join(scr, "points")
	code, out, errs := runCmd(t, "--compare", "--sweep", "iodepth=1..64", "--set", "runtime=300ms",
		"--set", "filename="+filepath.Join(scr, "data"), "--output-format=json",
		"--compare-csv="+csvPath, "--plot="+svgPath, "--json-dir="+jsonDir, job)
	if code != ExitOK {
		t.Fatalf("exit %d\nstderr: %s", code, errs)
	}
	depths := []string{"1", "2", "4", "8", "16", "32", "64"}

	// JSON: one fio job per run, each with its depth and policy in its
	// "job options" (the --set overrides come last, so the last value of
	// a repeated key is the one in force, as encoding/json keeps it).
	doc := decodeJSON(t, "stdout", []byte(out))
	ran := map[string]bool{}
	for _, j := range jsonJobs(t, doc) {
		opts, _ := j["job options"].(map[string]any)
		ran[fmt.Sprintf("%v/%v", opts["iodepth"], opts["tw_priority"])] = true
		if n := num(t, j, "read", "total_ios"); n <= 0 {
			t.Errorf("job %v ran no I/O", opts)
		}
	}
	for _, d := range depths {
		for _, p := range []string{"1", "0"} {
			if !ran[d+"/"+p] {
				t.Errorf("no job ran with iodepth=%s tw_priority=%s; ran %v", d, p, ran)
			}
		}
	}
	if len(ran) != 2*len(depths) {
		t.Errorf("jobs ran with %d iodepth/tw_priority pairs, want %d: %v", len(ran), 2*len(depths), ran)
	}
	cmp, ok := doc[report.CompareJSONKey].(map[string]any)
	if !ok {
		t.Fatalf("no %q key in the JSON", report.CompareJSONKey)
	}
	rows, _ := cmp["rows"].([]any)
	if len(rows) != len(depths) {
		t.Fatalf("%d comparison rows, want %d", len(rows), len(depths))
	}
	for i, r := range rows {
		row := r.(map[string]any)
		if row["value"] != depths[i] {
			t.Errorf("row %d is iodepth %v, want %s", i, row["value"], depths[i])
		}
		for side, name := range map[string]string{"new": "priority", "old": "fifo"} {
			if s, ok := row[side].(map[string]any); !ok || num(t, s, "repeats") != 1 || num(t, s, "avg_lat_us_mean") <= 0 || s["name"] != name {
				t.Errorf("row %s: side %s (%s) did not run: %v", depths[i], side, name, row[side])
			}
		}
		// One repeat a side: the statistics say so rather than guess; a
		// row whose two policies ran the same schedule is no result.
		want := report.VerdictTooFew
		if row["same_schedule"] == true {
			want = report.VerdictNoResult
		}
		if st, ok := row["stats"].(map[string]any); !ok || st["verdict"] != want || row["verdict"] != want {
			t.Errorf("row %s: verdict %v, stats %v, want verdict %q", depths[i], row["verdict"], row["stats"], want)
		}
	}
	if o, _ := cmp["old"].(map[string]any); o["key"] != "tw_priority" || o["value"] != "0" || o["name"] != "fifo" {
		t.Errorf("old side %v, want fifo (tw_priority=0)", cmp["old"])
	}

	// CSV: a header and one record per depth.
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatalf("%s: %v", csvPath, err)
	}
	if len(records) != 1+len(depths) {
		t.Errorf("%s has %d records, want a header and %d rows", csvPath, len(records), len(depths))
	}

	// SVG: well-formed XML.
	svg, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "<svg") {
		t.Errorf("%s is not an SVG:\n%.200s", svgPath, svg)
	}
	if xmllint, err := exec.LookPath("xmllint"); err != nil {
		t.Log("SKIP part: xmllint is not installed; the SVG was not validated")
	} else if msg, err := exec.Command(xmllint, "--noout", svgPath).CombinedOutput(); err != nil {
		t.Errorf("xmllint --noout %s: %v\n%s", svgPath, err, msg)
	}

	// --json-dir: one fio JSON per point and policy, named for fio-plot.
	for _, p := range []string{report.PolicyPriority, report.PolicyFIFO} {
		for _, d := range depths {
			path := filepath.Join(jsonDir, p, "randread-"+d+"-1.json")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Error(err)
				continue
			}
			jobs := jsonJobs(t, decodeJSON(t, path, data))
			opts, _ := jobs[0]["job options"].(map[string]any)
			// fio-plot keeps a file only if its job options hold rw,
			// iodepth and numjobs; this job file sets no numjobs.
			if len(jobs) != 1 || opts["iodepth"] != d || opts["numjobs"] != "1" || opts["rw"] != "randread" {
				t.Errorf("%s: %d jobs, job options %v; want 1 job with rw=randread iodepth=%s numjobs=1", path, len(jobs), opts, d)
			}
		}
	}
	if names := listDir(t, jsonDir); len(names) != 2+2*len(depths) {
		t.Errorf("--json-dir holds %v, want 2 policy directories of %d files", names, len(depths))
	}
}

// fakeEngine returns a run core stand-in that runs nothing: every job
// "completes" 1000 reads at a fixed latency, prioUs with tw_priority=1
// and fifoUs with tw_priority=0, so the comparison's outcome is known.
func fakeEngine(prioUs, fifoUs uint64) func(context.Context, []*jobfile.Job, run.Options) (*report.Result, error) {
	return func(_ context.Context, jobs []*jobfile.Job, opts run.Options) (*report.Result, error) {
		res := &report.Result{Version: opts.Version, Start: time.Unix(1700000000, 0)}
		for _, j := range jobs {
			lat, policy := fifoUs*1000, report.PolicyFIFO
			if j.TWPriority {
				lat, policy = prioUs*1000, report.PolicyPriority
			}
			res.Jobs = append(res.Jobs, fakeJobResult(j, uint64(lat), policy))
		}
		return res, nil
	}
}

// TestFailIfSlowerGate checks --fail-if-slower's exit code through the
// State.RunCore seam, with latencies chosen so the outcome is known: with
// five repeats, priority twice as slow as the baseline (every repeat, so
// p = 2/252 and the interval is [+100%, +100%]) must trip any threshold
// below +100% and pass any above; priority faster never trips, nor do two
// equal sides.
func TestFailIfSlowerGate(t *testing.T) {
	tests := []struct {
		name           string
		compare        string
		prioUs, fifoUs uint64
		pct, repeat    string
		code           int
		stderr         string
	}{
		// +100% at every depth: beyond 5%, and beyond noise.
		{"slower trips", "--compare", 200, 100, "5", "5", ExitSlower,
			"priority (tw_priority=1) slower than fifo (tw_priority=0) by more than 5% beyond noise (avg: the 99% family-wise bound beyond no change and the estimate beyond 5%) at iodepth=1 (+100.00% [+100.00%, +100.00%] after 12 rounds), iodepth=8 (+100.00%"},
		// +100% is within a 150% allowance.
		{"slower within threshold", "--compare", 200, 100, "150", "5", ExitOK, ""},
		// Priority faster: never a failure, even at 0%.
		{"faster passes", "--compare", 100, 200, "0", "5", ExitOK, ""},
		// An A/A comparison: both sides run tw_priority=1, nothing differs.
		{"equal sides pass", "--compare=tw_priority=1,1", 200, 100, "0", "5", ExitOK, ""},
		// The sides swapped by value: fifo is new and faster.
		{"swapped sides", "--compare=tw_priority=0,1", 200, 100, "0", "5", ExitOK, ""},
		// Too few repeats for the test: the rule runs as many rounds as
		// its first look needs (12 for two rows).
		{"three repeats raised", "--compare", 200, 100, "5", "3", ExitSlower, "after 12 rounds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCmdWith(t, fakeEngine(tt.prioUs, tt.fifoUs), tt.compare, "--sweep", "iodepth=1,8", "--output-format=compare",
				"--repeat", tt.repeat, "--fail-if-slower="+tt.pct, "--name=gate", "--ioengine=null", "--size=1m")
			if code != tt.code || !strings.Contains(errs, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want %d with %q", code, errs, tt.code, tt.stderr)
			}
			if code == ExitBadInput {
				if out != "" {
					t.Errorf("refused command printed %q", out)
				}
				return
			}
			if !strings.Contains(out, "verdict") || !strings.Contains(out, "new = ") {
				t.Errorf("no comparison table on stdout:\n%s", out)
			}
		})
	}
}

// TestBadSweepNoIO checks that a bad --sweep list, or a swept value the
// job rejects, exits 1 with a clear error before anything runs: the run
// core is never called and no file is created.
func TestBadSweepNoIO(t *testing.T) {
	called := false
	core := func(context.Context, []*jobfile.Job, run.Options) (*report.Result, error) {
		called = true
		return nil, fmt.Errorf("the run core must not be called")
	}
	scr := scratchDir(t)
	file := filepath.Join(scr, "data")
	tests := []struct {
		name   string
		sweep  string
		stderr string // substring of the error
	}{
		{"reversed range", "iodepth=64..1", "iodepth=64..1"},
		{"not a number", "iodepth=1,x,8", `"x"`},
		{"empty element", "iodepth=1,,8", "iodepth=1,,8"},
		{"zero depth", "iodepth=0,8", "iodepth"},
		{"unknown key", "iodepht=1,8", "iodepht"},
		{"no list", "iodepth=", "KEY=LIST"},
		// Valid grammar, but the second point is above the ring maximum:
		// every point is parsed before the first runs.
		{"point out of range", "iodepth=1,65536", "iodepth=65536: iodepth above the io_uring maximum"},
		{"fraction", "bs=4k,1.5k", `value "1.5k" is not a number`},
		// Valid grammar, but bs=1000 is not aligned for direct=1.
		{"unaligned point", "bs=4k,1000", "bs=1000: with direct=1 the read block size must be a multiple of 512"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCmdWith(t, core, "--compare", "--sweep", tt.sweep, "--output-format=json",
				"--name=sw", "--ioengine=io_uring", "--rw=randread", "--direct=1", "--size=1m", "--filename="+file)
			t.Logf("--sweep %s: %s", tt.sweep, strings.TrimSpace(errs))
			if code != ExitBadInput || !strings.Contains(errs, tt.stderr) {
				t.Errorf("--sweep %s: exit %d, stderr %q; want %d with %q", tt.sweep, code, errs, ExitBadInput, tt.stderr)
			}
			if out != "" {
				t.Errorf("--sweep %s: stdout %q, want nothing", tt.sweep, out)
			}
		})
	}
	if called {
		t.Error("a bad sweep reached the run core")
	}
	if names := listDir(t, scr); len(names) != 0 {
		t.Errorf("bad sweeps created %v", names)
	}
}

// TestTaskRunModesE2E runs the kernel's four task-run modes over two
// depths from one command (--sweep taskrun_mode) on a tmpfs scratch file:
// every row of the comparison ran the ring the mode names, the kernel's
// SQPOLL thread included (not gofio's goroutine), and the text table
// names the mode of each row.
func TestTaskRunModesE2E(t *testing.T) {
	scr := scratchDir(t)
	job := writeJob(t, scr, "modes.fio", "[modes]\nioengine=io_uring\nrw=randread\nbs=4k\nsize=4m\ntime_based\nruntime=10s\n")
	csvPath := filepath.Join(scr, "modes.csv")
	modes := []string{"none", "coop", "defer", "sqpoll"}
	code, out, errs := runCmd(t, "--sweep", "iodepth=1,8", "--sweep", "taskrun_mode="+strings.Join(modes, ","),
		"--set", "runtime=100ms", "--set", "filename="+filepath.Join(scr, "data"), "--output-format=json",
		"--compare-csv="+csvPath, job)
	if code != ExitOK {
		t.Fatalf("exit %d\nstderr: %s", code, errs)
	}
	doc := decodeJSON(t, "stdout", []byte(out))
	cmp, ok := doc[report.CompareJSONKey].(map[string]any)
	if !ok {
		t.Fatalf("no %q key in the JSON", report.CompareJSONKey)
	}
	rows, _ := cmp["rows"].([]any)
	if len(rows) != 2*len(modes) {
		t.Fatalf("%d rows, want %d", len(rows), 2*len(modes))
	}
	for i, r := range rows {
		row := r.(map[string]any)
		want := modes[i%len(modes)]
		s, _ := row["new"].(map[string]any)
		if s == nil || s["taskrun"] != want || num(t, s, "avg_lat_us_mean") <= 0 {
			t.Errorf("row %v ran taskrun %v, want %s: %v", row["value"], s["taskrun"], want, s)
		}
	}
	// The CSV carries each row's mode too.
	data, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
	if err != nil || len(records) != 1+2*len(modes) {
		t.Fatalf("%s: %d records, %v", csvPath, len(records), err)
	}
	col := -1
	for i, h := range records[0] {
		if h == "new_taskrun" {
			col = i
		}
	}
	for i, rec := range records[1:] {
		if col < 0 || rec[col] != modes[i%len(modes)] || rec[1] != modes[i%len(modes)] {
			t.Errorf("csv row %d: %v, want taskrun %s", i, rec, modes[i%len(modes)])
		}
	}
}

// fakeJobResult is the result a stand-in run core gives for job j: 1000
// 4 KiB reads in one second, each lat ns long, under policy.
func fakeJobResult(j *jobfile.Job, lat uint64, policy string) *report.JobResult {
	jr := &report.JobResult{Job: j, Name: j.Name, Members: 1, Policy: policy, Elapsed: time.Second}
	d := &jr.Dirs[jobfile.DirRead]
	for range 1000 {
		d.Lat.Add(lat)
		d.Clat.Add(lat)
		d.LatHist.Add(lat)
		d.ClatHist.Add(lat)
	}
	d.TotalIOs, d.IOBytes, d.Runtime = 1000, 1000*4096, time.Second
	// The policies order the completions differently: priority's tw wait
	// is shorter, so a comparison of the two is no same schedule.
	tw := uint64(5000)
	if policy == report.PolicyPriority {
		tw = 1000
	}
	jr.TWWait.Add(tw)
	return jr
}
