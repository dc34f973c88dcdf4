package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/loopdev"
)

// TestKernelStagesOutput runs examples/randread.fio with --kernel-stages on
// a loop device it makes: the normal output prints the join and the six
// stages on their own "gofio kstage" lines, with at least 99% of the I/Os
// joined, and the JSON carries gofio.kernel_stages; with
// --kernel-trace-cost, the programs' CPU time per I/O and a note of it.
// Root only.
func TestKernelStagesOutput(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("kernel stages need root (BPF on tracepoints) and a loop device; skipping")
	}
	dev := loopdev.New(t, 64<<20)
	out := filepath.Join(t.TempDir(), "out.json")
	code, stdout, stderr := runCmd(t, "--kernel-stages=required", "--kernel-trace-cost", "examples/randread.fio", "--set", "filename="+dev.Path,
		"--set", "runtime=1", "--output-format=normal,json", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stdout != "" {
		t.Fatalf("stdout with --output: %q", stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "  gofio kstage : ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 7 || !strings.Contains(lines[0], "joined=") {
		t.Fatalf("kstage lines:\n%s", strings.Join(lines, "\n"))
	}
	for i, s := range []string{"enter", "submit", "queue", "device", "tw", "reap"} {
		if !strings.HasPrefix(lines[i+1], "  gofio kstage : "+s+" ") || !strings.Contains(lines[i+1], "p99=") {
			t.Fatalf("stage line %d: %q", i+1, lines[i+1])
		}
	}
	js := text[strings.Index(text, "{"):]
	var doc struct {
		Jobs []struct {
			Gofio struct {
				KS struct {
					Available bool                       `json:"available"`
					JoinRate  float64                    `json:"join_rate"`
					Stages    map[string]json.RawMessage `json:"stages_ns"`
					CostPerIO float64                    `json:"bpf_ns_per_io"`
				} `json:"kernel_stages"`
				Notes []string `json:"engine_notes"`
			} `json:"gofio"`
		} `json:"jobs"`
	}
	if err := json.NewDecoder(strings.NewReader(js)).Decode(&doc); err != nil {
		t.Fatalf("%v in\n%s", err, js)
	}
	ks := doc.Jobs[0].Gofio.KS
	if !ks.Available || ks.JoinRate < 0.99 || len(ks.Stages) != 6 || ks.CostPerIO <= 0 {
		t.Fatalf("kernel_stages: %+v", ks)
	}
	if !strings.Contains(strings.Join(doc.Jobs[0].Gofio.Notes, "\n"), "kernel stages: tracing cost") {
		t.Fatalf("no cost note in %q", doc.Jobs[0].Gofio.Notes)
	}
}

// TestKernelStagesUnavailableOutput runs a job tracing cannot follow (a
// file on tmpfs; as another user, not root): it runs, stderr has one note
// saying why, the normal output one "unavailable" line, and the JSON
// "available": false with the reason; --kernel-stages=required fails it,
// and a bad value is refused before anything is written.
func TestKernelStagesUnavailableOutput(t *testing.T) {
	f := filepath.Join("/dev/shm", "gofio-kstage-"+strings.ReplaceAll(t.Name(), "/", "-"))
	t.Cleanup(func() { os.Remove(f) })
	why := "is not a block device and its file system has none"
	if os.Geteuid() != 0 {
		why = "not root"
	}
	args := []string{"--name=ks", "--ioengine=io_uring", "--rw=randread", "--size=1m", "--filename=" + f}
	code, stdout, stderr := runCmd(t, append([]string{"--kernel-stages"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := strings.Count(stderr, "kernel stages unavailable"); n != 1 || !strings.Contains(stderr, why) {
		t.Fatalf("stderr:\n%s", stderr)
	}
	if !strings.Contains(stdout, "  gofio kstage : unavailable: ") {
		t.Fatalf("stdout:\n%s", stdout)
	}
	code, stdout, _ = runCmd(t, append([]string{"--kernel-stages", "--output-format=json"}, args...)...)
	var doc struct {
		Jobs []struct {
			Gofio struct {
				KS map[string]any `json:"kernel_stages"`
			} `json:"gofio"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); code != 0 || err != nil {
		t.Fatalf("exit %d, %v:\n%s", code, err, stdout)
	}
	if ks := doc.Jobs[0].Gofio.KS; ks["available"] != false || !strings.Contains(ks["reason"].(string), why) {
		t.Fatalf("kernel_stages: %v", ks)
	}
	code, _, stderr = runCmd(t, append([]string{"--kernel-stages=required"}, args...)...)
	if code == 0 || !strings.Contains(stderr, why) {
		t.Fatalf("required: exit %d:\n%s", code, stderr)
	}
	os.Remove(f)
	code, _, stderr = runCmd(t, append([]string{"--kernel-stages=bogus"}, args...)...)
	if _, err := os.Stat(f); code != ExitBadInput || !strings.Contains(stderr, `invalid --kernel-stages "bogus" (valid: 0, 1, required)`) || err == nil {
		t.Fatalf("bad value: exit %d, file written: %v:\n%s", code, err == nil, stderr)
	}
}
