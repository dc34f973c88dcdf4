package report

import (
	"bufio"
	"fmt"
	"time"
)

// policyName is the task-work policy of a job ("priority" or "fifo").
func policyName(j *JobResult) string {
	if j.Policy != "" {
		return j.Policy
	}
	if j.Job == nil {
		return ""
	}
	return j.Job.Policy().String()
}

// threadKinds are the kinds of ThreadCPU.Kind, in report order: the job
// thread, the kernel SQPOLL thread and the io-wq workers.
var threadKinds = []string{"job", "sqpoll", "iowq"}

// CPUShare is the CPU time of all threads of one kind, and that time as a
// percentage of one core over the job's run time.
type CPUShare struct {
	Kind     string
	Threads  int
	Usr, Sys time.Duration
	UsrPct   float64
	SysPct   float64
}

// CPUBreakdown sums j.Threads by kind, in threadKinds order, leaving out
// kinds without threads.
func CPUBreakdown(j *JobResult) []CPUShare {
	var out []CPUShare
	for _, k := range threadKinds {
		s := CPUShare{Kind: k}
		for _, t := range j.Threads {
			if t.Kind == k {
				s.Threads++
				s.Usr += t.Usr
				s.Sys += t.Sys
			}
		}
		if s.Threads == 0 {
			continue
		}
		if j.JobRuntime > 0 {
			s.UsrPct = float64(s.Usr) * 100 / float64(j.JobRuntime)
			s.SysPct = float64(s.Sys) * 100 / float64(j.JobRuntime)
		}
		out = append(out, s)
	}
	return out
}

// writeExtrasNormal writes gofio's own lines at the end of a job block.
// Every line starts with "  gofio ", so fio-reading scripts skip them.
func writeExtrasNormal(w *bufio.Writer, j *JobResult) {
	if p := policyName(j); p != "" {
		fmt.Fprintf(w, "  gofio policy : tw=%s, dropped_cqes=%d\n", p, j.DroppedCQEs)
	}
	if j.InFlightTime > 0 {
		depth := 0
		if j.Job != nil {
			depth = j.Job.IODepth
		}
		fmt.Fprintf(w, "  gofio depth  : iodepth=%d, in flight=%.2f (mean over time of I/Os submitted and not reaped), reap=%s\n",
			depth, j.InFlightMean(), j.Reap)
	}
	if j.TWWait.N > 0 {
		unit, min, max, mean, dev := latScale(j.TWWait)
		fmt.Fprintf(w, "  gofio tw wait (%s): min=%s, max=%s, avg=%5.02f, stdev=%5.02f, samples=%d\n", unit,
			Num2Str(min, 6, 1, false, UnitNone), Num2Str(max, 6, 1, false, UnitNone), mean, dev, j.TWWait.N)
	}
	if shares := CPUBreakdown(j); len(shares) > 0 {
		fmt.Fprint(w, "  gofio cpu    :")
		for i, s := range shares {
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(w, "%s %s(%d) usr=%3.2f%%, sys=%3.2f%%", sep, s.Kind, s.Threads, s.UsrPct, s.SysPct)
		}
		fmt.Fprint(w, "\n")
	}
	writeKernelStagesNormal(w, j.KernelStages)
	writeKernelLocksNormal(w, j.KernelLocks)
	for _, n := range j.EngineNotes {
		fmt.Fprintf(w, "  gofio note   : %s\n", n)
	}
}
