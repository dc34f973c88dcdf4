package report

import (
	"testing"
	"time"

	"github.com/gofio/gofio/internal/fiostat"
	"github.com/gofio/gofio/jobfile"
)

func TestGroupReportingMerge(t *testing.T) {
	mk := func(pid int, ios uint64, rt time.Duration) *JobResult {
		j := &JobResult{Job: synthJob("g", jobfile.RWRead), Name: "g", Pid: pid, Members: 1}
		j.Job.GroupReporting = true
		j.Dirs[0].IOBytes, j.Dirs[0].TotalIOs, j.Dirs[0].Runtime = ios*4096, ios, rt
		j.Dirs[0].BW.Add(100)
		j.Dirs[0].BW.Add(300)
		j.Dirs[0].Clat.Add(ios)
		j.Dirs[0].ClatHist.Add(ios)
		return j
	}
	r := &Result{Jobs: []*JobResult{mk(1, 1000, time.Second), mk(2, 3000, 2*time.Second)}}
	rep := Reported(r)
	if len(rep) != 1 {
		t.Fatalf("%d reported results, want 1 merged group", len(rep))
	}
	m := rep[0]
	tests := []struct {
		name      string
		got, want float64
	}{
		{"members (jobs=N)", float64(m.Members), 2},
		{"pid of first member", float64(m.Pid), 1},
		{"io bytes summed", float64(m.Dirs[0].IOBytes), 4000 * 4096},
		{"runtime is the max", float64(m.Dirs[0].Runtime), float64(2 * time.Second)},
		{"bw min summed", float64(m.Dirs[0].BW.Min), 200},
		{"bw mean summed", m.Dirs[0].BW.Mean, 400},
		{"clat merged mean", m.Dirs[0].Clat.Mean, 2000},
		{"histograms merged", float64(m.Dirs[0].ClatHist[fiostat.HistIndex(1000)] + m.Dirs[0].ClatHist[fiostat.HistIndex(3000)]), 2},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	g := Groups(rep)[0]
	// One merged ts: agg = 4000*4096*1000/2000ms, min = max = the same.
	if want := uint64(4000 * 4096 * 1000 / 2000); g.Agg[0] != want || g.MinBW[0] != want || g.MaxRun[0] != 2000 {
		t.Errorf("group stats %+v, want agg %d", g, want)
	}
}

func TestETALine(t *testing.T) {
	p := &Progress{}
	p.State.Store('r')
	p.OpenFiles.Store(1)
	p.EndNano.Store(int64(10 * time.Second))
	var out []byte
	w := writerFunc(func(b []byte) (int, error) { out = append(out, b...); return len(b), nil })
	e := NewETA(w, []*Progress{p}, 1024, 0)
	e.Tick(time.Second)
	if got, want := string(out), "Jobs: 1 (f=1)\r"; got != want {
		t.Errorf("before 3s: %q, want %q", got, want)
	}
	out = nil
	// 4 s in: 1 GiB and 262144 reads over the last 3 s, 6 s left of 10.
	p.Bytes[0].Store(3 << 30)
	p.IOs[0].Store(3 * 262144)
	e.Tick(4 * time.Second)
	want := "Jobs: 1 (f=1): [r(1)][40.0%][r=1024MiB/s][r=262k IOPS][eta 00m:06s]\r"
	if string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
	out = nil
	p.State.Store('E')
	e.Tick(5 * time.Second)
	if got := string(out); got != "Jobs: 0 (f=0)"+spaces(len(want)-1-len("Jobs: 0 (f=0)"))+"\r" {
		t.Errorf("shorter line not padded: %q", got)
	}
}

func TestRunStringAndEta(t *testing.T) {
	if got := runString([]byte("__rRR")); got != "_(2),r(1),R(2)" {
		t.Errorf("runString = %q", got)
	}
	for _, tc := range []struct {
		sec  int64
		want string
	}{{-1, "--"}, {5, "00m:05s"}, {3725, "01h:02m:05s"}, {90061, "01d:01h:01m:01s"}} {
		if got := etaString(tc.sec); got != tc.want {
			t.Errorf("etaString(%d) = %q, want %q", tc.sec, got, tc.want)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func spaces(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}
