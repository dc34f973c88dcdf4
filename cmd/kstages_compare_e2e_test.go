package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofio/gofio/internal/loopdev"
	"github.com/gofio/gofio/report"
)

// TestKernelStagesCompareE2E runs the patch's job on a loop device it
// makes with --compare of two kernel task-run modes (COOP_TASKRUN against
// the kernel's SQPOLL) and kernel stages on for the whole run: both sides
// are traced the same way, every side of the comparison's JSON carries its
// stages with at least 99% of its I/Os joined and stages that add up to a
// positive latency, the mode each side ran, and the text table, CSV and
// chart show the kernel's tw wait. Root only.
func TestKernelStagesCompareE2E(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("kernel stages need root (BPF on tracepoints) and a loop device; skipping")
	}
	dev := loopdev.New(t, 64<<20)
	scr := scratchDir(t)
	csvPath, svgPath := filepath.Join(scr, "k.csv"), filepath.Join(scr, "k.svg")
	code, out, errs := runCmd(t, "--compare", "taskrun_mode=coop,sqpoll", "--kernel-stages=required",
		"--set", "filename="+dev.Path, "--set", "size=64m", "--set", "runtime=300ms", "--set", "iodepth=8",
		"--output-format=compare,json", "--compare-csv="+csvPath, "--plot="+svgPath, "examples/randread.fio")
	if code != ExitOK {
		t.Fatalf("exit %d\nstderr: %s", code, errs)
	}
	table, rows := tableAndRows(t, out)
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	row := rows[0].(map[string]any)
	for side, mode := range map[string]string{"new": report.TaskRunCoop, "old": report.TaskRunSQPoll} {
		s, _ := row[side].(map[string]any)
		if s == nil || s["taskrun"] != mode {
			t.Fatalf("side %s ran %v, want taskrun %s", side, s["taskrun"], mode)
		}
		k, _ := s["kernel_stages"].(map[string]any)
		if k == nil || k["available"] != true {
			t.Fatalf("side %s (%s): kernel stages %v", side, mode, k)
		}
		if r := num(t, k, "join_rate"); r < 0.99 {
			t.Errorf("side %s (%s): join rate %v, want >= 0.99: %v", side, mode, r, k)
		}
		mean, _ := k["mean_us"].(map[string]any)
		var sum float64
		for _, st := range []string{"enter", "submit", "queue", "device", "tw", "reap"} {
			v := num(t, mean, st)
			if v < 0 {
				t.Errorf("side %s: stage %s = %v", side, st, v)
			}
			sum += v
		}
		if sum <= 0 || num(t, mean, "device") <= 0 || num(t, mean, "tw") <= 0 {
			t.Errorf("side %s (%s): stage means %v", side, mode, mean)
		}
	}
	// Columns are padded to their widest value, so the stage header is
	// matched on its words, not on the spaces between them.
	words := strings.Join(strings.Fields(table), " ")
	for _, want := range []string{"new ktw", "old ktw p99", "new taskrun", "depth side enter submit queue device tw reap sum joined"} {
		if !strings.Contains(words, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
	csv, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(csv), "new_kstage_tw_us_mean") || strings.Count(string(csv), "\n") != 2 {
		t.Errorf("csv:\n%s", csv)
	}
	svg, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), `id="kstages"`) {
		t.Error("the chart has no kernel stage panel")
	}
}

// TestKernelRefCompareE2E is the check of a kernel developer's comparison
// from a clean clone: the patch's job on a loop device with --compare
// --sweep iodepth=1,32 --kernel-stages --repeat 3 writes JSON in which
// every row has the kernel's own SQPOLL reference (kernel_sqpoll, with its
// stages) and kernel_stage_delta_us with the six stages, and the table
// says where each row's difference sits. Root only.
func TestKernelRefCompareE2E(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("kernel stages need root (BPF on tracepoints) and a loop device; skipping")
	}
	dev := loopdev.New(t, 64<<20)
	code, out, errs := runCmd(t, "--compare", "--sweep", "iodepth=1,32", "--kernel-stages", "--repeat", "3",
		"--set", "filename="+dev.Path, "--set", "size=64m", "--set", "runtime=200ms",
		"--output-format=compare,json", "examples/randread.fio")
	if code != ExitOK {
		t.Fatalf("exit %d\nstderr: %s", code, errs)
	}
	table, rows := tableAndRows(t, out)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	for _, r := range rows {
		row := r.(map[string]any)
		ref, _ := row["kernel_sqpoll"].(map[string]any)
		if ref == nil || num(t, ref, "repeats") != 3 || num(t, ref, "avg_lat_us_median") <= 0 {
			t.Fatalf("row %v: kernel_sqpoll %v", row["value"], ref)
		}
		if k, _ := ref["kernel_stages"].(map[string]any); k == nil || k["available"] != true {
			t.Errorf("row %v: the reference's stages %v", row["value"], k)
		}
		d, _ := row["kernel_stage_delta_us"].(map[string]any)
		for _, st := range []string{"enter", "submit", "queue", "device", "tw", "reap"} {
			s, _ := d[st].(map[string]any)
			if s == nil || s["lo"] == nil || s["hi"] == nil {
				t.Errorf("row %v: kernel_stage_delta_us %s = %v", row["value"], st, s)
			}
		}
		if w := d["where"]; w != "gofio" && w != "kernel" && w != "neither" {
			t.Errorf("row %v: where %v", row["value"], w)
		}
	}
	words := strings.Join(strings.Fields(table), " ")
	for _, want := range []string{"kernel kernel p99 kernel IOPS kernel ktw kernel ktw p99 model cost",
		"where the difference sits (new - old, usec):", "1: ", "32: ", "kernel-sqpoll"} {
		if !strings.Contains(words, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
}

// tableAndRows splits --output-format=compare,json's stdout into the
// table and the comparison's JSON rows.
func tableAndRows(t *testing.T, out string) (string, []any) {
	t.Helper()
	table, js, ok := strings.Cut(out, "\n{")
	if !ok {
		t.Fatalf("no JSON after the table:\n%s", out)
	}
	doc := decodeJSON(t, "stdout", []byte("{"+js))
	cmp, _ := doc[report.CompareJSONKey].(map[string]any)
	rows, _ := cmp["rows"].([]any)
	return table, rows
}
