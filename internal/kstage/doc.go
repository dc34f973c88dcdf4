// Package kstage is the model of the kernel's own latency stages of an
// I/O: the stage enum (Stage: enter, submit, queue, device, tw, reap), the
// reasons an I/O is not joined across them (Loss), and what a job's
// tracing measured (KernelStages). internal/ktrace fills a KernelStages;
// report prints it and keeps it in saved results.
//
// Its rules: Stage is the one list of stages. Every per-stage list
// elsewhere (names, colors, JSON keys, a joined I/O's durations) is built
// from it, typed [NumStages]T from a keyed [...]T literal, so a stage added
// at the end without its entry fails to compile and one added in between
// fails that list's test. The package imports only internal/fiostat, so
// report may import it and it imports neither report nor ktrace.
package kstage
