package report

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/gofio/gofio/internal/klock"
)

// This file writes a job's kernel lock contention (klock.Locks,
// kernel_locks=1): the "gofio klock" lines of the normal output and the
// "gofio"."kernel_locks" JSON object.

// KernelLocksJSONKey is the key of a job's kernel lock contention inside
// its "gofio" JSON object.
const KernelLocksJSONKey = "kernel_locks"

// KLockTopSites is how many sites the normal output lists.
const KLockTopSites = 5

// kernelLocksJSON is the job's "gofio"."kernel_locks" object:
//
//	{"available": true, "contentions": N, "contentions_per_io": 0.08,
//	 "wait_ns": N, "wait_ns_per_io": 27.4, "spin_ns": N, "cpu_ns": N,
//	 "wait_share": 0.21, "ios": N, "threads": 6, "lost_events": 0,
//	 "bpf_run_ns": N, "bpf_runs": N, "bpf_ns_per_io": 12.0,
//	 "subsystems": [{"subsystem": "io-wq", "sites": 3, "count": N, "wait_ns": N}, ...],
//	 "sites": [{"site": "io_wq_enqueue", "subsystem": "io-wq", "count": N, "wait_ns": N, "spin_ns": N}, ...]}
//
// wait_share is spin_ns / cpu_ns; the bpf_ keys, the tracing's cost, are
// there only when it was measured (--kernel-trace-cost). Unavailable, it is
// {"available": false, "reason": "..."}.
func kernelLocksJSON(l *klock.Locks) *jsonObject {
	o := &jsonObject{}
	o.addBool("available", l.Available)
	if !l.Available {
		o.addString("reason", l.Reason)
		return o
	}
	if l.Note != "" {
		o.addString("note", l.Note)
	}
	o.addInt("contentions", l.Contentions)
	o.addFloat("contentions_per_io", l.ContentionsPerIO())
	o.addInt("wait_ns", l.WaitNs)
	o.addFloat("wait_ns_per_io", l.WaitNsPerIO())
	o.addInt("spin_ns", l.SpinNs)
	o.addInt("cpu_ns", l.CPUNs)
	o.addFloat("wait_share", l.WaitShare())
	o.addInt("ios", l.IOs)
	o.addInt("threads", uint64(l.Threads))
	o.addInt("lost_events", l.LostEvents)
	if l.BPFRuns > 0 {
		o.addInt("bpf_run_ns", l.BPFRunNs)
		o.addInt("bpf_runs", l.BPFRuns)
		o.addFloat("bpf_ns_per_io", l.BPFNsPerIO())
	}
	subs := jsonArray{}
	for _, t := range l.BySubsystem() {
		s := &jsonObject{}
		s.addString("subsystem", string(t.Subsystem))
		s.addInt("sites", uint64(t.Sites))
		s.addInt("count", t.Count)
		s.addInt("wait_ns", t.WaitNs)
		subs = append(subs, s)
	}
	o.add("subsystems", subs)
	sites := jsonArray{}
	for _, st := range l.Sites {
		s := &jsonObject{}
		s.addString("site", st.Name)
		s.addString("subsystem", string(st.Subsystem))
		s.addInt("count", st.Count)
		s.addInt("wait_ns", st.WaitNs)
		s.addInt("spin_ns", st.SpinNs)
		sites = append(sites, s)
	}
	o.add("sites", sites)
	return o
}

// share is part/whole in percent, 0 for an empty whole.
func share(part, whole uint64) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}

// writeKernelLocksNormal writes the job's "gofio klock" lines: the totals
// per I/O and as a share of CPU, the wait by subsystem, then the sites
// waited on most.
func writeKernelLocksNormal(w *bufio.Writer, l *klock.Locks) {
	if l == nil || writeUnavailable(w, "klock", l.Available, l.Reason) {
		return
	}
	total := fmt.Sprintf("contentions=%d (%.4f/IO), wait=%.2f ms (%.1f ns/IO), spin=%.2f%% of CPU (%d threads, %.2f ms)",
		l.Contentions, l.ContentionsPerIO(), float64(l.WaitNs)/1e6, l.WaitNsPerIO(), 100*l.WaitShare(), l.Threads,
		float64(l.CPUNs)/1e6)
	if l.LostEvents > 0 {
		total += fmt.Sprintf(", lost_events=%d", l.LostEvents)
	}
	gofioLine(w, "klock", "%s", total)
	if l.Contentions == 0 {
		return
	}
	var parts []string
	for _, t := range l.BySubsystem() {
		parts = append(parts, fmt.Sprintf("%s=%.1f%% (%d in %d sites)", t.Subsystem, share(t.WaitNs, l.WaitNs), t.Count, t.Sites))
	}
	gofioLine(w, "klock", "wait by subsystem: %s", strings.Join(parts, ", "))
	for _, s := range l.Top(KLockTopSites) {
		gofioLine(w, "klock", "%-28s %-8s count=%d, wait=%.2f ms (%.1f%%), avg=%.2f us", s.Name, s.Subsystem,
			s.Count, float64(s.WaitNs)/1e6, share(s.WaitNs, l.WaitNs), float64(s.WaitNs)/float64(s.Count)/1000)
	}
}
