package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
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

// gofioLine writes one of gofio's own lines of the normal output: two
// spaces, "gofio ", label padded to 7, ": " and the text, e.g.
// "  gofio policy : tw=priority, dropped_cqes=0". It is the one way such a
// line is written, and the rule for where it goes is this: gofio's lines
// never come before or inside one of fio's blocks (the header, a job's
// block, a group's, the disk stats); a job's lines come as one group right
// after that job's block, written by writeExtrasNormal, which is where a
// new group of them (kernel stages, kernel locks) is added. Tools that read
// fio's text, and the strict reading of fio 3.33's grammar in the
// equivalence suite, see fio's blocks whole.
func gofioLine(w io.Writer, label, format string, args ...any) {
	fmt.Fprintf(w, "  gofio %-7s: "+format+"\n", append([]any{label}, args...)...)
}

// writeExtrasNormal writes gofio's own lines of job j, as one group right
// after the job's block (gofioLine says the rule).
func writeExtrasNormal(w *bufio.Writer, j *JobResult) {
	if p := policyName(j); p != "" {
		gofioLine(w, "policy", "tw=%s, dropped_cqes=%d", p, j.DroppedCQEs)
	}
	if j.InFlightTime > 0 {
		depth := 0
		if j.Job != nil {
			depth = j.Job.IODepth
		}
		gofioLine(w, "depth", "iodepth=%d, in flight=%.2f (mean over time of I/Os submitted and not reaped), reap=%s",
			depth, j.InFlightMean(), j.Reap)
	}
	if j.TWWait.N > 0 {
		unit, min, max, mean, dev := latScale(j.TWWait)
		gofioLine(w, "tw wait ("+unit+")", "min=%s, max=%s, avg=%5.02f, stdev=%5.02f, samples=%d",
			Num2Str(min, 6, 1, false, UnitNone), Num2Str(max, 6, 1, false, UnitNone), mean, dev, j.TWWait.N)
	}
	if shares := CPUBreakdown(j); len(shares) > 0 {
		parts := make([]string, len(shares))
		for i, s := range shares {
			parts[i] = fmt.Sprintf("%s(%d) usr=%3.2f%%, sys=%3.2f%%", s.Kind, s.Threads, s.UsrPct, s.SysPct)
		}
		gofioLine(w, "cpu", "%s", strings.Join(parts, ", "))
	}
	writeKernelStagesNormal(w, j.KernelStages)
	writeKernelLocksNormal(w, j.KernelLocks)
	writeResponseNormal(w, j)
	for _, n := range j.EngineNotes {
		gofioLine(w, "note", "%s", n)
	}
}
