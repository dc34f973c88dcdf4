// Package iogen decides what each I/O of a job is, by fio 3.33's rules:
// its direction, file, offset and length (Offsets, over the job's
// Regions), the bytes a write carries (Buffers) and its command priority
// (Cmdprio). Each draws from fio's generators (package fiorand) with
// fio's seeds, so that a job issues fio's sequence and ends with fio's
// counts.
//
// Rule: generation is pure. The event loop asks for the next I/O and
// tells a generator when a pass over the files starts (NewPass) or
// ramp_time ends; nothing here reads a clock, opens a file or imports the
// run core, and nothing allocates per I/O.
package iogen
