// Package run is gofio's run core: it runs validated jobs on an engine,
// through the task-work scheduler of package sched, and fills a
// report.Result.
//
// # The event loop
//
// Each job runs on its own goroutine, locked to its OS thread before the
// engine opens (and pinned with cpus_allowed). It has iodepth slots, each
// with one buffer of the job's largest block size cut from one page-aligned
// anonymous mapping; the slot index is the request's user data. The loop
// follows the task-work model of "io_uring: add a priority tw list for irq
// completion work":
//
//   - Harvest (the "irq"): CQEs reaped from the engine become completion
//     items, one time stamp per reap batch.
//   - Completion item: stamp the completion time, account clat, lat, bytes
//     and the latency buckets, requeue the remainder of a short I/O (as fio
//     does) or record the error, and free the slot, which queues its next
//     heavy item.
//   - Heavy item: check the stop rules, choose direction, block size, file
//     and offset, refill the buffer (refill_buffers), stamp the start time,
//     queue the request and submit once iodepth_batch_submit requests are
//     queued.
//   - Between heavy items the loop harvests again without blocking. Every
//     harvest takes every CQE the ring holds: the harvest is the irq.
//   - tw_priority=1 runs completion items from a priority list before any
//     queued heavy item; tw_priority=0 runs everything in arrival order.
//   - When nothing is runnable the loop submits what is queued and waits
//     for min(iodepth_batch_complete_min, in flight) completions, at least
//     one (and takes all there are); after the queue was full it keeps
//     waiting until no more than iodepth_low are in flight (fio's
//     wait_for_completions).
//   - With tw_thread=goroutine (and sqthread_poll=1 jobs under --compare)
//     the engine is a twEngine: a goroutine on its own OS thread plays the
//     SQ thread of the patch, owns the ring and runs submissions (heavy)
//     and harvested CQEs (completion) from its own queue under the job's
//     policy; the job and the goroutine hand slots over through sched's
//     hand-off lists (tw_list). See twthread.go.
//
// JobResult.TWWait records, per completion, the time from its harvest to
// its completion item running: the latency the ordering itself adds.
//
// # Time stamps
//
// The clock is the time stamp counter, calibrated once per process against
// the runtime's monotonic clock over 10 ms (fio's clocksource=cpu), where
// the counter is invariant (constant_tsc, nonstop_tsc), the kernel's
// clocksource is tsc and reading it is cheaper than the vDSO; else the
// runtime's monotonic clock (vDSO CLOCK_MONOTONIC), called directly rather
// than through time.Since. On the 2-core KVM test VM a vDSO reading costs
// about 23 ns of CPU and a counter reading about 9; with the vDSO the clock
// was half the loop's CPU per I/O on the null engine. A loop's readings
// never go backwards. Readings are rationed: one per submit batch, one per
// reap batch, and one per task-work item, except that the item running
// straight after a harvest takes the harvest's stamp (only queue bookkeeping
// lies between). That makes three readings per I/O at batch 1, as fio's
// start, issue and completion stamps: under tw_priority=1 the first
// completion of a harvest runs with tw wait 0, under tw_priority=0 the next
// heavy item starts at the harvest time. Like fio, the issue time is one
// stamp per submit batch (fio stamps all SQEs of one io_uring_enter alike),
// so slat = issue - start and lat = slat + clat exactly. Unlike fio, which
// stamps the completion once per reap batch, gofio stamps it when the
// completion item runs: that is what lets clat show the cost of the
// task-work order. Synchronous engines (psync) are stamped before Submit and
// have no slat, as in fio; with the kernel's SQPOLL slat is omitted as in
// fio 3.36 (with the SQPOLL goroutine slat is preparation to publication). Samples are accounted only after ramp_time, which resets every
// statistic and the I/O budget.
//
// # Accounting
//
// Per direction: bytes, I/Os (counted at issue, as fio's total_io_u),
// short I/Os, slat/clat/lat Welford stats and fio histograms, bw/iops
// samples every bwavgtime/iopsavgtime (fio's window rules), and the runtime
// rounded up to whole milliseconds. Per job: IO depth at submit, submit and
// complete batch sizes and clat latency buckets in fio's bucket rules,
// RUSAGE_THREAD CPU of the job thread, and the schedstat CPU of its
// iou-sqp-TID SQPOLL thread and iou-wrk-TID io-wq workers. The submit,
// complete and IO depth maps are fio's: fioAcct replays fio 3.33's commit
// and getevents rules from the order requests are queued (fioacct.go),
// since gofio's own harvests take every CQE. Synchronous engines mark one
// submit, one complete and depth 1 per I/O, as fio does.
//
// # Files
//
// Regular files are laid out like fio's (generated names
// $jobname.$jobnum.$filenum under directory=, round-robin over clones);
// missing or short files are created and, for reading jobs, filled; an
// existing file is never truncated, and unlink=1 removes only files gofio
// created. A job that only reads opens its targets read-only; the one
// exception is laying out a missing or short regular file. Block devices
// are sized with BLKGETSIZE64. Before laying a job's files out gofio
// prints fio's line on Options.Info, word for word: "job: Laying out IO
// file (1 file / 64MiB)", or "job: Laying out IO files (3 files / total
// 192MiB)", counting the files to create or extend and the sum of their
// regions' ends in whole MiB, rounded down. Progress.OpenFiles (the f= of
// the status line) counts a job's files from their open to the job's end;
// the null engine's count too, as in fio.
//
// Everything that can refuse a job is checked for every job before any
// target is created or opened for writing: a writing job on a block
// device goes through CheckMountedWrite (blockdev's mountinfo, swap and
// exclusive-open check, which also catches a mounted partition of the
// target or the whole disk of a target partition) unless
// allow_mounted_write=1; direct=1 checks every block size and the offset
// against the target's O_DIRECT alignment (the logical block size of a
// device, statx dio_offset_align of a file, and for a file still to be
// created that of an unnamed O_TMPFILE in its directory; filesystems that
// report none, such as tmpfs, get 512), so a bad bs writes nothing. The
// null engine touches no file. Bad input found there is returned as
// Run's error, with no Result and nothing written.
//
// What goes wrong once the run is under way is no input error and ends
// only its own job, as fio's file setup and td_io_init failures do: a
// target that cannot be examined, opened or laid out (EACCES, EPERM on an
// immutable file, ENOSPC, a path that was there when the run started and
// is gone), an engine or buffers that cannot be set up. The job is in
// Result.Jobs with JobResult.Error set to the errno and ErrorText in
// fio's verror shape ("func=open(/x), error=Permission denied"), a line
// naming job, option and path ("job bad: filename=/x: open: permission
// denied") goes to Options.Warn, the other jobs run, and the exit status
// counts the job as failed.
//
// # Disk stats
//
// Result.Disks holds, for every distinct whole disk under the targets (a
// block device itself, or the disk of a file's filesystem, partitions
// counted as their disk), the deltas of /sys/block/NAME/stat from before
// the first group to after the last. Targets on tmpfs have none.
//
// # Verify
//
// verify= (crc32c, crc32c-intel, md5, sha256, meta, pattern, null) fills
// every write buffer through internal/verify (fio's header and checksum)
// and, with do_verify=1, reads every block written in the job's last pass
// back after the write phase and checks it; those reads are accounted as
// read statistics, as in fio. A reading job with verify= checks every
// block it reads, which verifies a file written earlier. A mismatch names
// file, offset, expected and found on Warn and ends the job with EILSEQ
// (continue_on_error=verify or all counts it instead). See verify.go for
// the rules on passes and overlapping writes.
//
// # Faults
//
// A short read or write is requeued for its remainder; an I/O that moved
// nothing short of the end of its target (the target shrank or went away)
// fails with EIO, as fio's "full resid"; -EAGAIN is resubmitted up to 64
// times per I/O (the count goes to EngineNotes) and then ends the job;
// EIO and EILSEQ are skipped and counted under continue_on_error; any
// other error, ENOSPC among them, ends only its own job. A failure to lay
// a file out (ENOSPC) ends that job as well, with func=write.
//
// Offsets, block sizes and directions follow fio 3.33's rules (io_u.c)
// with fio's own generators and seeds (lib/rand.c's Tausworthe, init.c's
// seeds: randseed, or FIO_RANDSEED times the thread number with
// randrepeat), so a job issues fio's sequence and ends with fio's counts.
// The random map is fio's axmap: an I/O is moved to the next free block
// and shortened at the first block already covered; the job (or loop)
// ends when every file is done or it has issued size= bytes, the last
// I/O running past it as in fio. random_distribution zipf, pareto and
// normal use fio's formulas with gofio's own generator and the popular
// blocks scattered by a keyed permutation.
package run
