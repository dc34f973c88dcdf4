// Package twthread is the SQPOLL stand-in of tw_thread=goroutine: a
// goroutine on its own locked OS thread that owns a job's real engine and
// plays the kernel's SQ thread under the job's task-work policy. To the
// job's event loop it is an ordinary engines.Engine (see Opener).
//
// Rule: the goroutine and the job trade slots only through sched's
// hand-off lists; the job's side never touches the ring. What it needs of
// the run (the clock, the io_timeout watch and its durations) is passed
// in, and it imports nothing of the run core.
package twthread
