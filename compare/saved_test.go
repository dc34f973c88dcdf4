package compare

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofio/gofio/internal/fingerprint"
	"github.com/gofio/gofio/internal/kstage"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// savedRun builds a saved run of an iodepth sweep with --compare: at each
// depth, five repeats a side with avg latencies base*(1+k/100) for new and
// old alike (k = 0..4), times slow for the new side.
func savedRun(path, kernel, hash string, slow float64, depths ...string) *Saved {
	c := &report.Comparison{Key: "iodepth", Keys: []string{"iodepth"}, Metric: "lat", Repeat: 5, Compared: true}
	c.New, c.Old = DefaultAB.Sides()
	for i, d := range depths {
		base := float64(10 * (i + 1))
		row := report.ComparisonRow{Value: d, Values: []string{d}}
		for k := 0; k < 5; k++ {
			v := base * (1 + float64(k)/100)
			row.New.Repeats = append(row.New.Repeats, report.RepeatStats{Repeat: k, AvgLatUs: v * slow, P99Us: 2 * v * slow, IOPS: 1e6 / (v * slow)})
			row.Old.Repeats = append(row.Old.Repeats, report.RepeatStats{Repeat: k, AvgLatUs: v, P99Us: 2 * v, IOPS: 1e6 / v})
		}
		row.New.Name, row.Old.Name = c.New.Name, c.Old.Name
		row.New.Summarize()
		row.Old.Summarize()
		c.Rows = append(c.Rows, row)
	}
	info := &report.RunInfo{Host: "h", Kernel: kernel, CPUModel: "cpu", CPUs: 2, Version: "gofio-0.1", Commit: "abc",
		JobsHash: hash, Jobs: []report.RunJob{{Name: "j", FioOptions: []string{"rw=randread", "runtime=" + hash}}}, Repeat: 5}
	return &Saved{Path: path, Info: info, Comparison: c}
}

