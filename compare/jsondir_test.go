package compare

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// fioPlotImports applies fio-plot's import rule (fio_plot/fiolib/
// jsonimport.py, filter_json_files) to one JSON file: two of its known
// top-level keys, then the first job's "job options" updated with "global
// options" must hold rw, iodepth and numjobs, rw equal to the -r given and
// iodepth and numjobs (as integers) among -d and -n. It returns whether
// the file is kept and the iodepth and numjobs it is filed under.
func fioPlotImports(t *testing.T, data []byte, rw string) (bool, int, int) {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	known := 0
	for _, k := range []string{"fio version", "global options", "client_stats", "jobs"} {
		if _, ok := doc[k]; ok {
			known++
		}
	}
	if known < 2 {
		return false, 0, 0
	}
	jobs, _ := doc["jobs"].([]any)
	if len(jobs) == 0 {
		return false, 0, 0
	}
	opts := map[string]any{}
	if jo, ok := jobs[0].(map[string]any)["job options"].(map[string]any); ok {
		for k, v := range jo {
			opts[k] = v
		}
	}
	if g, ok := doc["global options"].(map[string]any); ok {
		for k, v := range g {
			opts[k] = v
		}
	}
	for _, k := range []string{"rw", "iodepth", "numjobs"} {
		if _, ok := opts[k]; !ok {
			return false, 0, 0
		}
	}
	if opts["rw"] != rw {
		return false, 0, 0
	}
	d, err1 := strconv.Atoi(opts["iodepth"].(string))
	n, err2 := strconv.Atoi(opts["numjobs"].(string))
	if err1 != nil || err2 != nil {
		return false, 0, 0
	}
	return true, d, n
}

// TestForFioPlot writes the patch's job (no numjobs, no iodepth in its
// file; iodepth in [global] overridden by the sweep in the second case) as
// --json-dir writes it and checks that fio-plot's rule keeps it under the
// depth it ran at.
func TestForFioPlot(t *testing.T) {
	for _, tt := range []struct {
		name, file string
		sets       []string
		depth      int
	}{
		{"patch job", "[global]\nioengine=null\nrw=randread\nsize=1m\n[filename0]\n", []string{"iodepth=64"}, 64},
		{"global iodepth swept", "[global]\nioengine=null\nrw=randread\niodepth=8\nsize=1m\n[j]\n", []string{"iodepth=256"}, 256},
		{"nothing set", "[j]\nioengine=null\nrw=randread\nsize=1m\n", nil, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "j.fio")
			if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			jobs, err := jobfile.Parse(jobfile.Input{Files: []string{path}, Sets: tt.sets})
			if err != nil {
				t.Fatal(err)
			}
			globals := jobfile.GlobalOptions(jobs)
			res := &report.Result{Version: "gofio-test", GlobalOptions: globals}
			for _, j := range jobs {
				res.Jobs = append(res.Jobs, &report.JobResult{Job: j, Name: j.Name, Members: 1})
			}
			// As written without the fix, fio-plot finds nothing (the
			// patch's job sets no numjobs).
			var plain bytes.Buffer
			if err := report.WriteJSON(&plain, res, false); err != nil {
				t.Fatal(err)
			}
			if ok, _, _ := fioPlotImports(t, plain.Bytes(), "randread"); ok {
				t.Logf("note: the plain JSON is already importable")
			}
			var b bytes.Buffer
			if err := report.WriteJSON(&b, ForFioPlot(res), false); err != nil {
				t.Fatal(err)
			}
			ok, d, n := fioPlotImports(t, b.Bytes(), "randread")
			if !ok || d != tt.depth || n != 1 {
				t.Errorf("fio-plot keeps %v at depth %d numjobs %d; want depth %d numjobs 1\n%s", ok, d, n, tt.depth, b.String())
			}
			if len(res.Jobs[0].Job.Options) != len(jobs[0].Options) || len(res.GlobalOptions) != len(globals) {
				t.Error("ForFioPlot changed the result it was given")
			}
		})
	}
}

// TestJSONDirMedianRepeat: with several repeats each repeat has its own
// file below the side's directory, and Finish copies the repeat of median
// IOPS up to where fio-plot reads it.
func TestJSONDirMedianRepeat(t *testing.T) {
	dir := t.TempDir()
	d := &JSONDir{Dir: dir}
	iops := []uint64{300, 100, 200} // the median, 200, is repeat 3
	for k, n := range iops {
		job := &jobfile.Job{RW: jobfile.RWRandRead, IODepth: 8, NumJobs: 1}
		jr := &report.JobResult{Job: job, Name: "j"}
		jr.Dirs[jobfile.DirRead].TotalIOs = n
		jr.Dirs[jobfile.DirRead].Runtime = time.Second
		res := &report.Result{Jobs: []*report.JobResult{jr}}
		path := d.Add(Point{Name: "priority", Repeat: k, Repeats: len(iops)}, res)
		if want := filepath.Join(dir, "priority", "repeat-"+strconv.Itoa(k+1), "randread-8-1.json"); path != want {
			t.Fatalf("repeat %d goes to %s, want %s", k, path, want)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strconv.FormatUint(n, 10)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "priority", "randread-8-1.json"))
	if err != nil || string(got) != "200" {
		t.Errorf("the side's file holds %q (%v), want the median repeat's (200 IOPS)", got, err)
	}
}
