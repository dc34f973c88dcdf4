package run

import (
	"errors"
	"fmt"
	"time"
)

// ErrStartLate is the error of a run whose Options.StartAt had passed once
// its files and engines were ready, without Options.StartLate.
var ErrStartLate = errors.New("start time already past")

// startSlice bounds one sleep of the wait for StartAt, so that a signal
// stops the wait promptly; the last slice ends at StartAt itself.
const startSlice = 50 * time.Millisecond

// waitStart waits, once per run, until e.startAt: it is called with the
// first group's files laid out and its engines set up, just before the
// jobs are released. A StartAt already past stops the run with
// ErrStartLate unless Options.StartLate; a stop (signal) ends the wait.
func waitStart(e *env) {
	at := e.startAt
	if at.IsZero() {
		return
	}
	e.startAt = time.Time{}
	if late := time.Since(at); late > 0 {
		if e.opts.StartLate {
			e.warnf("gofio: --start-at %s passed %v ago while laying out and setting up; starting now (--start-at-late=run)\n",
				at.Format(time.RFC3339Nano), late.Round(time.Millisecond))
			return
		}
		e.startErr = fmt.Errorf("--start-at %s: %w %v ago, once the files were laid out and the engines set up (start later, or --start-at-late=run)",
			at.Format(time.RFC3339Nano), ErrStartLate, late.Round(time.Millisecond))
		e.stop.Store(true)
		return
	}
	for !e.stop.Load() {
		d := time.Until(at)
		if d <= 0 {
			return
		}
		e.opts.sleep(min(d, startSlice))
	}
}
