package jobfile

import "fmt"

// KernelStagesMode is kernel_stages (and gofio's --kernel-stages flag),
// decoded once: whether a job measures its I/Os' kernel latency stages.
type KernelStagesMode uint8

// The values of kernel_stages.
const (
	// KernelStagesOff is kernel_stages=0, the default.
	KernelStagesOff KernelStagesMode = iota
	// KernelStagesOn is kernel_stages=1: measure where tracing can run;
	// elsewhere the job runs without, and a note says why.
	KernelStagesOn
	// KernelStagesRequired is kernel_stages=required: the job fails when
	// tracing cannot run.
	KernelStagesRequired
)

// kernelStagesChoices are kernel_stages' values, in KernelStagesMode order,
// with their help.
var kernelStagesChoices = []Choice{{"0", "Off"},
	{"1", "On where tracing can run; otherwise the job runs without, and a note says why"},
	{"required", "On; the job fails when tracing cannot run"}}

// ParseKernelStagesMode decodes a kernel_stages value: "0", "1" or
// "required".
func ParseKernelStagesMode(v string) (KernelStagesMode, error) {
	for i, c := range kernelStagesChoices {
		if c.Value == v {
			return KernelStagesMode(i), nil
		}
	}
	return KernelStagesOff, fmt.Errorf("kernel_stages=%s is not one of 0, 1, required", v)
}

// String is the mode as kernel_stages spells it.
func (m KernelStagesMode) String() string {
	if int(m) < len(kernelStagesChoices) {
		return kernelStagesChoices[m].Value
	}
	return fmt.Sprintf("kernel_stages(%d)", int(m))
}

// Or is m, or def when m is off: a job's kernel_stages over the
// --kernel-stages flag's default for every job that leaves it at 0.
func (m KernelStagesMode) Or(def KernelStagesMode) KernelStagesMode {
	if m == KernelStagesOff {
		return def
	}
	return m
}
