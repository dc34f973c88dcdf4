// Package ktrace measures the kernel's own latency stages of a job's I/Os
// (kstage.KernelStages) from io_uring and block tracepoints.
//
// Five small BPF programs, built with cilium/ebpf's asm package at run
// time (no C compiler, no BTF), attach to io_uring_submit_req (or
// io_uring_submit_sqe on kernels before 6.4), block_bio_queue,
// block_rq_issue, block_rq_complete and io_uring_complete. They read the
// fields at the offsets the kernel's tracefs format files give, keep only
// the job's threads, ring and disk, and write one fixed 32-byte Event per
// hit to a BPF ring buffer, stamped with bpf_ktime_get_ns (CLOCK_MONOTONIC,
// the clock of clock.Nanotime). One goroutine per job drains that ring and
// gofio's own per-I/O stamps into a Joiner, which does the whole join in
// user space:
//
//	submit_req (req, task) -> the task's next bio_queue -> (disk, sector)
//	-> rq_issue, rq_complete by sector -> io_uring_complete by req
//	-> gofio's harvest of the same user data.
//
// The rules: the job loop pays one nil check per I/O when tracing is off
// and one store into a preallocated ring (Tracer.Reap) when on; every
// reason tracing cannot run is an *Unavailable error whose text is the
// one-line reason the run prints; the Joiner is pure (events and stamps
// in, kstage.KernelStages out) so that every join rule is tested on
// synthetic streams.
package ktrace
