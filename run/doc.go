// Package run is gofio's run core: it runs validated jobs on an engine,
// through the task-work scheduler of package sched, and fills a
// report.Result. Run is its entry point; Options carries everything that
// does not come from the job files, the test stand-ins included.
//
// # Ownership
//
// Each job runs on its own goroutine, locked to its OS thread before its
// engine opens (and pinned with cpus_allowed); that goroutine alone owns
// the job's slots, buffers, JobResult and ring until the job ends. Under
// tw_thread=goroutine the SQPOLL stand-in (engines/twthread) owns the ring on
// its own locked thread and trades slots with the loop only through
// sched's hand-off lists. Jobs of one group start together after a
// barrier; groups run one after another (stonewall, new_group). While
// jobs run, other goroutines read only their Progress (atomics) and set
// only the stop flags; warnings go through one mutex.
//
// # The event loop (loop.go)
//
// A job has iodepth slots; a slot index is the request's user data, never a
// pointer, and the hot path allocates nothing per I/O. The loop follows the
// task-work model of "io_uring: add a priority tw list for irq completion
// work": a harvest of CQEs (the "irq") turns each into a completion item
// (stamp, account, free the slot), and each free slot queues a heavy item
// (choose offset and size, fill the buffer, queue and submit). sched.Queue
// orders them: tw_priority=1 runs completion items before any queued heavy
// item, tw_priority=0 runs everything in arrival order. When nothing is
// runnable the loop submits and waits as fio's wait_for_completions does.
// How it reaps is tw_reap (Job.ReapAll): in a plain run as fio 3.33 (only
// when nothing is runnable, at most iodepth_batch_complete_max CQEs a
// call, the rest left in the ring), so that a slot waits as an unreaped
// CQE and the job keeps fio's I/Os in flight; under --compare and
// tw_reap=all (gofio's task-work model) a harvest takes every CQE the ring
// holds, also between heavy items, and a free slot waits as a heavy item.
// Like fio's submit, complete and IO depths maps, JobResult's in-flight
// area is counted where the loop does what it counts: a batch commit
// (fio's td_io_commit: depth), an engine submit (submit), a reap
// (complete), and a submit or reap that changes what is in flight. In a
// plain run the loop also follows fio's answers to an engine that refuses
// work (trims with requests queued, null with completions pending): it
// commits and waits, so the maps are fio's. With tw_thread=goroutine (and
// sqthread_poll=1 jobs under --compare) a goroutine plays the patch's SQ thread and runs submissions
// and harvested CQEs from its own queue under the job's policy.
// JobResult.TWWait is the time from a harvest to its completion item: the
// latency the ordering itself adds. What the job's options decide about
// the loop is built once, by newLoopConfig.
//
// # Time stamps (loopclock.go, internal/clock)
//
// The clock is the invariant TSC calibrated against the monotonic clock
// where that is cheaper, else the monotonic clock; a loop's readings never
// go backwards. There is one reading per submit batch, one per harvest and
// one per task-work item, except that the item straight after a harvest
// takes the harvest's stamp. The issue time is one stamp per submit batch,
// as in fio, so lat = slat + clat exactly; unlike fio, the completion is
// stamped when its item runs, which is what lets clat show the cost of the
// task-work order. Synchronous engines have no slat, as in fio; neither
// has the kernel's SQPOLL (as in fio 3.36). ramp_time resets every per-I/O figure
// (report.JobResult.ResetIOStats) and the byte budget.
//
// # Rules
//
// Offsets, block sizes, directions and loops follow fio 3.33's io_u.c with
// fio's own generators and seeds (internal/iogen and internal/fiorand), so a
// job issues fio's sequence and ends with fio's counts. Block sizes come
// from jobfile's Job.BSMin and BSMax.
//
// Everything that can refuse a job is checked, for every job, before any
// target is created or opened for writing, and comes back as Run's error
// with no Result: a missing target under /dev (target.CheckTargets), a
// mounted block device for a writing job unless allow_mounted_write=1
// (Options.CheckMountedWrite), O_DIRECT alignment, verify= that cannot be
// checked, an engine that is not available. The null engine touches no
// file. Files are planned, laid out and opened as fio's by internal/target
// (targets.go hands it the run's state): an existing file is never
// truncated, a read-only job opens its targets read-only, unlink=1 removes
// only what gofio created.
//
// What goes wrong once the run is under way ends only its own job, as in
// fio: the job is in Result.Jobs with JobResult.Error and fio's verror
// text, a line naming job, option and path goes to Options.Warn, and the
// other jobs run (jobfail.go). Short I/Os are requeued for their remainder;
// -EAGAIN is resubmitted a bounded number of times; continue_on_error
// skips and counts what it covers. Cancelling Run's context drains the
// jobs and returns the partial Result with Signal "interrupt".
//
// Verify (verify.go) writes fio's headers through internal/verify and, with
// do_verify=1, reads every block of the last pass back and checks it.
// Result.Disks holds the /sys/block deltas of the disks under the targets
// (target.Disks).
package run
