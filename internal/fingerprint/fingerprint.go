// Package fingerprint records what a result's figures depend on besides
// the code under test, the runner: the kernel, the CPU (model, count,
// frequency governor, turbo boost, SMT), the kernel's speculative-execution
// mitigations, the disks under the jobs (model, I/O scheduler, queue
// depth), the gofio build and the jobs themselves; and says where two
// fingerprints differ.
//
// Its rules: a fact the machine does not expose reads "" (unknown), never
// a guess, and an unknown fact is no difference (a result saved before a
// fact was recorded compares on the others). The host name is not part of
// it: an ephemeral CI runner gets a new name on the same hardware, and a
// fleet's identical hosts have different ones.
package fingerprint

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Env is the part of a fingerprint that report.RunInfo does not already
// carry: the machine's tuning and the disks under the jobs.
type Env struct {
	// Governor is the CPU frequency governor (cpufreq's
	// scaling_governor) the online CPUs share, "mixed" when they differ,
	// "none" without cpufreq (most VMs), "" when not recorded.
	Governor string `json:"governor"`
	// Boost is turbo boost: "on" or "off" (cpufreq/boost, or
	// intel_pstate's no_turbo), "" when the machine has no such switch.
	Boost string `json:"boost"`
	// SMT is /sys/devices/system/cpu/smt/control: on, off, forceoff,
	// notsupported or notimplemented.
	SMT string `json:"smt"`
	// Mitigations is the kernel's state for each CPU vulnerability, as
	// /sys/devices/system/cpu/vulnerabilities/NAME reads.
	Mitigations map[string]string `json:"mitigations"`
	// Devices are the disks under the jobs' files, in the order the run
	// met them; empty for a run on tmpfs or the null engine, nil while
	// not yet known (before the run).
	Devices []Device `json:"devices"`
}

// Device is one disk under a job.
type Device struct {
	Name string `json:"name"` // the name under /sys/block, e.g. nvme0n1
	// Model is the disk's model (device/model), "" when the disk has
	// none (virtio, loop).
	Model string `json:"model"`
	// Scheduler is the I/O scheduler in effect (the bracketed one of
	// queue/scheduler), "none" for none.
	Scheduler string `json:"scheduler"`
	// QueueDepth is the block layer's request queue depth
	// (queue/nr_requests); HWQueueDepth the device's own
	// (device/queue_depth, SCSI), 0 when it has none.
	QueueDepth   int `json:"queue_depth"`
	HWQueueDepth int `json:"hw_queue_depth,omitempty"`
}

// String is the device as a difference names it, e.g. "nvme0n1 (Samsung
// SSD 980, none, depth 1023)".
func (d Device) String() string {
	parts := []string{}
	if d.Model != "" {
		parts = append(parts, d.Model)
	}
	parts = append(parts, "scheduler "+d.Scheduler, "depth "+strconv.Itoa(d.QueueDepth))
	if d.HWQueueDepth > 0 {
		parts = append(parts, "device depth "+strconv.Itoa(d.HWQueueDepth))
	}
	return d.Name + " (" + strings.Join(parts, ", ") + ")"
}

// Fingerprint is everything a result's figures depend on besides the code
// under test. report.RunInfo holds its parts; RunInfo.Fingerprint
// assembles it.
type Fingerprint struct {
	Kernel   string // uname -r
	CPUModel string
	CPUs     int    // CPUs gofio may run on
	Gofio    string // gofio's version and commit
	JobsHash string // the resolved jobs (compare.DescribeJobs)
	Env      *Env   // nil for a result saved before gofio recorded it
}

// The fields of a fingerprint, as Change.Field and --allow-runner-change
// name them.
const (
	FieldKernel      = "kernel"
	FieldCPUModel    = "cpu_model"
	FieldCPUs        = "cpus"
	FieldGovernor    = "governor"
	FieldBoost       = "boost"
	FieldSMT         = "smt"
	FieldMitigations = "mitigations"
	FieldDevices     = "devices"
	FieldGofio       = "gofio"
	FieldJobs        = "jobs"
)

