package fleet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// hostJSON runs nothing: it builds host i's result of job "rr" with n
// random-latency reads (each host its own distribution), writes it as
// gofio JSON and returns the bytes and the clat samples.
func hostJSON(t *testing.T, i, n int, runID string, opts ...string) ([]byte, []uint64) {
	t.Helper()
	argv := append([]string{"--name=rr", "--rw=randread", "--bs=4k", "--iodepth=8", "--numjobs=1",
		fmt.Sprintf("--filename=/mnt/h%d/f", i)}, opts...)
	jobs, err := jobfile.Parse(jobfile.Input{CmdLine: argv, Host: &jobfile.Host{NCPUs: 1, PageSize: 4096, MBMemory: 1024}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(int64(i)))
	jr := &report.JobResult{Job: jobs[0], Name: "rr", Members: 1, Elapsed: time.Second, JobRuntime: time.Second,
		Start: time.Unix(1764522000, 0), FirstIO: time.Unix(1764522000, int64(i)*1000)}
	d := &jr.Dirs[jobfile.DirRead]
	var samples []uint64
	for k := 0; k < n; k++ {
		v := uint64(20000*(i+1)) + uint64(rng.ExpFloat64()*float64(10000*(i+1)))
		samples = append(samples, v)
		d.Clat.Add(v)
		d.ClatHist.Add(v)
		d.Lat.Add(v + 500)
		d.LatHist.Add(v + 500)
	}
	d.TotalIOs, d.IOBytes, d.Runtime = uint64(n), uint64(n)*4096, time.Second
	jr.IODepth[3] = uint64(n)
	res := &report.Result{Version: "gofio-test", Start: jr.Start, Jobs: []*report.JobResult{jr},
		StartAt: time.Unix(1764522000, 0),
		Run:     &report.RunInfo{Host: fmt.Sprintf("h%d", i), RunID: runID}}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, res, false); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), samples
}

