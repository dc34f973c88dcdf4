package report

import (
	"bufio"
	"fmt"
)

// KStage is one kernel latency stage of an I/O, measured by the kernel's
// own io_uring and block tracepoints (internal/ktrace). The stages follow
// each other without gaps: their sum is the I/O's lat, from gofio's
// submission stamp to its harvest of the CQE.
type KStage int

// The kernel latency stages, in the order an I/O passes them.
const (
	// KStageEnter is gofio's submission stamp to the SQE taken by the
	// kernel (io_uring_submit_req); under SQPOLL, the SQ thread's pick-up.
	KStageEnter KStage = iota
	// KStageSubmit is the SQE taken to the bio queued (block_bio_queue).
	KStageSubmit
	// KStageQueue is the bio queued to the request issued to the device
	// (block_rq_issue).
	KStageQueue
	// KStageDevice is the request issued to its completion by the device
	// (block_rq_complete).
	KStageDevice
	// KStageTW is the device completion to the CQE posted
	// (io_uring_complete): the kernel's completion task-work wait.
	KStageTW
	// KStageReap is the CQE posted to gofio harvesting it.
	KStageReap
	// NumKStages is the number of stages.
	NumKStages
)

var kstageNames = [NumKStages]string{"enter", "submit", "queue", "device", "tw", "reap"}

// String is the stage's name as the outputs print it ("enter" ... "reap").
func (s KStage) String() string {
	if s < 0 || s >= NumKStages {
		return fmt.Sprintf("kstage(%d)", int(s))
	}
	return kstageNames[s]
}

// KLoss is one reason an I/O the tracer saw could not be joined across all
// the stages.
type KLoss int

// The reasons an I/O is not joined.
const (
	// KLossIOWQ is a request whose bio was not queued by the task that
	// submitted it: punted to an io-wq worker.
	KLossIOWQ KLoss = iota
	// KLossSplit is a request the block layer split into several bios.
	KLossSplit
	// KLossMerged is a request whose bio was merged into another request,
	// so no request of its own was issued.
	KLossMerged
	// KLossLost is a request some of whose events never arrived: dropped by
	// a full event ring, or in flight when the job ended.
	KLossLost
	// KLossUnreaped is a request the kernel completed that gofio's harvest
	// stamps could not be matched to.
	KLossUnreaped
	// NumKLoss is the number of reasons.
	NumKLoss
)

var klossNames = [NumKLoss]string{"iowq", "split", "merged", "lost", "unreaped"}

// String is the reason's name as the outputs print it.
func (k KLoss) String() string {
	if k < 0 || k >= NumKLoss {
		return fmt.Sprintf("kloss(%d)", int(k))
	}
	return klossNames[k]
}

// KernelStages is what the kernel's tracepoints measured of one job's I/Os
// (or of a reporting group's, merged): each stage's time as a Stat and a
// histogram in fio's latency bins, in nanoseconds, over the joined I/Os.
// The tracer discards I/Os of ramp_time itself, so this is kept across
// ResetIOStats. A JobResult holds nil when the job did not ask for stages.
type KernelStages struct {
	// Available is false when tracing could not run; Reason says why and
	// every count is zero.
	Available bool
	Reason    string
	// Traced counts the io_uring reads and writes the tracer saw the job
	// submit (after ramp_time), once each is settled; Joined those
	// measured across every stage; Unjoined the rest by reason: Traced =
	// Joined + sum(Unjoined).
	Traced   uint64
	Joined   uint64
	Unjoined [NumKLoss]uint64
	// LostEvents counts trace events the kernel dropped (full ring).
	LostEvents uint64
	Stages     [NumKStages]Stat
	Hists      [NumKStages]Hist
	// BPFRunNs and BPFRuns are the tracer's programs' run time and run
	// count in the kernel over the job (0 when the kernel's BPF statistics
	// could not be enabled): the tracing's cost.
	BPFRunNs uint64
	BPFRuns  uint64
	// DrainCPUNs is the CPU time of the thread that read the events and
	// joined them in user space: the rest of the tracing's cost.
	DrainCPUNs uint64
}

