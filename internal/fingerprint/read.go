package fingerprint

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Sysfs reads a machine's facts from a sysfs tree: Root "/sys" on the
// machine itself, a directory laid out the same way in tests.
type Sysfs struct{ Root string }

// Read records the machine's Env with the disks named (names under
// /sys/block, as a run's disk statistics name them); nil disks leave the
// devices unknown (Env.Devices nil), as before a run.
func (s Sysfs) Read(disks []string) *Env {
	e := &Env{
		Governor:    s.governor(),
		Boost:       s.boost(),
		SMT:         s.read("devices/system/cpu/smt/control"),
		Mitigations: map[string]string{},
	}
	if disks != nil {
		e.Devices = s.Devices(disks)
	}
	dir := filepath.Join(s.Root, "devices/system/cpu/vulnerabilities")
	if ents, err := os.ReadDir(dir); err == nil {
		for _, ent := range ents {
			e.Mitigations[ent.Name()] = s.read(filepath.Join("devices/system/cpu/vulnerabilities", ent.Name()))
		}
	}
	return e
}

// Devices reads the disks named (names under /sys/block), never nil.
func (s Sysfs) Devices(disks []string) []Device {
	out := make([]Device, 0, len(disks))
	for _, d := range disks {
		out = append(out, s.device(d))
	}
	return out
}

// read returns the trimmed contents of the sysfs file rel, "" when it
// cannot be read.
func (s Sysfs) read(rel string) string {
	b, err := os.ReadFile(filepath.Join(s.Root, rel))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// governor is the scaling governor the CPUs share: "mixed" when they
// differ, "none" when no CPU has cpufreq.
func (s Sysfs) governor() string {
	cpus, _ := filepath.Glob(filepath.Join(s.Root, "devices/system/cpu/cpu[0-9]*"))
	gov := ""
	for _, c := range cpus {
		rel, err := filepath.Rel(s.Root, filepath.Join(c, "cpufreq/scaling_governor"))
		if err != nil {
			continue
		}
		g := s.read(rel)
		switch {
		case g == "":
		case gov == "":
			gov = g
		case gov != g:
			return "mixed"
		}
	}
	if gov == "" {
		return "none"
	}
	return gov
}

// boost is turbo boost: cpufreq's global boost switch (acpi-cpufreq,
// amd-pstate), else intel_pstate's no_turbo inverted; "" when neither
// exists.
func (s Sysfs) boost() string {
	switch s.read("devices/system/cpu/cpufreq/boost") {
	case "1":
		return "on"
	case "0":
		return "off"
	}
	switch s.read("devices/system/cpu/intel_pstate/no_turbo") {
	case "0":
		return "on"
	case "1":
		return "off"
	}
	return ""
}

// device reads one disk's model, scheduler and queue depths.
func (s Sysfs) device(name string) Device {
	base := filepath.Join("block", name)
	d := Device{Name: name, Model: s.read(filepath.Join(base, "device/model"))}
	d.Scheduler = "none"
	for _, f := range strings.Fields(s.read(filepath.Join(base, "queue/scheduler"))) {
		if strings.HasPrefix(f, "[") && strings.HasSuffix(f, "]") {
			d.Scheduler = strings.Trim(f, "[]")
		}
	}
	d.QueueDepth, _ = strconv.Atoi(s.read(filepath.Join(base, "queue/nr_requests")))
	d.HWQueueDepth, _ = strconv.Atoi(s.read(filepath.Join(base, "device/queue_depth")))
	return d
}
