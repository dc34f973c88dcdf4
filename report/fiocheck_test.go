package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/fiostat"
	"github.com/gofio/gofio/jobfile"
)

// keySet collects the paths of all keys of a decoded JSON document. Keys
// inside "percentile" and "bins" objects are numbers that depend on the
// data, so only the object itself counts; arrays contribute the union of
// their elements' keys.
func keySet(v interface{}, path string, out map[string]bool) {
	switch t := v.(type) {
	case map[string]interface{}:
		for k, e := range t {
			p := path + "/" + k
			out[p] = true
			if k == "percentile" || k == "bins" {
				continue
			}
			keySet(e, p, out)
		}
	case []interface{}:
		for _, e := range t {
			keySet(e, path+"[]", out)
		}
	}
}

func decodeKeys(t *testing.T, data []byte) map[string]bool {
	t.Helper()
	var v interface{}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	keys := map[string]bool{}
	keySet(v, "", keys)
	return keys
}

// crossCheckResult is a Result built with the options of the fio job the
// cross-check runs.
func crossCheckResult() *Result {
	r := synthResult()
	j := r.Jobs[0]
	j.Job.Description = ""
	j.Job.Options = []jobfile.Option{
		{Name: "name", Value: "t", HasValue: true},
		{Name: "ioengine", Value: "null", HasValue: true},
		{Name: "size", Value: "1m", HasValue: true},
		{Name: "bs", Value: "4k", HasValue: true},
		{Name: "rw", Value: "randrw", HasValue: true},
	}
	r.Jobs = r.Jobs[:1]
	r.Disks = nil
	r.GlobalOptions = nil
	return r
}

func TestJSONKeysMatchFio(t *testing.T) {
	fio, err := exec.LookPath("fio")
	if err != nil {
		t.Skip("fio is not installed: skipping the key-set cross-check against real fio")
	}
	for _, tc := range []struct {
		format string
		plus   bool
	}{{"json", false}, {"json+", true}} {
		t.Run(tc.format, func(t *testing.T) {
			cmd := exec.Command(fio, "--name=t", "--ioengine=null", "--size=1m", "--bs=4k", "--rw=randrw", "--output-format="+tc.format)
			cmd.Dir = t.TempDir()
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("fio: %v", err)
			}
			want := decodeKeys(t, out)
			var b bytes.Buffer
			if err := WriteJSON(&b, crossCheckResult(), tc.plus); err != nil {
				t.Fatal(err)
			}
			got := decodeKeys(t, b.Bytes())
			for k := range got {
				if strings.HasPrefix(k, "/jobs[]/gofio") {
					delete(got, k)
				}
			}
			if missing, extra := diffKeys(want, got), diffKeys(got, want); len(missing)+len(extra) > 0 {
				t.Errorf("key sets differ\nonly in fio: %v\nonly in gofio: %v", missing, extra)
			}
		})
	}
}

func diffKeys(a, b map[string]bool) []string {
	var d []string
	for k := range a {
		if !b[k] {
			d = append(d, k)
		}
	}
	sort.Strings(d)
	return d
}

func TestJSONWithErrorIsPureJSON(t *testing.T) {
	r := synthResult()
	r.Jobs[0].Error = 22
	r.Jobs[0].ErrorText = "file:io_u.c:1876, func=io_u error, error=Invalid argument"
	r.Jobs[0].Name = "bad\tname \"quoted\" \\"
	r.Jobs[0].Job.ContinueOnError = jobfile.ContinueAll
	r.Jobs[0].TotalErr, r.Jobs[0].FirstErr = 3, 5
	var b bytes.Buffer
	if err := WriteJSON(&b, r, true); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Jobs []struct {
			Jobname    string `json:"jobname"`
			Error      int    `json:"error"`
			TotalErr   int    `json:"total_err"`
			FirstError int    `json:"first_error"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("WriteJSON output is not pure JSON: %v", err)
	}
	j := doc.Jobs[0]
	if j.Error != 22 || j.TotalErr != 3 || j.FirstError != 5 || j.Jobname != r.Jobs[0].Name {
		t.Errorf("decoded job = %+v", j)
	}
}

func TestClat2CSVReadsJSONPlus(t *testing.T) {
	tool, err := exec.LookPath("fio_jsonplus_clat2csv")
	if err != nil {
		t.Skip("fio_jsonplus_clat2csv is not installed: skipping")
	}
	r := synthResult()
	dir := t.TempDir()
	in := filepath.Join(dir, "out.json")
	var b bytes.Buffer
	if err := WriteJSON(&b, r, true); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(dir, "clat.csv")
	if out, err := exec.Command("python3", tool, in, dest).CombinedOutput(); err != nil {
		t.Fatalf("fio_jsonplus_clat2csv: %v\n%s", err, out)
	}
	// --validate re-reads the CSV and checks every count against the bins.
	if out, err := exec.Command("python3", tool, in, dest, "--validate").CombinedOutput(); err != nil || strings.Contains(string(out), "mismatch") || !strings.Contains(string(out), "validated") {
		t.Fatalf("fio_jsonplus_clat2csv --validate: %v\n%s", err, out)
	}
	for i, j := range Reported(r) {
		// One row per latency value present in any bins object: every
		// direction's slat, clat and lat histograms whose percentiles are on.
		values := map[uint64]bool{}
		slatP, clatP, latP := percentileFlags(j.Job)
		for d := range j.Dirs {
			ds := &j.Dirs[d]
			for _, h := range []struct {
				on bool
				n  uint64
				h  *Hist
			}{{slatP, ds.Slat.N, &ds.SlatHist}, {clatP, ds.Clat.N, &ds.ClatHist}, {latP, ds.Lat.N, &ds.LatHist}} {
				if !h.on || h.n == 0 {
					continue
				}
				for k, c := range h.h {
					if c != 0 {
						values[fiostat.HistValue(k)] = true
					}
				}
			}
		}
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("clat_job%d.csv", i)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if rows := len(lines) - 1; rows != len(values) {
			t.Errorf("job %d: %d csv rows, want %d (one per histogram bucket)", i, rows, len(values))
		}
	}
}
