// Package sched holds the task-work lists and ordering policies of gofio's
// event loop: a user-space model of the kernel patch "io_uring: add a
// priority tw list for irq completion work" (Hao Xu, merged for 5.17,
// removed again in 6.0).
//
// The loop turns every harvested CQE (the "irq") into a completion item
// (stamp, account, free the slot) and every free slot into a heavy item
// (choose offset, fill the buffer, prepare and submit). A Queue decides the
// order they run in:
//
//   - Priority (tw_priority=1, the default): completion items go on a
//     priority list that runs before any queued heavy item.
//   - FIFO (tw_priority=0): one list in arrival order, the timeline before
//     the patch.
//
// The package is pure: no clock, no system call, no allocation per item.
// Every function that needs the time takes it as an int64 of nanoseconds,
// so the ordering rules are table tests. Lists are intrusive: they hold slot
// indices whose next links live in one preallocated []uint32 (Links), so
// add, pop, splice and merge are O(1).
//
// # Handoff between goroutines
//
// Handoff carries slots from one goroutine to another: the job loop and its
// SQPOLL goroutine (run's tw_thread=goroutine) publish I/Os and post
// completions through two of them, chosen by tw_list=locked|lockfree. Two
// implementations exist. LockedList is an intrusive list behind its own
// mutex, separate from the slot pool (as io-wq split work_list out of the
// big wqe->lock, and as Jens Axboe's 2024 io_wq_work_list patch set
// proposed for task_work). LockFreeList is the kernel's llist: a CAS push
// onto a head index and an exchange-and-reverse take (llist_del_all plus
// llist_reverse_order).
//
// gofio uses LockedList by default (tw_list=locked): BenchmarkHandoff
// found it as fast or faster at every burst size (figures in
// bench/results.md). tw_list=lockfree picks LockFreeList, for machines
// where the numbers come out the other way.
package sched
