package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestTaskRunOf(t *testing.T) {
	tests := []struct {
		flags []string
		sq    string
		want  string
	}{
		{nil, SQNone, ""}, // not io_uring
		{[]string{"CQSIZE", "NO_SQARRAY"}, SQNone, TaskRunNone},
		{[]string{"CQSIZE", "COOP_TASKRUN", "TASKRUN_FLAG"}, SQNone, TaskRunCoop},
		{[]string{"CQSIZE", "SINGLE_ISSUER", "DEFER_TASKRUN", "COOP_TASKRUN"}, SQNone, TaskRunDefer}, // fio's flags
		{[]string{"SQPOLL", "CQSIZE"}, SQKernel, TaskRunSQPoll},
		{[]string{"CQSIZE"}, SQGoroutine, TaskRunModel},
		{nil, SQGoroutine, TaskRunModel},
	}
	for _, tt := range tests {
		if got := TaskRunOf(tt.flags, tt.sq); got != tt.want {
			t.Errorf("TaskRunOf(%v, %q) = %q, want %q", tt.flags, tt.sq, got, tt.want)
		}
	}
}

// modeFixture is a one-side sweep of iodepth and taskrun_mode: the four
// kernel modes at two depths.
func modeFixture() *Comparison {
	c := &Comparison{RW: "randread", BS: "4k", Engine: "io_uring", SQPoll: "swept", Version: "gofio-0.1", Kernel: "6.18.0-test",
		Key: "iodepth,taskrun_mode", Keys: []string{"iodepth", "taskrun_mode"}, Metric: "lat", Repeat: 1,
		New: SideSpec{Name: PolicyPriority, SQThread: SQMixed}}
	lat := 10.0
	for _, d := range []string{"1", "64"} {
		for _, m := range []string{TaskRunNone, TaskRunCoop, TaskRunDefer, TaskRunSQPoll} {
			lat += 1.5
			s := ComparisonSide{Name: PolicyPriority, TaskRun: m, TWWaitUs: lat / 10, TWWaitP99Us: lat / 2,
				Repeats: []RepeatStats{{AvgLatUs: lat, P99Us: 2 * lat, IOPS: 1e6 / lat, IOs: 1000}}}
			s.Summarize()
			c.Rows = append(c.Rows, ComparisonRow{Value: d + "," + m, Values: []string{d, m}, New: s})
		}
	}
	return c
}

func TestWriteCompareTableModes(t *testing.T) {
	c := modeFixture()
	var b bytes.Buffer
	if err := WriteCompareTable(&b, c); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(out, "\n")
	h := -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "iodepth,taskrun_mode") {
			h = i
			break
		}
	}
	if h < 0 {
		t.Fatalf("no header line in:\n%s", out)
	}
	// One side: no old, Δ% or verdict columns, the taskrun column after the key.
	head := strings.Fields(lines[h])
	wantHead := []string{"iodepth,taskrun_mode", "taskrun", "avg", "lat", "p99", "tw", "tw", "p99", "IOPS"}
	if strings.Join(head, " ") != strings.Join(wantHead, " ") {
		t.Errorf("header = %q, want %q", head, wantHead)
	}
	for i, r := range c.Rows {
		f := strings.Fields(lines[h+1+i])
		if len(f) != 7 || f[0] != r.Value || f[1] != r.New.TaskRun || f[2] != cmpFig(&r.New, GateAvg) {
			t.Errorf("row %d = %q, want %s, %s, %s and four figures", i, f, r.Value, r.New.TaskRun, cmpFig(&r.New, GateAvg))
		}
	}
	// The legend says who ran the task work in each mode.
	for _, m := range []string{TaskRunNone, TaskRunCoop, TaskRunDefer, TaskRunSQPoll} {
		if !strings.Contains(out, m+" = "+TaskRunWords(m)) {
			t.Errorf("the legend lacks %q", m+" = "+TaskRunWords(m))
		}
	}
	if strings.Contains(out, "verdict") || strings.Contains(out, "old") {
		t.Errorf("a one-side table has old or verdict columns:\n%s", out)
	}
}

// TestCompareTaskRunColumns checks a --compare whose sides ran different
// modes: a taskrun column per side, the verdict where markdown bolds it,
// and the CSV and JSON carry the modes.
func TestCompareTaskRunColumns(t *testing.T) {
	c := cmpFixture()
	c.New = SideSpec{Name: "coop", Key: "taskrun_mode", Value: "coop", SQThread: SQNone}
	c.Old = SideSpec{Name: "defer", Key: "taskrun_mode", Value: "defer", SQThread: SQNone}
	for i := range c.Rows {
		c.Rows[i].New.TaskRun, c.Rows[i].Old.TaskRun = TaskRunCoop, TaskRunDefer
		if !c.Rows[i].Old.Ran() {
			c.Rows[i].Old.TaskRun = ""
		}
	}
	h := cmpHeader(c)
	if h[1] != "new taskrun" || h[2] != "old taskrun" || h[cmpVerdictColumn(c)] != "verdict" {
		t.Fatalf("header = %q, want the taskrun columns after the key and the verdict at %d", h, cmpVerdictColumn(c))
	}
	if cells := cmpCells(c, &c.Rows[1]); cells[1] != TaskRunCoop || cells[2] != TaskRunDefer || cells[cmpVerdictColumn(c)] != VerdictSlower {
		t.Errorf("cells = %q", cells)
	}
	var md bytes.Buffer
	if err := WriteCompareMarkdown(&md, c, -1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| **slower** |") {
		t.Errorf("markdown does not bold the slower verdict:\n%s", md.String())
	}
	var csvb bytes.Buffer
	if err := WriteCompareCSV(&csvb, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csvb.String(), ",none,none,coop,defer,") {
		t.Errorf("csv lacks the taskrun cells:\n%s", csvb.String())
	}
	back := CompareJSON(c).Comparison()
	if back.Rows[0].New.TaskRun != TaskRunCoop || back.Rows[0].Old.TaskRun != TaskRunDefer {
		t.Errorf("JSON round trip lost the modes: %q, %q", back.Rows[0].New.TaskRun, back.Rows[0].Old.TaskRun)
	}
}
