package kstage

import "github.com/gofio/gofio/internal/fiostat"

// KernelStages is what the kernel's tracepoints measured of one job's I/Os
// (or of a reporting group's, merged): each stage's time as a Stat and a
// histogram in fio's latency bins, in nanoseconds, over the joined I/Os.
// The tracer discards I/Os of ramp_time itself, so this is kept across
// report's ResetIOStats. A job's result holds nil when the job did not ask
// for stages.
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
	Unjoined [NumLosses]uint64
	// InFlight counts the reads and writes still in flight when tracing
	// stopped: submitted, never completed (not part of Traced).
	InFlight uint64
	// LostEvents counts events the tracer missed: those the kernel
	// skipped one of its programs for (another BPF program ran on the
	// CPU), and block events it could not follow (a sector key its map
	// had no room for).
	LostEvents uint64
	Stages     [NumStages]fiostat.Stat
	Hists      [NumStages]fiostat.Hist
	// BPFRunNs and BPFRuns are the tracer's programs' run time and run
	// count in the kernel over the job (0 when the kernel's BPF statistics
	// could not be enabled): the tracing's cost. The programs join the
	// I/Os themselves; the job only reads each I/O's stamps from memory
	// they share when it harvests it.
	BPFRunNs uint64
	BPFRuns  uint64
	// Sample is kernel_stages_sample: 1 in Sample of the job's reads and
	// writes was traced, drawn at random when it was submitted, and the
	// counts and stages above are of those; 0 or 1 is every one.
	Sample uint64
}

// JoinRate is the fraction of traced I/Os that were joined, 0 with none.
func (k *KernelStages) JoinRate() float64 {
	if k.Traced == 0 {
		return 0
	}
	return float64(k.Joined) / float64(k.Traced)
}

// BPFNsPerIO is the tracer's BPF run time per I/O of the job in ns (the
// programs run on every I/O's events, traced or not: the I/Os are counted
// as Traced times Sample), 0 when not measured.
func (k *KernelStages) BPFNsPerIO() float64 {
	if k.Traced == 0 {
		return 0
	}
	return float64(k.BPFRunNs) / float64(k.Traced*max(1, k.Sample))
}

// Add counts one joined I/O whose stages took d (ns each).
func (k *KernelStages) Add(d *[NumStages]uint64) {
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
	if k.Sample == 0 {
		k.Sample = o.Sample
	}
	k.Traced += o.Traced
	k.Joined += o.Joined
	for i := range k.Unjoined {
		k.Unjoined[i] += o.Unjoined[i]
	}
	k.InFlight += o.InFlight
	k.LostEvents += o.LostEvents
	for s := range k.Stages {
		k.Stages[s].Merge(o.Stages[s])
		k.Hists[s].Merge(&o.Hists[s])
	}
	k.BPFRunNs += o.BPFRunNs
	k.BPFRuns += o.BPFRuns
}
