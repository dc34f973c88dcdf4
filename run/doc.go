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
//   - Between heavy items the loop harvests again without blocking.
//   - tw_priority=1 runs completion items from a priority list before any
//     queued heavy item; tw_priority=0 runs everything in arrival order.
//   - When nothing is runnable the loop submits what is queued and waits
//     for min(iodepth_batch_complete_min, in flight) completions, at least
//     one, reaping at most iodepth_batch_complete_max per call; after the
//     queue was full it keeps reaping until no more than iodepth_low are in
//     flight (fio's wait_for_completions).
//
// JobResult.TWWait records, per completion, the time from its harvest to
// its completion item running: the latency the ordering itself adds.
//
// # Time stamps
//
// The clock is the runtime's monotonic clock (vDSO CLOCK_MONOTONIC, about
// 30 ns a reading), read once per task-work item and once per submit and
// reap batch. Like fio, the issue time is one stamp per submit batch (fio
// stamps all SQEs of one io_uring_enter alike), so slat = issue - start and
// lat = slat + clat exactly. Unlike fio, which stamps the completion once
// per reap batch, gofio stamps it when the completion item runs: that is
// what lets clat show the cost of the task-work order. Synchronous engines
// (psync) are stamped before Submit and have no slat, as in fio; with
// sqthread_poll slat is omitted as in fio 3.36. Samples are accounted only
// after ramp_time, which resets every statistic and the I/O budget.
//
// # Accounting
//
// Per direction: bytes, I/Os (counted at issue, as fio's total_io_u),
// short I/Os, slat/clat/lat Welford stats and fio histograms, bw/iops
// samples every bwavgtime/iopsavgtime (fio's window rules), and the runtime
// rounded up to whole milliseconds. Per job: IO depth at submit, submit and
// complete batch sizes and clat latency buckets in fio's bucket rules,
// RUSAGE_THREAD CPU of the job thread, and the schedstat CPU of its
// iou-sqp-TID SQPOLL thread and iou-wrk-TID io-wq workers. The submit and
// complete maps count every submitting call and every reap that returned
// completions or waited.
//
// # Files
//
// Regular files are laid out like fio's (generated names
// $jobname.$jobnum.$filenum under directory=, round-robin over clones);
// missing or short files are created and, for reading jobs, filled; an
// existing file is never truncated, and unlink=1 removes only files gofio
// created. Block devices are sized with BLKGETSIZE64, and writing to one
// goes through CheckMountedWrite. direct=1 checks every block size and the
// offset against the target's O_DIRECT alignment (statx dio_offset_align,
// or the logical block size). The null engine touches no file.
//
// Random offsets cover every block (blockalign, or the smallest block
// size) exactly once per loop through a keyed Feistel permutation over the
// block count, rekeyed every loop, with no per-I/O allocation and no
// bitmap; norandommap draws uniformly, and random_distribution zipf,
// pareto and normal use fio's formulas with the popular blocks scattered
// by a permutation. With mixed block sizes the map works on the smallest
// size and an I/O that would cross the end of the region is moved back.
package run
