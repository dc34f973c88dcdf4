package run

import (
	"fmt"
	"os"
	"strconv"

	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/internal/ktrace"
	"github.com/gofio/gofio/internal/target"
	"github.com/gofio/gofio/jobfile"
)

// kernelStagesBlocker says why the job's I/O cannot be traced whatever the
// kernel, "" when it can.
func kernelStagesBlocker(j *jobfile.Job, l *loop, targets []*target.Target) string {
	switch {
	case !j.Engine().Traced:
		return fmt.Sprintf("ioengine=%s: kernel stages trace io_uring requests only", j.IOEngine)
	case l.noIO || len(targets) == 0:
		return "the job has no file to trace"
	}
	return ""
}

// startKernelStages starts the job's tracer before its first I/O when the
// job asks for kernel stages. Tracing that cannot run leaves a result
// saying why and a note, or, with kernel_stages=required, fails the job.
func (jr *jobRun) startKernelStages(e *env, p *prepared, l *loop) *joberr.Error {
	j := jr.job
	mode := j.KernelStages.Or(e.opts.KernelStages)
	if mode == jobfile.TracerOff {
		return nil
	}
	var err error
	var kt *ktrace.Tracer
	if why := kernelStagesBlocker(j, l, jr.targets); why != "" {
		err = &ktrace.Unavailable{Reason: why}
	} else {
		tids, noSQ := tracedThreads(j, p, l)
		if noSQ {
			err = &ktrace.Unavailable{Reason: "sqthread_poll: the kernel's SQ thread (iou-sqp-" + strconv.Itoa(p.tid) + ") was not found"}
		} else {
			paths := make([]string, len(jr.targets))
			for i, tg := range jr.targets {
				paths[i] = tg.Path
			}
			kt, err = ktrace.Open(ktrace.Config{Targets: paths, Tids: tids, Slots: len(l.slots), Euid: os.Geteuid(), Sample: j.KernelStagesSample,
				OnJoin: e.opts.kstage, TracefsOnly: e.opts.kstagesTracefs, Stats: e.opts.KernelTraceCost})
		}
	}
	if err != nil {
		ks := ktrace.Unavailability(err)
		return tracerUnavailable(e, j, mode, "kernel_stages", "kernel stages", ks.Reason, err, &jr.res.KernelStages, ks)
	}
	l.kt = kt
	// The stages meet gofio's own stamps: read the kernel's clock
	// (CLOCK_MONOTONIC, bpf_ktime_get_ns), not a calibrated TSC.
	l.tsc = nil
	return nil
}

// stopKernelStages stops the job's tracer and puts its stages in the
// result, with a note of what the tracing cost when it was measured
// (--kernel-trace-cost).
func (l *loop) stopKernelStages() {
	if l.kt == nil {
		return
	}
	ks := l.kt.Close()
	l.kt = nil
	l.res.KernelStages = ks
	if ks.Traced == 0 || ks.BPFRuns == 0 {
		return
	}
	l.res.EngineNotes = append(l.res.EngineNotes, fmt.Sprintf(
		"kernel stages: tracing cost %.2f us of CPU per I/O in the kernel (BPF programs, %d runs); bench/results.md has its IOPS cost",
		ks.BPFNsPerIO()/1000, ks.BPFRuns))
}