// Fields are the fields a difference may name, in the order Diff reports
// them; FieldJobs is last and is allowed by --allow-different-jobs, not by
// an allowance of runner fields.
var Fields = []string{FieldKernel, FieldCPUModel, FieldCPUs, FieldGovernor, FieldBoost, FieldSMT,
	FieldMitigations, FieldDevices, FieldGofio, FieldJobs}

// Change is one field in which two fingerprints differ.
type Change struct {
	Field    string
	Old, New string
}

// String words the change, e.g. "kernel: old 6.1.0, new 6.6.0".
func (c Change) String() string {
	return fmt.Sprintf("%s: old %s, new %s", c.Field, orUnknown(c.Old), orUnknown(c.New))
}

func orUnknown(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// values returns f's fields as strings, keyed by field name; an unknown
// field reads "".
func (f Fingerprint) values() map[string]string {
	v := map[string]string{
		FieldKernel:   f.Kernel,
		FieldCPUModel: f.CPUModel,
		FieldGofio:    f.Gofio,
		FieldJobs:     f.JobsHash,
	}
	if f.CPUs > 0 {
		v[FieldCPUs] = strconv.Itoa(f.CPUs)
	}
	if e := f.Env; e != nil {
		v[FieldGovernor], v[FieldBoost], v[FieldSMT] = e.Governor, e.Boost, e.SMT
		v[FieldMitigations] = mitigationsString(e.Mitigations)
		v[FieldDevices] = devicesString(e.Devices)
	}
	return v
}

// devicesString lists the devices: "" when they were not recorded (nil),
// "none" for a run on no disk.
func devicesString(ds []Device) string {
	if ds == nil {
		return ""
	}
	if len(ds) == 0 {
		return "none"
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.String()
	}
	return strings.Join(parts, "; ")
}

// mitigationsString lists the vulnerabilities and their states, sorted
// by name: "meltdown=Not affected; spectre_v2=Mitigation: ...".
func mitigationsString(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, "; ")
}

// Diff returns the fields in which cur differs from old, in Fields order.
// A field either side does not know ("") is not a difference. For
// mitigations, the change names only the vulnerabilities whose state
// differs.
func Diff(old, cur Fingerprint) []Change {
	ov, nv := old.values(), cur.values()
	var out []Change
	for _, f := range Fields {
		a, b := ov[f], nv[f]
		if a == "" || b == "" || a == b {
			continue
		}
		if f == FieldMitigations {
			a, b = mitigationsDelta(old.Env.Mitigations, cur.Env.Mitigations)
		}
		out = append(out, Change{Field: f, Old: a, New: b})
	}
	return out
}

// mitigationsDelta lists, on each side, the states of the vulnerabilities
// whose state differs between old and cur.
func mitigationsDelta(old, cur map[string]string) (string, string) {
	o, n := map[string]string{}, map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(old)) {
		if cur[k] != old[k] {
			o[k], n[k] = old[k], orUnknown(cur[k])
		}
	}
	for k, v := range cur {
		if _, ok := old[k]; !ok {
			o[k], n[k] = "(none)", v
		}
	}
	return mitigationsString(o), mitigationsString(n)
}

// Hash is a short hex digest of every known field of f: equal hashes mean
// the same runner, job and gofio. gofio history groups results by it.
func (f Fingerprint) Hash() string {
	h := sha256.New()
	v := f.values()
	for _, k := range Fields {
		fmt.Fprintf(h, "%s=%s\n", k, v[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Allowed is a set of fields that may differ, parsed from
// --allow-runner-change.
type Allowed map[string]bool

// ParseAllowed parses a comma list of field names, or "all" for every
// runner field (FieldJobs is never among them: --allow-different-jobs
// allows it).
func ParseAllowed(list string) (Allowed, error) {
	a := Allowed{}
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
		case f == "all":
			for _, g := range Fields {
				if g != FieldJobs {
					a[g] = true
				}
			}
		case f != FieldJobs && slices.Contains(Fields, f):
			a[f] = true
		default:
			return nil, fmt.Errorf("unknown runner field %q (valid: %s, all)", f,
				strings.Join(Fields[:len(Fields)-1], ", "))
		}
	}
	return a, nil
}
