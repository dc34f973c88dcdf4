package report

import (
	"slices"

	"github.com/gofio/gofio/jobfile"
)

// The values of JobResult.TaskRun and ComparisonSide.TaskRun: how the
// kernel ran a ring's completion task work, named as taskrun_mode names
// the modes, and what the ring really got (a kernel that refused a flag
// shows here), not what the job asked for.
const (
	TaskRunNone   = jobfile.TaskrunNone   // no task-run flag, no SQPOLL
	TaskRunCoop   = jobfile.TaskrunCoop   // COOP_TASKRUN
	TaskRunDefer  = jobfile.TaskrunDefer  // DEFER_TASKRUN
	TaskRunSQPoll = jobfile.TaskrunSQPoll // the kernel's SQPOLL thread
	// TaskRunModel is gofio's SQPOLL goroutine (tw_thread=goroutine): the
	// model, on a ring with no task-run flag.
	TaskRunModel = "goroutine"
)

// TaskRunOf names the task-run mode of a ring from its setup flags as
// uring.FlagNames spells them and what played its SQ thread (SQGoroutine
// gives TaskRunModel); "" without flags (not an io_uring job).
func TaskRunOf(setupFlags []string, sqThread string) string {
	switch {
	case sqThread == SQGoroutine:
		return TaskRunModel
	case len(setupFlags) == 0:
		return ""
	case slices.Contains(setupFlags, "SQPOLL"):
		return TaskRunSQPoll
	case slices.Contains(setupFlags, "DEFER_TASKRUN"):
		return TaskRunDefer
	case slices.Contains(setupFlags, "COOP_TASKRUN"):
		return TaskRunCoop
	}
	return TaskRunNone
}

// TaskRunWords says in words who runs the completion task work in a mode;
// "" for an unknown one.
func TaskRunWords(v string) string {
	switch v {
	case TaskRunNone:
		return "no task-run flags (the kernel signals the job thread, task work runs at its next system call)"
	case TaskRunCoop:
		return "COOP_TASKRUN (no signal, task work waits for the job thread's next entry into the kernel)"
	case TaskRunDefer:
		return "DEFER_TASKRUN (task work runs only when the job thread waits for completions)"
	case TaskRunSQPoll:
		return "the kernel's SQPOLL thread (it runs task work between submission batches)"
	case TaskRunModel:
		return "gofio's SQPOLL goroutine, the model, on a ring without task-run flags"
	case SQMixed:
		return "mixed"
	}
	return ""
}
