package jobfile

import "fmt"

// KernelLocksMode is kernel_locks (and gofio's --kernel-locks flag),
// decoded once: whether a job measures the kernel lock contention of its
// threads.
type KernelLocksMode uint8

// The values of kernel_locks.
const (
	// KernelLocksOff is kernel_locks=0, the default.
	KernelLocksOff KernelLocksMode = iota
	// KernelLocksOn is kernel_locks=1: measure where tracing can run;
	// elsewhere the job runs without, and a note says why.
	KernelLocksOn
	// KernelLocksRequired is kernel_locks=required: the job fails when
	// tracing cannot run.
	KernelLocksRequired
)

// kernelLocksChoices are kernel_locks' values, in KernelLocksMode order,
// with their help.
var kernelLocksChoices = []Choice{{"0", "Off"},
	{"1", "On where tracing can run; otherwise the job runs without, and a note says why"},
	{"required", "On; the job fails when tracing cannot run"}}

// ParseKernelLocksMode decodes a kernel_locks value: "0", "1" or
// "required".
func ParseKernelLocksMode(v string) (KernelLocksMode, error) {
	for i, c := range kernelLocksChoices {
		if c.Value == v {
			return KernelLocksMode(i), nil
		}
	}
	return KernelLocksOff, fmt.Errorf("kernel_locks=%s is not one of 0, 1, required", v)
}

// String is the mode as kernel_locks spells it.
func (m KernelLocksMode) String() string {
	if int(m) < len(kernelLocksChoices) {
		return kernelLocksChoices[m].Value
	}
	return fmt.Sprintf("kernel_locks(%d)", int(m))
}

// Or is m, or def when m is off: a job's kernel_locks over the
// --kernel-locks flag's default for every job that leaves it at 0.
func (m KernelLocksMode) Or(def KernelLocksMode) KernelLocksMode {
	if m == KernelLocksOff {
		return def
	}
	return m
}
