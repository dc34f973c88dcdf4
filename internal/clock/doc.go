// Package clock is the event loop's time source: the runtime's monotonic
// clock (Nanotime) and, where it is cheaper and trustworthy, the invariant
// time stamp counter calibrated against it (TSC), as fio's
// clocksource=cpu.
//
// Rule: readings are nanoseconds on Nanotime's scale, so the two sources
// can be compared and mixed; nothing here sleeps except the one
// calibration, and nothing imports the run core. Tests inject their own
// clock through run.Options, not through this package.
package clock
