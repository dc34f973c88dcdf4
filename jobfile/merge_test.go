package jobfile

import (
	"reflect"
	"strings"
	"testing"
)

// TestMergeBlktraceOptions checks merge_blktrace_file, _scalars and
// _iters as fio reads them: float lists cut to ints, counted up to the
// first 0, one value per read_iolog= trace.
func TestMergeBlktraceOptions(t *testing.T) {
	j := parseOne(t, "read_iolog=a.bin:b.bin:c.bin\nmerge_blktrace_file=m.bin\nmerge_blktrace_scalars=50.9:100:200\nmerge_blktrace_iters=2:1:3:0:7\n")
	want := IOLog{Read: "a.bin:b.bin:c.bin", MergeFile: "m.bin", MergeScalars: []int{50, 100, 200}, MergeIters: []int{2, 1, 3}}
	got := j.IOLog
	got.ReplayTimeScale, got.ReplayScale = 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Errorf("IOLog = %+v, want %+v", got, want)
	}
	for _, c := range []struct{ body, want string }{
		{"merge_blktrace_file=m.bin\n", "read_iolog=, which is not set"},
		{"read_iolog=a:b\nmerge_blktrace_file=m.bin\nmerge_blktrace_scalars=50\n", "merge_blktrace_scalars(1) != nr_logs(2)"},
		{"read_iolog=a:b\nmerge_blktrace_file=m.bin\nmerge_blktrace_iters=1:0:2\n", "merge_blktrace_iters(1) != nr_logs(2)"},
		{"read_iolog=a\nmerge_blktrace_file=m.bin\nmerge_blktrace_iters=x\n", "not a floating point value"},
		{"read_iolog=a\nmerge_blktrace_file=m.bin\nmerge_blktrace_iters=" + strings.Repeat("1:", 20) + "1\n", "at most 20 values"},
	} {
		_, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nsize=1m\n"+c.body)}, Host: &testHost})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
}