func TestDiff(t *testing.T) {
	old := savedRun("old.json", "6.1", "1s", 1, "1", "8")
	// The new run: the new side (priority) 20% slower at both depths,
	// the old side (fifo) unchanged; and a depth the old run lacks.
	cur := savedRun("new.json", "6.18", "1s", 1.2, "1", "8", "64")
	d, warnings, err := Diff(old, cur, Allow{Runner: fingerprint.Allowed{fingerprint.FieldKernel: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 2 || warnings[1] != "allowed: kernel: old 6.1, new 6.18" || !strings.Contains(warnings[0], "saved by an older gofio") {
		t.Errorf("warnings %q, want the kernel difference allowed and the missing environment", warnings)
	}
	Judge(d, "")
	var got []string
	for _, r := range d.Rows {
		v := "-"
		if r.Stats != nil {
			v = r.Stats.Verdict
		}
		got = append(got, r.Value+":"+v)
	}
	want := "1,priority:slower 1,fifo:~ 8,priority:slower 8,fifo:~ 64,priority:- 64,fifo:-"
	if strings.Join(got, " ") != want {
		t.Errorf("rows %v, want %s", got, want)
	}
	if d.Key != "iodepth,side" || d.New.Label() != "new (run=new.json)" || d.Old.Label() != "old (run=old.json)" {
		t.Errorf("key %q sides %q %q", d.Key, d.New.Label(), d.Old.Label())
	}
	if err := CheckSlower(d, 10); err == nil || !strings.Contains(err.Error(), "iodepth,side=1,priority (+20.00%") {
		t.Errorf("gate at 10%%: %v", err)
	}
	if err := CheckSlower(d, 25); err != nil {
		t.Errorf("gate at 25%%: %v", err)
	}
}

func TestDiffRefusesDifferentJobs(t *testing.T) {
	old := savedRun("old.json", "6.18", "1s", 1, "1")
	cur := savedRun("new.json", "6.18", "2s", 1, "1")
	_, _, err := Diff(old, cur, Allow{})
	if !errors.Is(err, ErrDifferentJobs) || !strings.Contains(err.Error(), `job j: old has "runtime=1s" where new has "runtime=2s"`) ||
		!strings.Contains(err.Error(), "--allow-different-jobs") {
		t.Fatalf("err = %v, want a refusal naming runtime and the flag", err)
	}
	d, warnings, err := Diff(old, cur, Allow{Jobs: true})
	if err != nil || d == nil || len(warnings) != 2 || !strings.HasPrefix(warnings[1], "allowed: the jobs differ") {
		t.Errorf("allowed: %v %q %v", d, warnings, err)
	}
	// A different --compare is a different comparison.
	other := savedRun("new.json", "6.18", "1s", 1, "1")
	other.Comparison.New, other.Comparison.Old = AB{Key: "ioengine", New: "io_uring", Old: "libaio"}.Sides()
	if _, _, err := Diff(old, other, Allow{}); !errors.Is(err, ErrDifferentJobs) || !strings.Contains(err.Error(), "compared different things") {
		t.Errorf("different compare: %v", err)
	}
}

// TestDiffRefusesDifferentRunner: runs whose runner fingerprints differ
// are not compared unless the differing fields are allowed; the refusal
// names each field and the flag that allows exactly them. The host name
// alone is only a warning.
func TestDiffRefusesDifferentRunner(t *testing.T) {
	withEnv := func(s *Saved, gov string, disks ...fingerprint.Device) *Saved {
		s.Info.Env = &fingerprint.Env{Governor: gov, SMT: "on", Mitigations: map[string]string{"mds": "Not affected"}, Devices: disks}
		return s
	}
	nvme := fingerprint.Device{Name: "nvme0n1", Model: "X", Scheduler: "none", QueueDepth: 1023}
	old := withEnv(savedRun("old.json", "6.18", "1s", 1, "1"), "performance", nvme)
	same := withEnv(savedRun("new.json", "6.18", "1s", 1, "1"), "performance", nvme)
	same.Info.Host = "other-host"
	if _, w, err := Diff(old, same, Allow{}); err != nil || len(w) != 1 || w[0] != "host differs: old h, new other-host" {
		t.Errorf("same runner, other host: %q, %v", w, err)
	}
	slowDisk := nvme
	slowDisk.Scheduler = "bfq"
	cur := withEnv(savedRun("new.json", "6.19", "1s", 1, "1"), "powersave", slowDisk)
	_, _, err := Diff(old, cur, Allow{})
	if !errors.Is(err, ErrDifferentRunner) || errors.Is(err, ErrDifferentJobs) {
		t.Fatalf("err = %v, want ErrDifferentRunner alone", err)
	}
	for _, want := range []string{"kernel: old 6.18, new 6.19", "governor: old performance, new powersave",
		"devices: old nvme0n1 (X, scheduler none, depth 1023), new nvme0n1 (X, scheduler bfq, depth 1023)",
		"--allow-runner-change kernel,governor,devices"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q lacks %q", err, want)
		}
	}
	// Allowing the kernel alone is not enough; allowing all three is.
	if _, _, err := Diff(old, cur, Allow{Runner: fingerprint.Allowed{fingerprint.FieldKernel: true}}); !errors.Is(err, ErrDifferentRunner) ||
		strings.Contains(err.Error(), "kernel:") {
		t.Errorf("kernel allowed: %v, want the governor and disk still refused", err)
	}
	all, _ := fingerprint.ParseAllowed("all")
	d, w, err := Diff(old, cur, Allow{Runner: all})
	if err != nil || d == nil || len(w) != 3 {
		t.Errorf("all allowed: %q, %v", w, err)
	}
	// Another job and another runner: both refusals.
	other := withEnv(savedRun("new.json", "6.19", "2s", 1, "1"), "performance", nvme)
	if _, _, err := Diff(old, other, Allow{}); !errors.Is(err, ErrDifferentRunner) || !errors.Is(err, ErrDifferentJobs) {
		t.Errorf("other job and runner: %v", err)
	}
}

// TestReadSavedRoundTrip writes a run as --output-format=json does, after
// a text table as --output-format=normal,json would, and reads it back.
func TestReadSavedRoundTrip(t *testing.T) {
	s := savedRun("x", "6.18", "1s", 1.2, "1", "8")
	Judge(s.Comparison, "")
	var b bytes.Buffer
	b.WriteString("a table first\n")
	if err := report.WriteJSON(&b, &report.Result{Version: "gofio-0.1", Run: s.Info, Comparison: s.Comparison}, false); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSaved(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Info == nil || got.Info.JobsHash != "1s" || got.Info.Kernel != "6.18" || len(got.Info.Jobs) != 1 {
		t.Errorf("info %+v", got.Info)
	}
	c := got.Comparison
	if len(c.Rows) != 2 || len(c.Rows[1].New.Repeats) != 5 || c.New.Label() != "priority (tw_priority=1)" {
		t.Fatalf("comparison %+v", c)
	}
	if a, b := c.Rows[1].New.Repeats[3].AvgLatUs, s.Comparison.Rows[1].New.Repeats[3].AvgLatUs; a-b > 0.001 || b-a > 0.001 {
		t.Errorf("repeat read back as %v, wrote %v", a, b)
	}
	// fio's own JSON (no gofio_run, no comparison) is refused with what to do.
	plain := filepath.Join(t.TempDir(), "plain.json")
	if err := os.WriteFile(plain, []byte(`{"fio version": "fio-3.33", "jobs": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSaved(plain); err == nil || !strings.Contains(err.Error(), "gofio's --output-format=json") {
		t.Errorf("plain fio JSON: %v", err)
	}
}

func TestDescribeJobs(t *testing.T) {
	parse := func(text string) []*jobfile.Job {
		t.Helper()
		path := filepath.Join(t.TempDir(), "j.fio")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		jobs, err := jobfile.Parse(jobfile.Input{Files: []string{path}})
		if err != nil {
			t.Fatal(err)
		}
		return jobs
	}
	a := parse("[global]\nioengine=null\nsize=1m\n[j]\nrw=randread\ntw_priority=0\n")
	jobs, h1 := DescribeJobs(a)
	if len(jobs) != 1 || strings.Join(jobs[0].GofioOptions, " ") != "tw_priority=0" ||
		!strings.Contains(strings.Join(jobs[0].FioOptions, " "), "rw=randread") {
		t.Errorf("jobs %+v", jobs)
	}
	_, h2 := DescribeJobs(parse("[global]\nioengine=null\nsize=1m\n[j]\nrw=randread\ntw_priority=0\n"))
	_, h3 := DescribeJobs(parse("[global]\nioengine=null\nsize=2m\n[j]\nrw=randread\ntw_priority=0\n"))
	if h1 != h2 || h1 == h3 || len(h1) != 64 {
		t.Errorf("hashes %s %s %s: want equal for the same jobs, different for size=2m", h1, h2, h3)
	}
}

// TestDiffJobByJob compares runs of two jobs: job a unchanged, job b 20%
// slower in the new run. Merged, b's slowdown would be diluted by a;
// job by job only b's row is slower.
// jobsRun is a saved run of one side, one row and several jobs, whose
// repeat k's per-job figures jobs gives.
func jobsRun(path string, jobs func(k int) []report.JobRepeat) *Saved {
	s := savedRun(path, "6.18", "1s", 1, "1")
	c := s.Comparison
	c.Compared, c.Old = false, report.SideSpec{}
	r := &c.Rows[0]
	r.Old = report.ComparisonSide{}
	for k := range r.New.Repeats {
		r.New.Repeats[k].Jobs = jobs(k)
	}
	return s
}

func TestDiffJobByJob(t *testing.T) {
	run := func(path string, bSlow float64) *Saved {
		return jobsRun(path, func(k int) []report.JobRepeat {
			a := 100 * (1 + float64(k)/100)
			return []report.JobRepeat{
				{Name: "a", AvgLatUs: a, P99Us: 2 * a, IOPS: 1e6 / a},
				{Name: "b", AvgLatUs: a * bSlow, P99Us: 2 * a * bSlow, IOPS: 1e6 / (a * bSlow)},
			}
		})
	}
	d, _, err := Diff(run("old.json", 1), run("new.json", 1.2), Allow{})
	if err != nil {
		t.Fatal(err)
	}
	Judge(d, "")
	if d.Key != "iodepth,job" || len(d.Rows) != 2 {
		t.Fatalf("key %q, %d rows; want iodepth,job and 2 rows", d.Key, len(d.Rows))
	}
	for i, want := range []string{"1,a:~", "1,b:slower"} {
		r := d.Rows[i]
		if got := r.Value + ":" + r.Stats.Verdict; got != want {
			t.Errorf("row %d: %s, want %s", i, got, want)
		}
	}
	if err := CheckSlower(d, 10); err == nil || !strings.Contains(err.Error(), "iodepth,job=1,b (+20.00%") {
		t.Errorf("gate: %v", err)
	}
}

// TestMeasureJobs checks the per-job figures of a run of several jobs:
// each job measured alone, a repeated name numbered.
func TestMeasureJobs(t *testing.T) {
	mk := func(name string, us uint64) *report.JobResult {
		jr := &report.JobResult{Name: name}
		ds := &jr.Dirs[jobfile.DirRead]
		for i := 0; i < 10; i++ {
			ds.Lat.Add(us * 1000)
			ds.LatHist.Add(us * 1000)
		}
		ds.TotalIOs, ds.Runtime = 10, time.Second
		return jr
	}
	var m measurement
	measure(&report.Result{Jobs: []*report.JobResult{mk("x", 10), mk("x", 30)}}, &m)
	if m.stats.AvgLatUs != 20 || len(m.stats.Jobs) != 2 {
		t.Fatalf("merged avg %v, %d jobs", m.stats.AvgLatUs, len(m.stats.Jobs))
	}
	if j := m.stats.Jobs[1]; j.Name != "x#2" || j.AvgLatUs != 30 || j.IOPS != 10 || j.IOs != 10 {
		t.Errorf("second job %+v", j)
	}
	measure(&report.Result{Jobs: []*report.JobResult{mk("x", 10)}}, &m)
	if m.stats.Jobs != nil {
		t.Errorf("one job: per-job figures %+v, want none", m.stats.Jobs)
	}
}

// TestDiffKernelStages diffs two saved runs of two kernels with kernel
// stages, read back from their JSON: each row's sides carry their run's
// stages, and the table compares them stage by stage.
func TestDiffKernelStages(t *testing.T) {
	dir := t.TempDir()
	save := func(name string, tw float64) *Saved {
		f := &fakeRun{kstages: true}
		c, err := Run(context.Background(), Plan([]Sweep{{Key: "iodepth", Values: []string{"8"}}}, nil, 5), nil, f.run, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The kernel under test moves the tw stage only.
		c.Rows[0].New.KStages.MeanUs[kstage.TW] = tw
		path := filepath.Join(dir, name)
		var b bytes.Buffer
		if err := report.WriteCompareJSON(&b, c); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := ReadSaved(path)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	old, cur := save("old.json", 8), save("new.json", 2)
	d, _, err := Diff(old, cur, Allow{})
	if err != nil {
		t.Fatal(err)
	}
	Judge(d, "")
	r := d.Rows[0]
	if r.New.KStages.MeanUs[kstage.TW] != 2 || r.Old.KStages.MeanUs[kstage.TW] != 8 || r.New.KStages.Joined != 500 {
		t.Fatalf("diff sides: new %+v old %+v", r.New.KStages, r.Old.KStages)
	}
	var b bytes.Buffer
	if err := report.WriteCompareTable(&b, d); err != nil {
		t.Fatal(err)
	}
	var delta []string
	for _, l := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[0] == "8" && f[1] == "Δ%" {
			delta = f
		}
	}
	// Stages enter..reap, then the sum: only tw moved, -75%, and the
	// sum from 59 to 53 µs.
	want := []string{"8", "Δ%", "+0.0%", "+0.0%", "+0.0%", "+0.0%", "-75.0%", "+0.0%", "-10.2%"}
	if strings.Join(delta, " ") != strings.Join(want, " ") {
		t.Errorf("the diff's stage line = %q, want %q\n%s", delta, want, b.String())
	}
}
