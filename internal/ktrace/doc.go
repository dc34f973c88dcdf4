// Package ktrace measures the kernel's own latency stages of a job's I/Os
// (kstage.KernelStages) from io_uring and block tracepoints.
//
// Six small BPF programs, built with cilium/ebpf's asm package at run time
// (no C compiler), attach to io_uring_submit_req (or io_uring_submit_sqe
// on kernels before 6.4), block_bio_queue, block_rq_issue,
// block_rq_complete, block_rq_requeue and io_uring_complete: as BTF-typed
// raw tracepoints (tp_btf) reading the events' arguments, and what they
// point to, with plain loads at the offsets of the kernel's BTF, or,
// without BTF, as classic tracepoints reading the fields at the offsets
// tracefs's format files give (btf.go says why raw ones are preferred).
// They keep only the job's ring and threads and the devices under every
// one of its files, and join each I/O in the kernel, into the record of
// its slot (the SQE's user data) in a BPF array the job maps into its
// memory:
//
//	submit_req (req, user data) -> the submitting task's next bio
//	-> (disk, sector) -> rq_issue, rq_complete by sector
//	-> io_uring_complete by user data and req.
//
// When the job harvests the I/O it reads the record and adds the six
// stages, from its own submission stamp to its own harvest, with
// bpf_ktime_get_ns and clock.Nanotime on one clock (CLOCK_MONOTONIC).
//
// The rules: the job loop pays one nil check per I/O when tracing is off
// and, when on, one read of its slot's record from shared memory (no
// system call, no event crossing into user space, no joining goroutine);
// the programs leave other processes' events at their first instructions,
// and call no helper but for the time, the task, an array element (which
// the verifier inlines) and, when 1 in Config.Sample submissions is
// traced, a random number; a submission not drawn names no request, so
// the rest of its I/O's events leave at once; their run time is measured only when asked
// for (Config.Stats);
// every reason tracing cannot run is an *Unavailable error whose text is
// the one-line reason the run prints; every join rule is tested on the
// programs themselves, run by BPF_PROG_TEST_RUN on synthetic events
// (join_root_test.go).
package ktrace
