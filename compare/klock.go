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

// add files one run's contention (nil: the run did not trace), its repeat
// (or round) numbered repeat, under its row and side.
func (ks klockSides) add(key [2]int, repeat int, l *klock.Locks) {
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
		s.repeats = append(s.repeats, report.NewKLockRepeat(repeat, l))
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
// (report.KLockMetric, less is better) for sides that are not paired (a
// diff of two runs), as Judge judges the gate metric: Analyze, the rows
// together, a verdict of more or less contention needing its
// Holm-adjusted p-value below Alpha. Other rows get none.
func JudgeKLock(c *report.Comparison) {
	var judged []*report.RowStats
	for i := range c.Rows {
		r := &c.Rows[i]
		r.KLockStats = nil
		if !r.New.KLock.Measured() || !r.Old.KLock.Measured() {
			continue
		}
		s := Analyze(r.New.KLock.WaitValues(), r.Old.KLock.WaitValues(), report.KLockMetric)
		r.KLockStats = &s
		judged = append(judged, r.KLockStats)
	}
	adjustTogether(judged)
}

// judgeKLockRounds gives every row of a comparison in rounds where both
// sides measured kernel lock contention its verdict on the lock wait per
// I/O of the rounds both sides traced, paired round by round and judged
// as the gate metric is (JudgeRounds: the signed-rank test of the rounds'
// log ratios, the rows together), once, ungated: the locks never gate.
func judgeKLockRounds(c *report.Comparison, d Design) {
	var measured []*report.ComparisonRow
	for i := range c.Rows {
		r := &c.Rows[i]
		r.KLockStats = nil
		if r.New.KLock.Measured() && r.Old.KLock.Measured() {
			measured = append(measured, r)
		}
	}
	dk := Design{Rows: d.Rows, GateMetric: report.KLockMetric}
	stepDown(Open{Slower: d.Rows, Faster: d.Rows}, len(measured), func(i int, open Open) string {
		r := measured[i]
		old := make(map[int]float64, len(r.Old.KLock.Repeats))
		for _, o := range r.Old.KLock.Repeats {
			old[o.Repeat] = o.WaitNsPerIO
		}
		var nv, ov []float64
		for _, n := range r.New.KLock.Repeats {
			if o, ok := old[n.Repeat]; ok {
				nv, ov = append(nv, n.WaitNsPerIO), append(ov, o)
			}
		}
		dk.MinRounds = len(nv)
		s := JudgeRounds(nv, ov, dk, 1, open)
		r.KLockStats = &s
		return s.Verdict
	})
}
