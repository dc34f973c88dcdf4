package jobfile

import "fmt"

// TracerMode is the option of one of gofio's kernel tracers (kernel_stages,
// kernel_locks) and of its flag (--kernel-stages, --kernel-locks), decoded
// once: whether a job measures with the tracer.
type TracerMode uint8

// The values of a tracer's option.
const (
	// TracerOff is 0, the default.
	TracerOff TracerMode = iota
	// TracerOn is 1: measure where tracing can run; elsewhere the job runs
	// without, and a note says why.
	TracerOn
	// TracerRequired is required: the job fails when tracing cannot run.
	TracerRequired
)

// tracerModeChoices are a tracer option's values, in TracerMode order, with
// their help.
var tracerModeChoices = []Choice{{"0", "Off"},
	{"1", "On where tracing can run; otherwise the job runs without, and a note says why"},
	{"required", "On; the job fails when tracing cannot run"}}

// ParseTracerMode decodes a value of tracer option (e.g. kernel_stages):
// "0", "1" or "required".
func ParseTracerMode(option, v string) (TracerMode, error) {
	for i, c := range tracerModeChoices {
		if c.Value == v {
			return TracerMode(i), nil
		}
	}
	return TracerOff, fmt.Errorf("%s=%s is not one of 0, 1, required", option, v)
}

// String is the mode as the option spells it.
func (m TracerMode) String() string {
	if int(m) < len(tracerModeChoices) {
		return tracerModeChoices[m].Value
	}
	return fmt.Sprintf("tracer(%d)", int(m))
}

// Or is m, or def when m is off: a job's option over its flag's default
// for every job that leaves it at 0.
func (m TracerMode) Or(def TracerMode) TracerMode {
	if m == TracerOff {
		return def
	}
	return m
}