// JoinRate is the fraction of traced I/Os that were joined, 0 with none.
func (k *KernelStages) JoinRate() float64 {
	if k.Traced == 0 {
		return 0
	}
	return float64(k.Joined) / float64(k.Traced)
}

// BPFNsPerIO is the tracer's BPF run time per traced I/O in ns, 0 when not
// measured.
func (k *KernelStages) BPFNsPerIO() float64 {
	if k.Traced == 0 {
		return 0
	}
	return float64(k.BPFRunNs) / float64(k.Traced)
}

// Add counts one joined I/O whose stages took d (ns each).
func (k *KernelStages) Add(d *[NumKStages]uint64) {
	k.Joined++
	for s, v := range d {
		k.Stages[s].Add(v)
		k.Hists[s].Add(v)
	}
}

// Merge folds o into k (group_reporting, gofio merge). A group is
// available when any member was; the first member's reason stays.
func (k *KernelStages) Merge(o *KernelStages) {
	if o == nil {
		return
	}
	if !k.Available && !o.Available && k.Reason == "" {
		k.Reason = o.Reason
	}
	if o.Available {
		k.Available, k.Reason = true, ""
	}
	k.Traced += o.Traced
	k.Joined += o.Joined
	for i := range k.Unjoined {
		k.Unjoined[i] += o.Unjoined[i]
	}
	k.LostEvents += o.LostEvents
	for s := range k.Stages {
		k.Stages[s].Merge(o.Stages[s])
		k.Hists[s].Merge(&o.Hists[s])
	}
	k.BPFRunNs += o.BPFRunNs
	k.BPFRuns += o.BPFRuns
	k.DrainCPUNs += o.DrainCPUNs
}

// CostNsPerIO is the tracing's CPU time per traced I/O in ns, in the
// kernel's BPF programs and in the user-space drain together.
func (k *KernelStages) CostNsPerIO() float64 {
	if k.Traced == 0 {
		return 0
	}
	return float64(k.BPFRunNs+k.DrainCPUNs) / float64(k.Traced)
}

// KernelStagesJSONKey is the key of a job's kernel stages inside its
// "gofio" JSON object.
const KernelStagesJSONKey = "kernel_stages"

// kernelStagesJSON is the job's "gofio"."kernel_stages" object:
//
//	{"available": true, "traced": N, "joined": N, "join_rate": 0.999,
//	 "unjoined": {"iowq": 0, "split": 0, "merged": 0, "lost": 0, "unreaped": 0},
//	 "lost_events": 0, "bpf_run_ns": N, "bpf_runs": N, "bpf_ns_per_io": 1700.0,
//	 "drain_cpu_ns": N, "cost_ns_per_io": 2500.0,
//	 "stages_ns": {"enter": STAT, "submit": STAT, "queue": STAT,
//	               "device": STAT, "tw": STAT, "reap": STAT}}
//
// where STAT is the shape of fio's clat_ns (min, max, mean, stddev, N,
// percentile). Unavailable, it is {"available": false, "reason": "..."}.
func kernelStagesJSON(k *KernelStages, plist []float64) *jsonObject {
	o := &jsonObject{}
	o.addBool("available", k.Available)
	if !k.Available {
		o.addString("reason", k.Reason)
		return o
	}
	o.addInt("traced", k.Traced)
	o.addInt("joined", k.Joined)
	o.addFloat("join_rate", k.JoinRate())
	u := &jsonObject{}
	for i, n := range k.Unjoined {
		u.addInt(KLoss(i).String(), n)
	}
	o.add("unjoined", u)
	o.addInt("lost_events", k.LostEvents)
	o.addInt("bpf_run_ns", k.BPFRunNs)
	o.addInt("bpf_runs", k.BPFRuns)
	o.addFloat("bpf_ns_per_io", k.BPFNsPerIO())
	o.addInt("drain_cpu_ns", k.DrainCPUNs)
	o.addFloat("cost_ns_per_io", k.CostNsPerIO())
	st := &jsonObject{}
	for s := range k.Stages {
		st.add(KStage(s).String(), statJSON(k.Stages[s], &k.Hists[s], true, plist, false))
	}
	o.add("stages_ns", st)
	return o
}

