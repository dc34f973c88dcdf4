package run

import (
	"sync/atomic"
	"time"
)

// This file holds fio's flow control (flow=, flow_id=, flow_sleep=):
// flowHeld is the loop's hook at issue.

// flowState is one flow_id shared by the jobs of a run, as fio's struct
// fio_flow: a counter of the I/Os its jobs issued (starting at 1) and the
// sum of their weights.
type flowState struct {
	counter atomic.Int64
	weight  atomic.Int64
}

// planFlows gives every job with flow= its flow_id's shared state, with the
// weights of every job of the run added in, as fio's flow_init_job does at
// job setup.
func planFlows(runs []*jobRun) {
	flows := map[int]*flowState{}
	for _, jr := range runs {
		f := jr.job.Flow
		if f.Weight == 0 {
			continue
		}
		st := flows[f.ID]
		if st == nil {
			st = &flowState{}
			st.counter.Store(1)
			flows[f.ID] = st
		}
		st.weight.Add(int64(f.Weight))
		jr.flow = st
	}
}

// flowHeld applies fio's flow_threshold_exceeded before an I/O: a job whose
// share of its flow's I/Os is above its share of the weights waits
// (flow_sleep, or 100us) and is asked again; otherwise the I/O counts.
func (l *loop) flowHeld(si uint32) bool {
	if l.flow.state == nil || l.flow.passed {
		// An I/O the flow admitted that then waited for its rate is not
		// counted twice: fio sleeps for the rate inside get_io_u, after
		// flow_threshold_exceeded let the I/O through.
		return false
	}
	return l.flowAdmit(si)
}

// flowAdmit is flowHeld for a job in a flow, kept out of line so that a
// job without flow= pays one inlined test per I/O.
func (l *loop) flowAdmit(si uint32) bool {
	if l.flow.state.admit(l.flow.count, int64(l.job.Flow.Weight)) {
		l.flow.passed = true
		return false
	}
	wait := l.job.Flow.Sleep
	if wait <= 0 {
		wait = 100 * time.Microsecond
	}
	l.rateWait(si, int64(wait))
	return true
}

// admit is fio's flow_threshold_exceeded for one job of the flow: the job,
// with weight and issued I/Os counted so far, may issue one more unless
// its share of the flow's I/Os is above its share of the weights. An
// admitted I/O is counted in issued and in the flow.
func (f *flowState) admit(issued *atomic.Int64, weight int64) bool {
	if float64(issued.Load())/float64(f.counter.Load()) > float64(weight)/float64(f.weight.Load()) {
		return false
	}
	f.counter.Add(1)
	issued.Add(1)
	return true
}

// leaveFlow takes the job's I/Os and weight out of its flow once its
// goroutine is done, after its exitall, as fio's reap_threads calls
// flow_exit_job for a thread that has exited: until then the others stay
// held back by it. A job that failed to start leaves too, so that it does
// not hold the others forever.
func (jr *jobRun) leaveFlow() {
	if jr.flow == nil {
		return
	}
	jr.flow.counter.Add(-jr.flowIssued.Load())
	jr.flow.weight.Add(-int64(jr.job.Flow.Weight))
	jr.flow = nil
}
