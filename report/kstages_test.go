package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/fiostat"
	"github.com/gofio/gofio/internal/kstage"
)

func sampleKernelStages() *kstage.KernelStages {
	k := &kstage.KernelStages{Available: true, Traced: 5}
	for i := uint64(1); i <= 4; i++ {
		d := [kstage.NumStages]uint64{1000 * i, 2000 * i, 3000 * i, 4000 * i, 5000 * i, 6000 * i}
		k.Add(&d)
	}
	k.Unjoined[kstage.LossIOWQ] = 1
	k.BPFRunNs, k.BPFRuns = 5000, 25
	return k
}

// TestKernelStagesJSON checks the "kernel_stages" object's shape: the join,
// the losses by name and one fio-shaped stat per stage, in order.
func TestKernelStagesJSON(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	printJSON(w, kernelStagesJSON(sampleKernelStages(), []float64{50, 99}), 0)
	w.Flush()
	var got struct {
		Available bool              `json:"available"`
		Traced    uint64            `json:"traced"`
		Joined    uint64            `json:"joined"`
		JoinRate  float64           `json:"join_rate"`
		Unjoined  map[string]uint64 `json:"unjoined"`
		PerIO     float64           `json:"bpf_ns_per_io"`
		Stages    map[string]struct {
			Mean float64           `json:"mean"`
			N    uint64            `json:"N"`
			Pct  map[string]uint64 `json:"percentile"`
		} `json:"stages_ns"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if !got.Available || got.Traced != 5 || got.Joined != 4 || got.JoinRate != 0.8 || got.Unjoined["iowq"] != 1 || got.PerIO != 1000 {
		t.Fatalf("join figures: %+v", got)
	}
	if len(got.Stages) != int(kstage.NumStages) {
		t.Fatalf("%d stages, want %d", len(got.Stages), kstage.NumStages)
	}
	if tw := got.Stages["tw"]; tw.N != 4 || tw.Mean != 12500 || tw.Pct["99.000000"] != fiostat.HistValue(fiostat.HistIndex(20000)) {
		t.Fatalf("tw stage: %+v", tw)
	}
	order := []string{}
	for s := kstage.Stage(0); s < kstage.NumStages; s++ {
		order = append(order, `"`+s.String()+`" : {`)
	}
	last := -1
	for _, s := range order {
		i := strings.Index(buf.String(), s)
		if i < last {
			t.Fatalf("stage %s out of order in\n%s", s, buf.String())
		}
		last = i
	}

	buf.Reset()
	w.Reset(&buf)
	printJSON(w, kernelStagesJSON(&kstage.KernelStages{Reason: "not root"}, nil), 0)
	w.Flush()
	if want := "{\n  \"available\" : false,\n  \"reason\" : \"not root\"\n}"; buf.String() != want {
		t.Fatalf("unavailable: %q, want %q", buf.String(), want)
	}
}

// TestKernelStagesNormal checks the "gofio kstage" lines: a join line and
// six stage lines, or one line saying why not.
func TestKernelStagesNormal(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	writeKernelStagesNormal(w, sampleKernelStages())
	w.Flush()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 1+int(kstage.NumStages) {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	if want := "  gofio kstage : joined=4/5 (80.00%), iowq=1"; lines[0] != want {
		t.Fatalf("join line %q, want %q", lines[0], want)
	}
	// fio's bins print their midpoints: 10000 and 20000 ns read 10048 and 20096.
	if want := "  gofio kstage : tw     (usec): avg=   12.50, p50=   10.05, p99=   20.10"; lines[1+int(kstage.TW)] != want {
		t.Fatalf("tw line %q, want %q", lines[1+int(kstage.TW)], want)
	}
	buf.Reset()
	w.Reset(&buf)
	writeKernelStagesNormal(w, &kstage.KernelStages{Reason: "no tracefs"})
	w.Flush()
	if want := "  gofio kstage : unavailable: no tracefs\n"; buf.String() != want {
		t.Fatalf("%q, want %q", buf.String(), want)
	}
}

// TestKernelStagesState checks that the exact state round-trips.
func TestKernelStagesState(t *testing.T) {
	k := sampleKernelStages()
	raw, err := json.Marshal(kernelStagesState(k))
	if err != nil {
		t.Fatal(err)
	}
	var st KernelStagesState
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	back, err := st.apply()
	if err != nil {
		t.Fatal(err)
	}
	if *back != *k {
		t.Fatalf("state round trip changed the stages")
	}

}

// TestTraceCostOnlyMeasured: the kernel tracers' cost (bpf_run_ns,
// bpf_runs, bpf_ns_per_io) is in their JSON only when it was measured
// (--kernel-trace-cost): a missing figure is not a free tracer.
func TestTraceCostOnlyMeasured(t *testing.T) {
	k := sampleKernelStages()
	l := sampleKernelLocks()
	k.BPFRunNs, k.BPFRuns, l.BPFRunNs, l.BPFRuns = 0, 0, 0, 0
	for name, o := range map[string]*jsonObject{"kernel_stages": kernelStagesJSON(k, []float64{50}), "kernel_locks": kernelLocksJSON(l)} {
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		printJSON(w, o, 0)
		w.Flush()
		if strings.Contains(buf.String(), `"bpf_`) {
			t.Errorf("%s without the cost measured:\n%s", name, buf.String())
		}
	}
}
