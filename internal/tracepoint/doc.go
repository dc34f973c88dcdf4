// Package tracepoint is what gofio's kernel tracers (internal/ktrace,
// internal/klock) share to run BPF programs on the kernel's tracepoints:
// tracefs found in the mount table or mounted, a trace event's record
// layout read from its format file, a field loaded at its offset, and a
// program loaded with the verifier's refusal turned into a reason.
//
// Its rule: every reason a tracer cannot run here is an *Unavailable whose
// text is the one line the run's note and the JSON give, so that a job
// runs on without the tracer and says why.
package tracepoint
