package report

import (
	"bufio"
	"fmt"

	"github.com/gofio/gofio/internal/kstage"
)

// KernelStagesJSONKey is the key of a job's kernel stages inside its
// "gofio" JSON object.
const KernelStagesJSONKey = "kernel_stages"

// kernelStagesJSON is the job's "gofio"."kernel_stages" object:
//
//	{"available": true, "sampled_one_in": 8, "traced": N, "joined": N, "join_rate": 0.999,
//	 "unjoined": {"iowq": 0, "split": 0, "merged": 0, "lost": 0, "unreaped": 0},
//	 "in_flight": 0, "lost_events": 0, "bpf_run_ns": N, "bpf_runs": N,
//	 "bpf_ns_per_io": 900.0,
//	 "stages_ns": {"enter": STAT, "submit": STAT, "queue": STAT,
//	               "device": STAT, "tw": STAT, "reap": STAT}}
//
// where STAT is the shape of fio's clat_ns (min, max, mean, stddev, N,
// percentile); sampled_one_in is kernel_stages_sample (1 in it of the
// job's reads and writes traced, the rest counted nowhere here); the bpf_
// keys, the tracing's cost, only when it was measured
// (--kernel-trace-cost), bpf_ns_per_io over every I/O of the job. Unavailable, it is {"available": false,
// "reason": "..."}.
func kernelStagesJSON(k *kstage.KernelStages, plist []float64) *jsonObject {
	o := &jsonObject{}
	o.addBool("available", k.Available)
	if !k.Available {
		o.addString("reason", k.Reason)
		return o
	}
	o.addInt("sampled_one_in", max(1, k.Sample))
	o.addInt("traced", k.Traced)
	o.addInt("joined", k.Joined)
	o.addFloat("join_rate", k.JoinRate())
	u := &jsonObject{}
	for i, n := range k.Unjoined {
		u.addInt(kstage.Loss(i).String(), n)
	}
	o.add("unjoined", u)
	o.addInt("in_flight", k.InFlight)
	o.addInt("lost_events", k.LostEvents)
	if k.BPFRuns > 0 {
		o.addInt("bpf_run_ns", k.BPFRunNs)
		o.addInt("bpf_runs", k.BPFRuns)
		o.addFloat("bpf_ns_per_io", k.BPFNsPerIO())
	}
	st := &jsonObject{}
	for s := range k.Stages {
		st.add(kstage.Stage(s).String(), statJSON(k.Stages[s], &k.Hists[s], true, plist, false))
	}
	o.add("stages_ns", st)
	return o
}

// KStagePercentiles are the percentiles the normal output prints per stage.
var KStagePercentiles = []float64{50, 99}

// writeKernelStagesNormal writes the job's "gofio kstage" lines: one with
// the join, then one per stage with its mean, p50 and p99 in µs.
func writeKernelStagesNormal(w *bufio.Writer, k *kstage.KernelStages) {
	if k == nil || writeUnavailable(w, "kstage", k.Available, k.Reason) {
		return
	}
	joined := fmt.Sprintf("joined=%d/%d (%.2f%%)", k.Joined, k.Traced, 100*k.JoinRate())
	if k.Sample > 1 {
		joined += fmt.Sprintf(" of 1 in %d I/Os traced", k.Sample)
	}
	for i, n := range k.Unjoined {
		if n > 0 {
			joined += fmt.Sprintf(", %s=%d", kstage.Loss(i), n)
		}
	}
	if k.InFlight > 0 {
		joined += fmt.Sprintf(", in_flight=%d", k.InFlight)
	}
	if k.LostEvents > 0 {
		joined += fmt.Sprintf(", lost_events=%d", k.LostEvents)
	}
	gofioLine(w, "kstage", "%s", joined)
	for s := range k.Stages {
		st := &k.Stages[s]
		var p [2]uint64
		if st.N > 0 {
			v, _, _ := Percentiles(&k.Hists[s], st.N, KStagePercentiles)
			p[0], p[1] = v[0], v[1]
		}
		gofioLine(w, "kstage", "%-6s (usec): avg=%8.02f, p50=%8.02f, p99=%8.02f",
			kstage.Stage(s), st.Mean/1000, float64(p[0])/1000, float64(p[1])/1000)
	}
}

// KernelStagesState is the exact state of a KernelStages inside a JobState.
type KernelStagesState struct {
	Available  bool                        `json:"available"`
	Reason     string                      `json:"reason,omitempty"`
	Traced     uint64                      `json:"traced"`
	Joined     uint64                      `json:"joined"`
	Unjoined   [kstage.NumLosses]uint64    `json:"unjoined"`
	InFlight   uint64                      `json:"in_flight,omitempty"`
	LostEvents uint64                      `json:"lost_events"`
	Stages     [kstage.NumStages]StatState `json:"stages"`
	BPFRunNs   uint64                      `json:"bpf_run_ns"`
	BPFRuns    uint64                      `json:"bpf_runs"`
}

func kernelStagesState(k *kstage.KernelStages) *KernelStagesState {
	if k == nil {
		return nil
	}
	s := &KernelStagesState{Available: k.Available, Reason: k.Reason, Traced: k.Traced, Joined: k.Joined,
		Unjoined: k.Unjoined, InFlight: k.InFlight, LostEvents: k.LostEvents, BPFRunNs: k.BPFRunNs, BPFRuns: k.BPFRuns}
	for i := range k.Stages {
		s.Stages[i] = statState(k.Stages[i], &k.Hists[i])
	}
	return s
}

func (s *KernelStagesState) apply() (*kstage.KernelStages, error) {
	if s == nil {
		return nil, nil
	}
	k := &kstage.KernelStages{Available: s.Available, Reason: s.Reason, Traced: s.Traced, Joined: s.Joined,
		Unjoined: s.Unjoined, InFlight: s.InFlight, LostEvents: s.LostEvents, BPFRunNs: s.BPFRunNs, BPFRuns: s.BPFRuns}
	for i := range s.Stages {
		if err := s.Stages[i].apply(&k.Stages[i], &k.Hists[i]); err != nil {
			return nil, fmt.Errorf("kernel stage %s: %w", kstage.Stage(i), err)
		}
	}
	return k, nil
}

// writeUnavailable writes a kernel tracer's "gofio TAG unavailable:
// REASON" line when it could not trace (not available), and reports
// whether it wrote it: the tracer's figures are then all zero.
func writeUnavailable(w *bufio.Writer, tag string, available bool, reason string) bool {
	if !available {
		gofioLine(w, tag, "unavailable: %s", reason)
	}
	return !available
}
