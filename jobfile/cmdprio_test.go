package jobfile

import (
	"reflect"
	"strings"
	"testing"
)

// TestCmdprioBSSplit checks cmdprio_bssplit as fio 3.33's engine reads it
// when the job starts: per direction, sorted by block size, 0% entries
// dropped, class and level capped, and its refusals.
func TestCmdprioBSSplit(t *testing.T) {
	const rt = 1 << 13
	ok := []struct {
		v    string
		want [2][]CmdprioSplit
	}{
		{"64k/40:4k/30/1/3:4k/0:8k/", [2][]CmdprioSplit{
			{{4096, 30, rt | 3}, {65536, 40, -1}}, {{4096, 30, rt | 3}, {65536, 40, -1}}}},
		{"4k/30/1/3:4k/20/2/5:8k/50,8k/100/3/0", [2][]CmdprioSplit{
			{{4096, 30, rt | 3}, {4096, 20, 2<<13 | 5}, {8192, 50, -1}}, {{8192, 100, 3 << 13}}}},
		{",4k/150/9/9", [2][]CmdprioSplit{nil, {{4096, 100, 3<<13 | 7}}}},
		{"4k/10::8k/10", [2][]CmdprioSplit{{{4096, 10, -1}}, {{4096, 10, -1}}}},
	}
	for _, c := range ok {
		j := parseOne(t, "ioengine=io_uring\ncmdprio_bssplit="+c.v+"\n")
		got, err := j.CmdprioBSSplit()
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %+v, %v; want %+v", c.v, got, err, c.want)
		}
		if u := j.UnrunOptions(); len(u) != 0 {
			t.Errorf("%q: still not run: %q", c.v, u)
		}
	}
	bad := map[string]string{
		"4k/60:4k/50":               "total percentage for bs: 4096 exceeds 100",
		"4k/6/1":                    "invalid cmdprio_bssplit format",
		"x/10":                      `the block size "x" is not a size`,
		"/10":                       "is not a size",
		strings.Repeat("4k/1:", 65): "too many entries",
	}
	for v, want := range bad {
		j := parseOne(t, "ioengine=libaio\ncmdprio_bssplit="+v+"\n") // fio parses it when the job starts
		if _, err := j.CmdprioBSSplit(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", v, err, want)
		}
	}
}
