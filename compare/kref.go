package compare

import (
	"context"
	"slices"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// SideKernel is the kernel's own SQPOLL reference of a comparison: the job
// run plain on the kernel's SQPOLL thread at every point, beside the two
// sides that run gofio's model (report.ComparisonRow.Kernel). It is not
// judged.
const SideKernel = SideOld + 1

// kernelRefSets are the overrides that make a point's run the kernel's
// reference: the kernel's SQPOLL thread, not gofio's goroutine.
var kernelRefSets = []string{"sqthread_poll=1", "tw_thread=kernel"}

// modelKeys are the options a comparison of gofio's model compares: they
// order the goroutine's task work and change nothing under the kernel's
// own SQPOLL thread, so the reference is the same job for both sides.
var modelKeys = []string{"tw_priority", "tw_list"}

// sqKeys decide who plays the SQ thread or what runs: a sweep of one
// already varies what the reference would hold fixed.
var sqKeys = []string{"sqthread_poll", "sqpoll", "tw_thread", "taskrun_mode", "ioengine"}

// WantsKernelRef reports whether a comparison gets the kernel's reference:
// it compares the model's options (tw_priority, tw_list), sweeps nothing
// that decides the SQ thread, and every job plays its SQ thread with
// gofio's goroutine under --compare (io_uring, sqthread_poll=1,
// tw_thread=auto or goroutine).
func WantsKernelRef(ab *AB, sweeps []Sweep, jobs []*jobfile.Job) bool {
	if ab == nil || !slices.Contains(modelKeys, ab.Key) || len(jobs) == 0 {
		return false
	}
	for _, s := range sweeps {
		if slices.Contains(sqKeys, s.Key) {
			return false
		}
	}
	for _, j := range jobs {
		if j.IOEngine != "io_uring" || !j.SQThreadPoll || j.TWThread != "" && j.TWThread != "auto" && j.TWThread != "goroutine" {
			return false
		}
	}
	return true
}

// WithKernelRef adds the kernel's reference to a plan: after the runs of
// both sides in each repeat of each point, one run of the point's swept
// values with kernelRefSets, named report.KernelRefName.
func WithKernelRef(points []Point) []Point {
	out := make([]Point, 0, len(points)+len(points)/2)
	for i, p := range points {
		out = append(out, p)
		if i+1 < len(points) && points[i+1].Row == p.Row && points[i+1].Repeat == p.Repeat {
			continue
		}
		out = append(out, kernelRefPoint(p))
	}
	for i := range out {
		out[i].Index = i
	}
	return out
}

// kernelRefPoint is the kernel's reference of the point p of a side: its
// swept values with kernelRefSets, named report.KernelRefName.
func kernelRefPoint(p Point) Point {
	k := p
	k.Side, k.Name, k.Set = SideKernel, report.KernelRefName, "tw_thread=kernel"
	k.Sets = append(append([]string(nil), p.Sets[:len(p.Keys)]...), kernelRefSets...)
	return k
}

// runKernelRef runs row r's kernel reference for its round, when the
// rounds have one and the round is one of the first MinRounds (--repeat):
// the reference is described, not judged, and needs no more.
func (rr *roundRun) runKernelRef(ctx context.Context, r *roundRow) error {
	if !rr.rs.KernelRef || r.rounds >= rr.rs.Design.MinRounds {
		return nil
	}
	p := kernelRefPoint(r.sides[0])
	p.Index, p.Repeat, p.Repeats = rr.index, r.rounds, rr.rs.Design.MinRounds
	rr.index++
	return rr.b.runPoint(ctx, p, rr.run, rr.onResult)
}
