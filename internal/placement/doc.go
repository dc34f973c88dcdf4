// Package placement is where a job's thread runs and what it ran as, as
// fio's thread setup does it: I/O priority (ioprio), nice, its name
// (comm=), NUMA CPUs and memory policy, cgroup= (joined, weighted, left),
// uid= and gid= (and the access check they imply), lockmem=; and what the
// thread and its io_uring helpers used (the job's thread CPU report).
//
// Its rules: each call acts on the calling OS thread, which the run core
// has locked; it imports nothing of the run core, which calls it in fio's
// order from run/placement.go.
package placement
