package run

// This file holds fio's think time (thinktime=, thinktime_blocks=,
// thinktime_spin=, thinktime_blocks_type=): thinkDue is the loop's hook at
// issue, think runs the pause.

// thinkDue reports whether thinktime is due before the next I/O, as
// fio's handle_thinktime decides: after thinktime_blocks I/Os completed
// (thinktime_blocks_type=complete) or issued (issue) since the last
// pause; with thinktime_iotime, also once thinktime_iotime plus thinktime
// has passed since the last pause began (the job's start at first), and
// then by the blocks only when thinktime_blocks is set.
func (l *loop) thinkDue() bool {
	if !l.thinkTime.thinks {
		return false
	}
	return l.thinkDueSet()
}

// thinkDueSet is thinkDue for a job that thinks, kept out of line so that
// one without thinktime pays one inlined test per I/O. thinkcycles spins
// first, before every read or write issued, as fio's do_io spins after
// each one.
func (l *loop) thinkDueSet() bool {
	if c := l.job.ThinkCycles; c > 0 {
		spinCycles(c)
	}
	if l.job.Think.Time <= 0 && l.thinkTime.thinker == nil {
		return false
	}
	t := &l.job.Think
	if t.IOTime > 0 {
		if l.clock()-l.thinkTime.lastThinkAt >= int64(t.IOTime+t.Time) {
			return true
		}
		if !l.thinkTime.thinkBlocksSet {
			return false
		}
	}
	n := l.thinkTime.thinkDone
	if t.BlocksType == "issue" {
		n = l.thinkTime.thinkIssued
	}
	return n >= l.thinkTime.lastThink+uint64(t.Blocks)
}

// spinCycles busy-loops n times, fio's cycles_spin for thinkcycles: no
// clock reading, so the stall is a count of iterations, not a time.
//
//go:noinline
func spinCycles(n uint64) {
	for i := uint64(0); i < n; i++ {
	}
}

// think runs the pause once every slot is parked and nothing is in flight
// (fio's io_u_quiesce): thinktime_spin of busy waiting, then the rest of
// thinktime asleep; then the parked slots issue again. With
// rate_ignore_thinktime the rate schedule of the last I/O's direction
// moves on by the pause, so the job does not catch up afterwards.
func (l *loop) think() {
	t := &l.job.Think
	think := t.Time
	if l.thinkTime.thinker != nil {
		think = l.thinkTime.thinker.ThinkTime() // cpuio's cycle x (100-cpuload)/cpuload
	}
	begin := l.clock()
	spin := min(t.Spin, think) // fio: thinktime_spin is at most thinktime
	if spin > 0 {
		end := l.clock() + int64(spin)
		for l.clock() < end {
		}
	}
	if rest := think - spin; rest > 0 {
		l.sleep(rest)
	}
	now := l.clock()
	if l.job.RateIgnoreThinktime {
		l.skipRate(l.thinkTime.lastDir, now-begin)
	}
	l.thinkTime.lastThink = l.thinkTime.thinkDone
	if t.BlocksType == "issue" {
		l.thinkTime.lastThink = l.thinkTime.thinkIssued
	}
	if t.IOTime > 0 {
		l.thinkTime.lastThinkAt = begin
	}
	for _, si := range l.thinkTime.parked {
		l.q.AddHeavy(si, now)
	}
	l.thinkTime.parked = l.thinkTime.parked[:0]
	l.reapFresh = false
}