func readHost(t *testing.T, name string, b []byte) *Host {
	t.Helper()
	h, err := Read(name, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestMergeExact merges four hosts and checks the "All clients" sum against
// the pooled samples: I/O counts add up and the percentiles are those of
// the pooled histogram, bin for bin.
func TestMergeExact(t *testing.T) {
	var hosts []*Host
	var pooled report.Hist
	var total uint64
	for i := 1; i <= 4; i++ {
		b, samples := hostJSON(t, i, 1000*i, "run-1")
		hosts = append(hosts, readHost(t, fmt.Sprintf("h%d.json", i), b))
		for _, v := range samples {
			pooled.Add(v)
		}
		total += uint64(len(samples))
	}
	c, err := Merge(hosts, Options{Version: "gofio-test", Now: time.Unix(1764522100, 0)})
	if err != nil {
		t.Fatal(err)
	}
	all := c.All.Dirs[jobfile.DirRead]
	if all.TotalIOs != total || all.Clat.N != total {
		t.Errorf("All clients total_ios %d, clat N %d; want the sum %d", all.TotalIOs, all.Clat.N, total)
	}
	if all.ClatHist != pooled {
		t.Error("All clients histogram is not the pooled one")
	}
	plist := []float64{1, 50, 90, 99, 99.9}
	want, _, _ := report.Percentiles(&pooled, total, plist)

	var out bytes.Buffer
	if err := report.WriteClientJSON(&out, c, true); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version string            `json:"fio version"`
		Global  map[string]string `json:"global options"`
		Stats   []struct {
			Name     string `json:"jobname"`
			Hostname string `json:"hostname"`
			Read     struct {
				TotalIOs uint64 `json:"total_ios"`
				Clat     struct {
					Percentile map[string]uint64 `json:"percentile"`
					Bins       map[string]uint64 `json:"bins"`
				} `json:"clat_ns"`
			} `json:"read"`
		} `json:"client_stats"`
		Merge struct {
			RunID   string `json:"run_id"`
			Clients []struct {
				Hostname string `json:"hostname"`
				Skew     int64  `json:"start_skew_ns"`
			} `json:"clients"`
		} `json:"gofio_merge"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(doc.Stats) != 5 {
		t.Fatalf("client_stats has %d entries, want 4 hosts + All clients", len(doc.Stats))
	}
	var sum uint64
	for i, s := range doc.Stats[:4] {
		if s.Hostname != fmt.Sprintf("h%d", i+1) || s.Name != "rr" {
			t.Errorf("entry %d: %s on %q", i, s.Name, s.Hostname)
		}
		sum += s.Read.TotalIOs
	}
	last := doc.Stats[4]
	if last.Name != report.AllClients || last.Read.TotalIOs != sum {
		t.Errorf("last entry %q total_ios %d, want All clients with %d", last.Name, last.Read.TotalIOs, sum)
	}
	for i, p := range plist {
		key := fmt.Sprintf("%f", p)
		if got := last.Read.Clat.Percentile[key]; got != want[i] {
			t.Errorf("All clients p%s = %d, pooled histogram %d", key, got, want[i])
		}
	}
	var binSum uint64
	for _, c := range last.Read.Clat.Bins {
		binSum += c
	}
	if binSum != total {
		t.Errorf("json+ bins hold %d samples, want %d", binSum, total)
	}
	if doc.Global["rw"] != "randread" || doc.Global["iodepth"] != "8" || doc.Global["numjobs"] != "1" || doc.Global["filename"] != "" {
		t.Errorf("global options %v: want the shared rw, iodepth, numjobs and no per-host filename", doc.Global)
	}
	if doc.Merge.RunID != "run-1" || len(doc.Merge.Clients) != 4 || doc.Merge.Clients[3].Skew != 4000 {
		t.Errorf("gofio_merge = %+v", doc.Merge)
	}

	var text bytes.Buffer
	if err := report.WriteClientNormal(&text, c); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"<h1> h1.json (run id run-1)", "<h4> h4.json", "All clients: (groupid=0, jobs=4)", "Run status group 0"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("normal text lacks %q", w)
		}
	}
}

// TestMergeRefuses checks results of another run, other jobs or the same
// host twice are refused, naming the file, unless forced.
func TestMergeRefuses(t *testing.T) {
	b1, _ := hostJSON(t, 1, 10, "run-1")
	b2, _ := hostJSON(t, 2, 10, "run-1")
	other, _ := hostJSON(t, 3, 10, "run-2")
	bs, _ := hostJSON(t, 4, 10, "run-1", "--bs=8k")
	tests := []struct {
		name  string
		hosts []*Host
		want  string
	}{
		{"run id", []*Host{readHost(t, "a.json", b1), readHost(t, "c.json", other)}, `c.json: run id "run-2", but a.json has "run-1"`},
		{"jobs", []*Host{readHost(t, "a.json", b1), readHost(t, "d.json", bs)}, `d.json: job rr has bs="8k", not "4k"`},
		{"same host", []*Host{readHost(t, "a.json", b1), readHost(t, "a2.json", b1)}, `a2.json: host "h1" again (also in a.json)`},
	}
	for _, tt := range tests {
		_, err := Merge(tt.hosts, Options{})
		if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
		if _, err := Merge(tt.hosts, Options{Force: true}); err != nil {
			t.Errorf("%s forced: %v", tt.name, err)
		}
	}
	if _, err := Merge([]*Host{readHost(t, "a.json", b1), readHost(t, "b.json", b2)}, Options{}); err != nil {
		t.Errorf("hosts differing only in filename: %v", err)
	}
	if _, err := Read("fio.json", strings.NewReader(`{"fio version": "fio-3.33", "jobs": [{"jobname": "x"}]}`)); err == nil ||
		!strings.Contains(err.Error(), "fio.json: no gofio_run") {
		t.Errorf("fio's own JSON: %v", err)
	}
	if _, err := Read("bad.json", strings.NewReader(`{`)); err == nil || !strings.Contains(err.Error(), "bad.json: not a gofio JSON result") {
		t.Errorf("broken JSON: %v", err)
	}
}
