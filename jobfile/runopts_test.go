package jobfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunOptions parses compare=, sweep=, repeat=, fail_if_slower= and slo= from
// [global] and refuses them in a job section and with bad values, with the
// file and line.
func TestRunOptions(t *testing.T) {
	write := func(text string) string {
		path := filepath.Join(t.TempDir(), "j.fio")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	path := write("[global]\nioengine=null\nsize=1m\ncompare=ioengine=io_uring,libaio\nsweep=iodepth=1..64 bs=4k,8k\nrepeat=5\nfail_if_slower=2.5\nslo=p99<=2ms\n[a]\n[b]\n")
	jobs, err := Parse(Input{Files: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		r := j.Run
		if r.Compare != "ioengine=io_uring,libaio" || strings.Join(r.Sweeps, " ") != "iodepth=1..64 bs=4k,8k" ||
			r.Repeat != 5 || !r.HasFailIfSlower || r.FailIfSlower != 2.5 || r.SLO != "p99<=2ms" {
			t.Errorf("job %s: %+v", j.Name, r)
		}
	}
	none, err := Parse(Input{Files: []string{write("[j]\nioengine=null\nsize=1m\n")}})
	if err != nil || none[0].Run.HasFailIfSlower || none[0].Run.Repeat != 0 || none[0].Run.Compare != "" || none[0].Run.SLO != "" {
		t.Errorf("defaults: %+v %v", none[0].Run, err)
	}
	for _, tt := range []struct{ text, want string }{
		{"[j]\nioengine=null\nsize=1m\nrepeat=5\n", ":4: repeat=5: repeat= is a gofio option for the whole run: put it in [global] (or use --repeat)"},
		{"[global]\nrepeat=0\n[j]\nioengine=null\nsize=1m\n", ":2: repeat=0"},
		{"[global]\nfail_if_slower=-1\n[j]\nioengine=null\nsize=1m\n", "want a percentage of 0 or more"},
		{"[j]\nioengine=null\nsize=1m\nslo=p99<=2ms\n", ":4: slo=p99<=2ms: slo= is a gofio option for the whole run: put it in [global] (or use --slo)"},
		{"[global]\nslo=\n[j]\nioengine=null\nsize=1m\n", ":2: slo=: empty value"},
	} {
		_, err := Parse(Input{Files: []string{write(tt.text)}})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.text, err, tt.want)
		}
	}
}
