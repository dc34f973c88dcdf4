package fingerprint

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeSysfs lays out files (path relative to the root -> contents) in a
// temporary sysfs tree.
func fakeSysfs(t *testing.T, files map[string]string) Sysfs {
	t.Helper()
	root := t.TempDir()
	for rel, data := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Sysfs{Root: root}
}

func TestRead(t *testing.T) {
	s := fakeSysfs(t, map[string]string{
		"devices/system/cpu/cpu0/cpufreq/scaling_governor":  "performance",
		"devices/system/cpu/cpu1/cpufreq/scaling_governor":  "performance",
		"devices/system/cpu/intel_pstate/no_turbo":          "1",
		"devices/system/cpu/smt/control":                    "on",
		"devices/system/cpu/vulnerabilities/meltdown":       "Not affected",
		"devices/system/cpu/vulnerabilities/spectre_v2":     "Mitigation: Retpolines",
		"block/nvme0n1/device/model":                        "Samsung SSD 980 PRO 1TB",
		"block/nvme0n1/queue/scheduler":                     "[none] mq-deadline kyber",
		"block/nvme0n1/queue/nr_requests":                   "1023",
		"block/sda/queue/scheduler":                         "none [mq-deadline] bfq",
		"block/sda/queue/nr_requests":                       "64",
		"block/sda/device/queue_depth":                      "32",
		"block/sda/device/model":                            "ST4000NM0035",
		"devices/system/cpu/cpu2/cpufreq/scaling_available": "x",
	})
	got := s.Read([]string{"nvme0n1", "sda", "vdz"})
	want := &Env{
		Governor: "performance", Boost: "off", SMT: "on",
		Mitigations: map[string]string{"meltdown": "Not affected", "spectre_v2": "Mitigation: Retpolines"},
		Devices: []Device{
			{Name: "nvme0n1", Model: "Samsung SSD 980 PRO 1TB", Scheduler: "none", QueueDepth: 1023},
			{Name: "sda", Model: "ST4000NM0035", Scheduler: "mq-deadline", QueueDepth: 64, HWQueueDepth: 32},
			{Name: "vdz", Scheduler: "none"},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Read:\n got %+v\nwant %+v", got, want)
	}
}

func TestReadGovernorAndBoost(t *testing.T) {
	for _, c := range []struct {
		files        map[string]string
		gov, boost   string
		smtSupported string
	}{
		{map[string]string{"devices/system/cpu/cpu0/online": "1"}, "none", "", ""},
		{map[string]string{
			"devices/system/cpu/cpu0/cpufreq/scaling_governor":  "performance",
			"devices/system/cpu/cpu1/cpufreq/scaling_governor":  "powersave",
			"devices/system/cpu/cpu10/cpufreq/scaling_governor": "performance",
			"devices/system/cpu/cpufreq/boost":                  "1",
		}, "mixed", "on", ""},
		{map[string]string{"devices/system/cpu/cpufreq/boost": "0", "devices/system/cpu/smt/control": "notsupported"}, "none", "off", "notsupported"},
	} {
		e := fakeSysfs(t, c.files).Read([]string{})
		if e.Governor != c.gov || e.Boost != c.boost || e.SMT != c.smtSupported || e.Devices == nil || len(e.Devices) != 0 {
			t.Errorf("%v: governor %q boost %q smt %q devices %v; want %q %q %q none", c.files, e.Governor, e.Boost, e.SMT, e.Devices, c.gov, c.boost, c.smtSupported)
		}
	}
}

// TestReadThisMachine reads the real /sys: whatever it holds, the
// governor is never "" and every disk named comes back.
func TestReadThisMachine(t *testing.T) {
	e := Sysfs{Root: "/sys"}.Read([]string{"loop0"})
	if e.Governor == "" || len(e.Devices) != 1 || e.Devices[0].Name != "loop0" {
		t.Errorf("Read(/sys) = %+v", e)
	}
}

func fp() Fingerprint {
	return Fingerprint{Kernel: "6.1.0", CPUModel: "AMD EPYC 7R13", CPUs: 16, Gofio: "gofio-1.0 abc", JobsHash: "j1",
		Env: &Env{Governor: "performance", Boost: "off", SMT: "on",
			Mitigations: map[string]string{"meltdown": "Not affected", "spectre_v2": "Mitigation: Retpolines", "mds": "Not affected"},
			Devices:     []Device{{Name: "nvme0n1", Model: "X", Scheduler: "none", QueueDepth: 1023}}}}
}

func TestDiff(t *testing.T) {
	a := fp()
	if d := Diff(a, fp()); len(d) != 0 {
		t.Errorf("Diff of equal fingerprints = %v", d)
	}
	if fp().Hash() != a.Hash() || len(a.Hash()) != 16 {
		t.Errorf("Hash %q not stable", a.Hash())
	}
	b := fp()
	b.Kernel, b.CPUs = "6.6.0", 8
	b.Env.Governor = "powersave"
	b.Env.Mitigations["spectre_v2"] = "Vulnerable"
	b.Env.Mitigations["tsa"] = "Not affected"
	b.Env.Devices[0].Scheduler = "mq-deadline"
	got := Diff(a, b)
	want := []Change{
		{FieldKernel, "6.1.0", "6.6.0"},
		{FieldCPUs, "16", "8"},
		{FieldGovernor, "performance", "powersave"},
		{FieldMitigations, "spectre_v2=Mitigation: Retpolines; tsa=(none)", "spectre_v2=Vulnerable; tsa=Not affected"},
		{FieldDevices, "nvme0n1 (X, scheduler none, depth 1023)", "nvme0n1 (X, scheduler mq-deadline, depth 1023)"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Diff:\n got %v\nwant %v", got, want)
	}
	if a.Hash() == b.Hash() {
		t.Error("different fingerprints hash the same")
	}
	if s := got[0].String(); s != "kernel: old 6.1.0, new 6.6.0" {
		t.Errorf("Change.String = %q", s)
	}
}

// TestDiffUnknown: a field one side does not know is no difference, so a
// result saved before gofio recorded the environment compares on the
// rest.
func TestDiffUnknown(t *testing.T) {
	old := fp()
	old.Env, old.CPUs, old.Gofio = nil, 0, ""
	cur := fp()
	if d := Diff(old, cur); len(d) != 0 {
		t.Errorf("Diff with unknowns = %v", d)
	}
	cur.JobsHash = "j2"
	if d := Diff(old, cur); len(d) != 1 || d[0].Field != FieldJobs {
		t.Errorf("Diff of other jobs = %v", d)
	}
	// Devices not yet known (nil, before a run) are no difference.
	cur.JobsHash = "j1"
	cur.Env.Devices = nil
	if d := Diff(fp(), cur); len(d) != 0 {
		t.Errorf("Diff with devices unknown = %v", d)
	}
	// A run on tmpfs (no disk) against one on a disk is a difference.
	a, b := fp(), fp()
	a.Env.Devices = []Device{}
	if d := Diff(a, b); len(d) != 1 || d[0].Field != FieldDevices || d[0].Old != "none" {
		t.Errorf("tmpfs against a disk: %v", d)
	}
}

func TestParseAllowed(t *testing.T) {
	a, err := ParseAllowed("kernel, gofio")
	if err != nil || !reflect.DeepEqual(a, Allowed{FieldKernel: true, FieldGofio: true}) {
		t.Errorf("ParseAllowed = %v, %v", a, err)
	}
	all, err := ParseAllowed("all")
	if err != nil || len(all) != len(Fields)-1 || all[FieldJobs] {
		t.Errorf("ParseAllowed(all) = %v, %v", all, err)
	}
	for _, bad := range []string{"jobs", "host", "kernel,nope"} {
		if _, err := ParseAllowed(bad); err == nil || !strings.Contains(err.Error(), "valid: kernel,") {
			t.Errorf("ParseAllowed(%q) = %v", bad, err)
		}
	}
}
