package compare

import (
	"github.com/gofio/gofio/internal/klock"
	"github.com/gofio/gofio/report"
)

// This file carries the kernel lock contention of the runs (kernel_locks=1)
// into a comparison's sides, and judges each row on it.

// measureKLock merges the lock contention of every job of a run that
// traced it; nil when none did.
func measureKLock(r *report.Result) *klock.Locks {
	var m *klock.Locks
	for _, j := range r.Jobs {
		if j != nil && j.KernelLocks != nil {
			if m == nil {
				m = &klock.Locks{}
			}
			m.Merge(j.KernelLocks)
		}
	}
	return m
}

// klockSides accumulates the lock contention of each row's sides over
// their repeats, keyed as builder.hists.
type klockSides map[[2]int]*klockSide

type klockSide struct {
	merged  klock.Locks
	repeats []report.KLockRepeat
}

// add files one run's contention (nil: the run did not trace) under its
// row and side.
func (ks klockSides) add(key [2]int, l *klock.Locks) {
	if l == nil {
		return
	}
	s := ks[key]
	if s == nil {
		s = &klockSide{}
		ks[key] = s
	}
	s.merged.Merge(l)
	if l.Available {
		s.repeats = append(s.repeats, report.NewKLockRepeat(l))
	}
}

// side summarizes a row's side; nil when none of its runs traced.
func (ks klockSides) side(key [2]int) *report.KLockSide {
	s := ks[key]
	if s == nil {
		return nil
	}
	return report.NewKLockSide(&s.merged, s.repeats)
}

// JudgeKLock gives every row where both sides measured kernel lock
// contention its verdict on the per-repeat lock wait per I/O
// (report.KLockMetric, less is better), with the statistics of the gate
// metric (Analyze); other rows get none.
func JudgeKLock(c *report.Comparison) {
	for i := range c.Rows {
		r := &c.Rows[i]
		r.KLockStats = nil
		if !r.New.KLock.Measured() || !r.Old.KLock.Measured() {
			continue
		}
		s := Analyze(r.New.KLock.WaitValues(), r.Old.KLock.WaitValues(), report.KLockMetric)
		r.KLockStats = &s
	}
}
