// Package klock is kernel lock contention as gofio reports it: how often
// the threads that work for a job (its own thread, the kernel's SQPOLL
// thread and io-wq workers) waited for a contended kernel lock, for how
// long, and where in the kernel (Locks, Site).
//
// The measurement itself is in internal/klock/lockbpf: BPF programs on the
// kernel's lock:contention_begin and lock:contention_end tracepoints add
// up each contention's begin-to-end time per kernel stack, in the kernel.
// This package turns those stacks into sites and keeps the figures:
//
//   - A stack's site is its first kernel function above the lock
//     primitives (LockPrimitive: queued_spin_lock_slowpath,
//     _raw_spin_lock_irqsave, __mutex_lock, rwsem_down_write_slowpath and
//     the like), resolved through /proc/kallsyms (Symbols).
//   - A site belongs to a subsystem (Classify): io-wq, io_uring, block or
//     other, by the function's name.
//   - Wait is the time from contention_begin to contention_end; its spin
//     part is the time before the task went to sleep (all of it for a
//     spinning lock, none for an rwsem), which is on-CPU time and is
//     what WaitShare divides by the threads' CPU time.
//
// The package is pure (kallsyms text in, figures out) so that the report
// writers may import it and every rule is tested on synthetic stacks.
package klock
