package jobfile

// The values of taskrun_mode: the kernel's ways of running a ring's
// completion task work, one name each, so a sweep or a --compare can set
// the four ring options and tw_thread together.
const (
	// TaskrunFlags leaves coop_taskrun, defer_taskrun, single_issuer,
	// sqthread_poll and tw_thread as the job gives them (the default).
	TaskrunFlags = "flags"
	// TaskrunNone asks for no task-run flag and no SQPOLL: the kernel
	// notifies the job thread of its task work (TWA_SIGNAL), which runs it
	// at its next system call.
	TaskrunNone = "none"
	// TaskrunCoop is COOP_TASKRUN with TASKRUN_FLAG: no notification, the
	// task work waits for the job thread's next entry into the kernel.
	TaskrunCoop = "coop"
	// TaskrunDefer is DEFER_TASKRUN with SINGLE_ISSUER: the task work runs
	// only when the job thread waits for completions (GETEVENTS).
	TaskrunDefer = "defer"
	// TaskrunSQPoll is the kernel's SQPOLL thread (tw_thread=kernel even
	// under --compare), which submits and runs the completion task work
	// between its submission batches; the kernel takes no task-run flag
	// with SQPOLL.
	TaskrunSQPoll = "sqpoll"
)

// applyTaskrunMode sets the ring options taskrun_mode names. A mode other
// than TaskrunFlags wins over coop_taskrun, defer_taskrun, single_issuer,
// sqthread_poll and tw_thread wherever they were given, so a
// --sweep or --compare of the mode runs exactly that mode whatever the job
// file asks for.
func (j *Job) applyTaskrunMode() {
	if j.TaskrunMode == TaskrunFlags || j.TaskrunMode == "" {
		return
	}
	j.TaskrunAuto, j.CoopTaskrun, j.DeferTaskrun, j.SingleIssuer, j.SQThreadPoll = false, false, false, false, false
	switch j.TaskrunMode {
	case TaskrunCoop:
		j.CoopTaskrun = true
	case TaskrunDefer:
		j.DeferTaskrun, j.SingleIssuer = true, true
	case TaskrunSQPoll:
		j.SQThreadPoll, j.TWThread = true, "kernel"
	}
}
