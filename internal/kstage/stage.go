package kstage

import "fmt"

// Stage is one kernel latency stage of an I/O, measured by the kernel's
// own io_uring and block tracepoints (internal/ktrace). The stages follow
// each other without gaps: their sum is the I/O's lat, from gofio's
// submission stamp to its harvest of the CQE.
type Stage int

// The kernel latency stages, in the order an I/O passes them.
const (
	// Enter is gofio's submission stamp to the SQE taken by the
	// kernel (io_uring_submit_req); under SQPOLL, the SQ thread's pick-up.
	Enter Stage = iota
	// Submit is the SQE taken to the bio queued (block_bio_queue).
	Submit
	// Queue is the bio queued to the request issued to the device
	// (block_rq_issue).
	Queue
	// Device is the request issued to its completion by the device
	// (block_rq_complete).
	Device
	// TW is the device completion to the CQE posted
	// (io_uring_complete): the kernel's completion task-work wait.
	TW
	// Reap is the CQE posted to gofio harvesting it.
	Reap
	// NumStages is the number of stages.
	NumStages
)

// stageNames is each stage's name. Its type fails to compile when a stage
// is added at the end without a name; TestNames fails on one added in
// between.
var stageNames [NumStages]string = [...]string{Enter: "enter", Submit: "submit", Queue: "queue",
	Device: "device", TW: "tw", Reap: "reap"}

// String is the stage's name as the outputs print it ("enter" ... "reap").
func (s Stage) String() string {
	if s < 0 || s >= NumStages {
		return fmt.Sprintf("kstage(%d)", int(s))
	}
	return stageNames[s]
}

// Loss is one reason an I/O the tracer saw could not be joined across all
// the stages.
type Loss int

// The reasons an I/O is not joined.
const (
	// LossIOWQ is a request whose bio was not queued by the task that
	// submitted it: punted to an io-wq worker.
	LossIOWQ Loss = iota
	// LossSplit is a request the block layer split into several bios.
	LossSplit
	// LossMerged is a request whose bio was merged into another request,
	// so no request of its own was issued.
	LossMerged
	// LossLost is a request some of whose events never reached the
	// tracer (its completion, or its block request's issue or completion)
	// or came out of order.
	LossLost
	// LossUnreaped is a request the kernel completed that gofio's harvest
	// stamps could not be matched to.
	LossUnreaped
	// NumLosses is the number of reasons.
	NumLosses
)

// lossNames is each reason's name, checked as stageNames is.
var lossNames [NumLosses]string = [...]string{LossIOWQ: "iowq", LossSplit: "split", LossMerged: "merged",
	LossLost: "lost", LossUnreaped: "unreaped"}

// String is the reason's name as the outputs print it.
func (k Loss) String() string {
	if k < 0 || k >= NumLosses {
		return fmt.Sprintf("kloss(%d)", int(k))
	}
	return lossNames[k]
}