// KStagePercentiles are the percentiles the normal output prints per stage.
var KStagePercentiles = []float64{50, 99}

// writeKernelStagesNormal writes the job's "gofio kstage" lines: one with
// the join, then one per stage with its mean, p50 and p99 in µs.
func writeKernelStagesNormal(w *bufio.Writer, k *KernelStages) {
	if k == nil {
		return
	}
	if !k.Available {
		fmt.Fprintf(w, "  gofio kstage : unavailable: %s\n", k.Reason)
		return
	}
	fmt.Fprintf(w, "  gofio kstage : joined=%d/%d (%.2f%%)", k.Joined, k.Traced, 100*k.JoinRate())
	for i, n := range k.Unjoined {
		if n > 0 {
			fmt.Fprintf(w, ", %s=%d", KLoss(i), n)
		}
	}
	if k.LostEvents > 0 {
		fmt.Fprintf(w, ", lost_events=%d", k.LostEvents)
	}
	fmt.Fprint(w, "\n")
	for s := range k.Stages {
		st := &k.Stages[s]
		var p [2]uint64
		if st.N > 0 {
			v, _, _ := Percentiles(&k.Hists[s], st.N, KStagePercentiles)
			p[0], p[1] = v[0], v[1]
		}
		fmt.Fprintf(w, "  gofio kstage : %-6s (usec): avg=%8.02f, p50=%8.02f, p99=%8.02f\n",
			KStage(s), st.Mean/1000, float64(p[0])/1000, float64(p[1])/1000)
	}
}

// KernelStagesState is the exact state of a KernelStages inside a JobState.
type KernelStagesState struct {
	Available  bool                  `json:"available"`
	Reason     string                `json:"reason,omitempty"`
	Traced     uint64                `json:"traced"`
	Joined     uint64                `json:"joined"`
	Unjoined   [NumKLoss]uint64      `json:"unjoined"`
	LostEvents uint64                `json:"lost_events"`
	Stages     [NumKStages]StatState `json:"stages"`
	BPFRunNs   uint64                `json:"bpf_run_ns"`
	BPFRuns    uint64                `json:"bpf_runs"`
	DrainCPUNs uint64                `json:"drain_cpu_ns"`
}

func kernelStagesState(k *KernelStages) *KernelStagesState {
	if k == nil {
		return nil
	}
	s := &KernelStagesState{Available: k.Available, Reason: k.Reason, Traced: k.Traced, Joined: k.Joined,
		Unjoined: k.Unjoined, LostEvents: k.LostEvents, BPFRunNs: k.BPFRunNs, BPFRuns: k.BPFRuns, DrainCPUNs: k.DrainCPUNs}
	for i := range k.Stages {
		s.Stages[i] = statState(k.Stages[i], &k.Hists[i])
	}
	return s
}

func (s *KernelStagesState) apply() (*KernelStages, error) {
	if s == nil {
		return nil, nil
	}
	k := &KernelStages{Available: s.Available, Reason: s.Reason, Traced: s.Traced, Joined: s.Joined,
		Unjoined: s.Unjoined, LostEvents: s.LostEvents, BPFRunNs: s.BPFRunNs, BPFRuns: s.BPFRuns, DrainCPUNs: s.DrainCPUNs}
	for i := range s.Stages {
		if err := s.Stages[i].apply(&k.Stages[i], &k.Hists[i]); err != nil {
			return nil, fmt.Errorf("kernel stage %s: %w", KStage(i), err)
		}
	}
	return k, nil
}
