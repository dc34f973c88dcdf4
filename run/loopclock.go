package run

import "github.com/gofio/gofio/internal/clock"

// clock returns the loop's time in ns: Options.now when a test injects a
// clock, else the calibrated TSC or nanotime, called directly (no call
// through a func value). The TSC reading never goes below the loop's
// previous one, as the vDSO clock guarantees for itself.
func (l *loop) clock() int64 {
	if l.fakeNow != nil {
		return l.fakeNow()
	}
	if l.tsc != nil {
		t := l.tsc.FromTicks(clock.Ticks())
		if t < l.lastTSC {
			t = l.lastTSC
		}
		l.lastTSC = t
		return t
	}
	return clock.Nanotime()
}
