package report

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/gofio/gofio/jobfile"
)

// TestStateRoundTrip checks a JobResult survives StateOf, JSON and
// JobResultFromState exactly, histograms and float sums included.
func TestStateRoundTrip(t *testing.T) {
	j := &JobResult{Name: "j", GroupID: 1, Members: 2, Elapsed: 3 * time.Second, Policy: "fifo",
		JobRuntime: time.Second, UsrCPU: 7 * time.Millisecond, SysCPU: 9 * time.Millisecond,
		Ctx:     5,
		IOStats: IOStats{IODepth: [7]uint64{1, 2, 3}, SubmitCalls: 4, LatUs: [10]uint64{0, 9}},
		FirstIO: time.Unix(0, 1764518400123456789), Start: time.Unix(0, 1764518400000000001),
		EngineNotes: []string{"n"}, TotalErr: 2, FirstErr: 5,
		SteadyState: &SteadyState{IOPS: true, BySlope: true, Pct: true, Limit: 0.01, Duration: 2, Attained: true,
			Slope: 1.5, Criterion: 0.003, BW: []uint64{4096, 8192}, IOPSData: []uint64{1, 2}},
		Blocks: BlockInfos{0, 1<<29 | 3}}
	d := &j.Dirs[jobfile.DirRead]
	for _, v := range []uint64{1000, 1100, 250000, 7, 1 << 40} {
		d.Clat.Add(v)
		d.ClatHist.Add(v)
		d.Lat.Add(v + 3)
		d.LatHist.Add(v + 3)
	}
	d.IOBytes, d.TotalIOs, d.Runtime = 5*4096, 5, 2*time.Second
	d.BW = Stat{Min: 1, Max: 3, Mean: 2.0000001, S: 1.5, N: 3}
	j.TWWait.Add(42)
	j.TWWaitHist.Add(42)

	raw, err := json.Marshal(StateOf(j))
	if err != nil {
		t.Fatal(err)
	}
	var s JobState
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	got, err := JobResultFromState(&s, nil, "j", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	j.Start, got.Start = j.Start.Round(0), got.Start.Round(0)
	if !reflect.DeepEqual(got, j) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v", got, j)
	}

	s.Dirs[0].Clat.Bins["1"] = 99 // the histogram no longer sums to N
	if _, err := JobResultFromState(&s, nil, "j", 1, 0); err == nil {
		t.Error("a histogram that does not sum to N was accepted")
	}
}
