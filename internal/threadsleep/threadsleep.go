// Package threadsleep is how a job's thread waits for a time (rate_iops=
// and rate= gaps, thinktime=, startdelay=, read_iolog= delays, an open
// loop's intended times): clock_nanosleep to an absolute end on
// CLOCK_MONOTONIC, in the calling OS thread, whose timer slack Precise
// lowers to 1 us while the job runs.
//
// fio 3.33's usec_sleep is as precise, its own way: it nanosleeps for the
// wait less the longest of ten nanosleeps of 1 us it timed at start-up
// (the timer slack and the wake-up, about 60 us on an idle machine), then
// spins out the rest, so it burns up to that much CPU per wait. Here the
// kernel's timer ends the wait itself, with no spin: a thread whose timer
// slack is 1 us is woken within the scheduler's wake-up latency of the
// end. time.Sleep parks the goroutine on the runtime's timers, which wait
// in its network poller with an epoll_wait timeout in whole milliseconds
// (a wait under 1 ms waits 1 ms) unless other goroutines' work wakes it
// sooner: a locked thread sleeping 200 us woke 0.9 ms late at the median
// (bench/results.md).
//
// Rules: Sleep may be called from any goroutine (it blocks its thread,
// as a file read does); Precise changes the calling thread alone, so the
// job's goroutine calls it locked to its thread and restores the slack on
// that thread before it unlocks. Tests inject their own sleep through
// run.Options, not through this package.
package threadsleep

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/internal/clock"
)

// Slack is the timer slack, in ns, that Precise gives a thread: the
// kernel may end its sleeps up to this late to merge timer interrupts
// (50 us by default).
const Slack = 1000

// Sleep sleeps d, to an end on CLOCK_MONOTONIC fixed at the call, so that
// a signal (the Go runtime's preemption) does not stretch it: the sleep
// resumes towards the same end. Where clock_nanosleep fails otherwise (a
// sandbox that refuses it), the rest is slept with time.Sleep.
func Sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	end := clock.Nanotime() + int64(d) // the runtime's CLOCK_MONOTONIC
	ts := unix.NsecToTimespec(end)
	for {
		err := unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil)
		switch err {
		case nil:
			return
		case unix.EINTR:
			continue
		}
		if rest := end - clock.Nanotime(); rest > 0 {
			time.Sleep(time.Duration(rest))
		}
		return
	}
}

// Precise sets the calling thread's timer slack to Slack and returns a
// function that puts the previous slack back, to be called on the same
// thread. Where prctl fails, the thread keeps its slack and the function
// does nothing.
func Precise() (restore func()) {
	prev, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil || unix.Prctl(unix.PR_SET_TIMERSLACK, Slack, 0, 0, 0) != nil {
		return func() {}
	}
	return func() { _ = unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(prev), 0, 0, 0) }
}
