package iouring_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	_ "github.com/gofio/gofio/engines/all"
	"github.com/gofio/gofio/engines/iouring"
	"github.com/gofio/gofio/jobfile"
)

// parse parses one command-line job with the given options.
func parse(t *testing.T, args ...string) *jobfile.Job {
	t.Helper()
	jobs, err := jobfile.Parse(jobfile.Input{CmdLine: append([]string{"--name=j", "--size=1m"}, args...)})
	if err != nil {
		t.Fatal(err)
	}
	return jobs[0]
}

// TestNVMeOptionValues checks io_uring's options of fio 3.36 to 3.42:
// fio 3.42's defaults and values, on io_uring and on io_uring_cmd, which
// holds them alike.
func TestNVMeOptionValues(t *testing.T) {
	if got, want := iouring.OptionsOf(parse(t, "--ioengine=io_uring")), iouring.NewOptions(); !reflect.DeepEqual(got, want) {
		t.Errorf("defaults %+v, want %+v", got, want)
	}
	all := []string{"--readfua=1", "--writefua=1", "--write_mode=zeroes", "--verify_mode=compare", "--deac=1",
		"--md_per_io_size=8k", "--pi_act=0", "--pi_chk=GUARD,REFTAG", "--apptag=0x10", "--apptag_mask=0xff"}
	want := &iouring.Options{ReadFUA: true, WriteFUA: true, WriteMode: "zeroes", VerifyMode: "compare", Deac: true,
		MDPerIOSize: 8192, PIAct: false, PIChk: "GUARD,REFTAG", AppTag: 0x10, AppTagMask: 0xff}
	for _, engine := range []string{"io_uring", "io_uring_cmd"} {
		if got := iouring.OptionsOf(parse(t, append([]string{"--ioengine=" + engine}, all...)...)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, want %+v", engine, got, want)
		}
	}
	for _, bad := range []string{"--readfua=2", "--write_mode=bogus", "--verify_mode=Compare", "--deac=true", "--apptag=abc", "--pi_chk="} {
		if _, err := jobfile.Parse(jobfile.Input{CmdLine: []string{"--name=j", "--ioengine=io_uring", bad}}); err == nil {
			t.Errorf("%s parsed; fio 3.42 refuses it", bad)
		}
	}
}

// TestNVMeOptionsNeeds checks which of the options a run refuses, naming
// the option and the capability it needs, and which run with no effect,
// as on fio 3.42's io_uring.
func TestNVMeOptionsNeeds(t *testing.T) {
	cases := []struct {
		args         []string
		option, want string
	}{
		{[]string{"--ioengine=io_uring", "--md_per_io_size=8"}, "md_per_io_size", "integrity metadata"},
		{[]string{"--ioengine=io_uring", "--md_per_io_size=8", "--apptag_mask=0xff"}, "apptag_mask", "requires an apptag_mask of 0xffff"},
		{[]string{"--ioengine=io_uring_cmd", "--readfua=1"}, "readfua", "Force Unit Access in NVMe Read"},
		{[]string{"--ioengine=io_uring_cmd", "--writefua=1"}, "writefua", "Force Unit Access in NVMe Write"},
		{[]string{"--ioengine=io_uring_cmd", "--rw=write", "--write_mode=uncor"}, "write_mode", "NVMe Write Uncorrectable"},
		{[]string{"--ioengine=io_uring_cmd", "--deac=1"}, "deac", "Deallocate"},
		{[]string{"--ioengine=io_uring_cmd", "--verify_mode=compare"}, "verify_mode", "NVMe Compare"},
		{[]string{"--ioengine=io_uring_cmd", "--md_per_io_size=64"}, "md_per_io_size", "formatted with metadata"},
		{[]string{"--ioengine=io_uring_cmd", "--apptag=7"}, "apptag", "protection information"},
		{[]string{"--ioengine=io_uring_cmd", "--pi_act=0"}, "pi_act", "protection information"},
	}
	for _, c := range cases {
		err := parse(t, c.args...).UnrunError()
		var e *jobfile.Error
		if !errors.As(err, &e) || e.Option != c.option || !strings.Contains(e.Msg, c.want) {
			t.Errorf("%v: got %v, want a refusal at %s saying %q", c.args, err, c.option, c.want)
		}
	}
	// fio 3.42's io_uring sets these only in io_uring_cmd's commands, and
	// uses the PI fields only with md_per_io_size.
	runs := []string{"--readfua=1", "--writefua=1", "--write_mode=zeroes", "--verify_mode=compare", "--deac=1",
		"--pi_act=0", "--pi_chk=GUARD", "--apptag=1", "--apptag_mask=0xff", "--md_per_io_size=4294967296"}
	for _, a := range runs {
		if err := parse(t, "--ioengine=io_uring", a).UnrunError(); err != nil {
			t.Errorf("io_uring %s: %v, want it to run as fio 3.42's (no effect)", a, err)
		}
	}
	if err := parse(t, "--ioengine=io_uring_cmd").UnrunError(); err != nil {
		t.Errorf("io_uring_cmd with io_uring's defaults: %v", err)
	}
}
