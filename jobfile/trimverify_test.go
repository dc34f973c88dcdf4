package jobfile

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestTrimVerifyOptions checks what fio 3.33's trim verify options store
// and when a job trims what it verifies (Job.TrimVerify).
func TestTrimVerifyOptions(t *testing.T) {
	cases := []struct {
		body string
		want []any // TrimPercentage, TrimVerifyZero, TrimBacklog, TrimBacklogBatch, TrimVerify()
	}{
		{"rw=trimwrite\n", []any{0, true, uint64(0), 0, false}},
		{"rw=trimwrite\nverify=crc32c\ntrim_percentage=50\ntrim_backlog=8\n", []any{50, true, uint64(8), 0, true}},
		{"rw=randtrimwrite\nverify=null\ntrim_percentage=100\ntrim_backlog=1k\ntrim_backlog_batch=4\ntrim_verify_zero=0\n", []any{100, false, uint64(1024), 4, true}},
		// No trim_backlog, no verify, do_verify=0, experimental_verify:
		// fio never trims a logged block.
		{"rw=trimwrite\nverify=crc32c\ntrim_percentage=50\n", []any{50, true, uint64(0), 0, false}},
		{"rw=trimwrite\ntrim_percentage=50\ntrim_backlog=8\n", []any{50, true, uint64(8), 0, false}},
		{"rw=trimwrite\nverify=0\ntrim_percentage=50\ntrim_backlog=8\n", []any{50, true, uint64(8), 0, false}},
		{"rw=trimwrite\nverify=md5\ndo_verify=0\ntrim_percentage=50\ntrim_backlog=8\n", []any{50, true, uint64(8), 0, false}},
		{"rw=trimwrite\nverify=md5\nexperimental_verify=1\ntrim_percentage=50\ntrim_backlog=8\n", []any{50, true, uint64(8), 0, false}},
		{"rw=trimwrite\nverify=md5\ntrim_percentage=0\ntrim_backlog=8\n", []any{0, true, uint64(8), 0, false}},
		// A job that does not write has nothing to trim.
		{"rw=randread\nverify=md5\ntrim_percentage=50\ntrim_backlog=8\n", []any{50, true, uint64(8), 0, false}},
	}
	for _, c := range cases {
		j := parseOne(t, c.body)
		got := []any{j.TrimPercentage, j.TrimVerifyZero, j.TrimBacklog, j.TrimBacklogBatch, j.TrimVerify()}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %v, want %v", c.body, got, c.want)
		}
	}
}

// TestTrimVerifyErrors checks fio's range errors for the trim verify
// options and gofio's refusal of a job fio 3.33 aborts: trim verify in a
// job that writes but does not trim, where fio's fio_ro_check assertion
// fires at the first trim (rw=write and randrw, measured).
func TestTrimVerifyErrors(t *testing.T) {
	for body, want := range map[string]string{
		"trim_percentage=101\n":   "j.fio:3: trim_percentage=101: max value out of range: 101 (100 max)",
		"trim_percentage=-1\n":    "min value out of range: -1 (0 min)",
		"trim_verify_zero=2\n":    "trim_verify_zero=2",
		"trim_backlog_batch=-1\n": "min value out of range: -1 (0 min)",
		"trim_backlog=x\n":        "trim_backlog=x",
		"rw=write\nverify=md5\ntrim_percentage=10\ntrim_backlog=4\n": "j.fio:6: trim_backlog: trim_percentage with trim_backlog trims written blocks, which needs rw=trimwrite or randtrimwrite; " +
			"fio 3.33 aborts rw=write on an assertion (fio_ro_check)",
		"rw=randrw\nverify=null\ntrim_percentage=10\ntrim_backlog=4\n": "fio 3.33 aborts rw=randrw",
	} {
		_, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nsize=1m\n"+body)}, Host: &testHost})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", body, err, want)
		}
	}
	// Without verify, or with do_verify=0, fio logs no block and runs.
	for _, body := range []string{"rw=write\ntrim_percentage=10\ntrim_backlog=4\n", "rw=write\nverify=md5\ndo_verify=0\ntrim_percentage=10\ntrim_backlog=4\n"} {
		if _, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nsize=1m\n"+body)}, Host: &testHost}); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
}

// TestTrimPercentageWithoutBacklog checks the warning for trim_percentage
// without trim_backlog, which trims nothing in fio 3.33 either.
func TestTrimPercentageWithoutBacklog(t *testing.T) {
	var warn bytes.Buffer
	_, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nsize=1m\nrw=trimwrite\nverify=md5\ntrim_percentage=50\n")}, Host: &testHost, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if want := "/j.fio:5: trim_percentage: warning: without trim_backlog it trims nothing"; !strings.HasPrefix(warn.String(), "gofio: ") || !strings.Contains(warn.String(), want) {
		t.Errorf("warning %q, want gofio: ...%q", warn.String(), want)
	}
	warn.Reset()
	if _, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nsize=1m\nrw=trimwrite\nverify=md5\ntrim_percentage=50\ntrim_backlog=2\n")}, Host: &testHost, Warn: &warn}); err != nil || warn.Len() > 0 {
		t.Errorf("with trim_backlog: err %v, warning %q", err, warn.String())
	}
}
