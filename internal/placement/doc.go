// Package placement is where a job's thread runs and what it ran as, as
// fio's thread setup does it: I/O priority (ioprio), nice, its name
// (comm=), NUMA CPUs and memory policy, cgroup= (joined, weighted, left),
// uid= and gid= (and the access check they imply), lockmem=; and what the
// thread and its io_uring helpers used (the job's thread CPU report).
//
// Place applies them in fio's order (credentials, cgroup, access check,
// ioprio, comm=, nice, ioscheduler=, CPUs) and says what it changed
// (Placed), for the job's end to undo.
//
// Its rules: each call acts on the calling OS thread, which the run core
// has locked; it imports nothing of the run core.
package placement
