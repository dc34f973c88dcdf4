package jobfile

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestNewerOptionValues checks what fio 3.34-3.42's job options store,
// with fio 3.42's values, aliases and defaults.
func TestNewerOptionValues(t *testing.T) {
	d := parseOne(t, "")
	wantDefault := Newer{NumRange: 1, VerifyWriteSequence: true, VerifyHeaderSeed: true,
		Placement: Placement{Type: "none", Select: "roundrobin"}, SPRandom: SPRandom{Regions: 100, OP: 0.15}}
	if !reflect.DeepEqual(d.Newer, wantDefault) {
		t.Errorf("defaults %+v, want %+v", d.Newer, wantDefault)
	}
	if d.SteadyState.Interval != time.Second {
		t.Errorf("steadystate_check_interval default %v, want 1s", d.SteadyState.Interval)
	}
	cases := []struct {
		body string
		get  func(j *Job) any
		want any
	}{
		{"comm=mycomm\n", func(j *Job) any { return j.Comm }, "mycomm"},
		{"filetype=block\n", func(j *Job) any { return j.FileType }, "block"},
		{"filetype=none\n", func(j *Job) any { return j.FileType }, ""},
		{"num_range=8\n", func(j *Job) any { return j.NumRange }, 8},
		{"spr_num_regions=50\nspr_op=0.3\nspr_cs=8g\n", func(j *Job) any { return j.SPRandom },
			SPRandom{Regions: 50, OP: 0.3, CacheSize: 8 << 30}},
		{"ramp_size=1m\n", func(j *Job) any { return j.RampSize }, uint64(1 << 20)},
		{"verify_write_sequence=0\nverify_header_seed=0\n", func(j *Job) any { return [2]bool{j.VerifyWriteSequence, j.VerifyHeaderSeed} }, [2]bool{}},
		{"fdp=1\n", func(j *Job) any { return j.Placement.Type }, "fdp"},
		{"data_placement=streams\nfdp_pli_select=random\n", func(j *Job) any { return j.Placement.Type + "," + j.Placement.Select }, "streams,random"},
		{"plids=5,1-3,0x10\n", func(j *Job) any { return j.Placement.IDs }, []uint16{1, 2, 3, 5, 16}},
		{"fdp_pli=4,,7\n", func(j *Job) any { return j.Placement.IDs }, []uint16{4}},
		{"priohint=3\nprioclass=2\nprio=4\n", func(j *Job) any { return j.IOPrio() }, 2<<13 | 3<<3 | 4},
		{"priohint=1\n", func(j *Job) any { return j.PrioSet }, true},
		{"thinkcycles=5000\n", func(j *Job) any { return j.ThinkCycles }, uint64(5000)},
		{"end_syncfs=1\n", func(j *Job) any { return j.EndSyncfs }, true},
		{"log_window_value=max\n", func(j *Job) any { return j.LogMaxValue }, true},
		{"log_max_value=both\n", func(j *Job) any { return [2]bool{j.LogMaxValue, j.LogWindowBoth} }, [2]bool{false, true}},
		{"log_max_value=1\n", func(j *Job) any { return j.LogMaxValue }, true},
		{"log_issue_time=1\n", func(j *Job) any { return j.LogIssueTime }, true},
		{"job_start_clock_id=1\n", func(j *Job) any { return j.JobStartClock }, 1},
		{"ss_interval=500ms\n", func(j *Job) any { return j.SteadyState.Interval }, 500 * time.Millisecond},
		{"rw=randwrite\nsprandom=1\n", func(j *Job) any { return []any{j.RandomGenerator, j.NoRandomMap, j.SPRandomNotes()} },
			[]any{"lfsr", true, []string{"fio: sprandom sets random_generator=lfsr", "fio: sprandom sets norandommap=1"}}},
		{"rw=randrw\nsprandom=1\nrandom_generator=lfsr\nnorandommap=1\n", func(j *Job) any { return j.SPRandomNotes() }, []string(nil)},
		{"zonemode=zbd\nzonesize=1m\nwrite_zone_remainder=1\n", func(j *Job) any { return [2]bool{j.WriteZoneRemainder, j.NoRandomMap} }, [2]bool{true, true}},
		{"write_zone_remainder=1\n", func(j *Job) any { return j.NoRandomMap }, false},
		{"steadystate_check_interval=3\n", func(j *Job) any { return j.SteadyState.Interval }, 3 * time.Second},
	}
	for _, c := range cases {
		if got := c.get(parseOne(t, c.body)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %v, want %v", c.body, got, c.want)
		}
	}
}

// TestNewerOptionErrors checks the values fio 3.42 refuses.
func TestNewerOptionErrors(t *testing.T) {
	for _, body := range []string{
		"filetype=pipe\n", "num_range=257\n", "sprandom=2\n", "spr_op=x\n", "ramp_size=0\n",
		"dataplacement=zns\n", "plid_select=first\n", "plids=4-1\n", "plids=0-200\n", "plids=70000\n",
		"priohint=1024\n", "log_window_value=2\n", "log_max_value=min\n", "ss_interval=x\n",
		"rw=trimwrite\nnum_range=2\n", "rw=randtrim\nnum_range=2\n",
		"zonemode=zbd\nzonesize=1m\nwrite_zone_remainder=1\nnorandommap=0\n",
	} {
		if _, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nsize=1m\n"+body)}, Host: &testHost}); err == nil {
			t.Errorf("%q: parsed, want an error", body)
		}
	}
}

// TestNewerHardwareRefused checks that options needing NVMe data
// placement or multi-range trims are refused at run time, naming the
// option, its line and the capability.
func TestNewerHardwareRefused(t *testing.T) {
	scheme := filepath.Join(t.TempDir(), "scheme")
	if err := os.WriteFile(scheme, []byte("0, 4096, 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ body, option, want string }{
		{"fdp=1\n", "dataplacement", "Flexible Data Placement"},
		{"dataplacement=streams\n", "dataplacement", "Streams"},
		{"ioengine=io_uring_cmd\nrw=randtrim\nnum_range=4\n", "num_range", "Dataset Management"},
		{"dp_scheme=/nonexistent/scheme\n", "dp_scheme", "lstat"},
		{"dp_scheme=" + filepath.Dir(scheme) + "\n", "dp_scheme", "is not a file"},
		{"log_window_value=both\nlog_store_compressed=1\n", "log_store_compressed", "both"},
		{"sprandom=1\n", "sprandom", "requires random write"},
		{"rw=randwrite\nsprandom=1\nrandom_generator=tausworthe\n", "random_generator", "requires random_generator=lfsr"},
		{"rw=randwrite\nsprandom=1\nnorandommap=0\n", "norandommap", "requires norandommap=1"},
		{"rw=randwrite\nsprandom=1\nnrfiles=2\n", "nrfiles", "supports only one file"},
		{"rw=randwrite\nsprandom=1\nbs=12k\n", "bs", "bs [12288] should be power of 2"},
		{"rw=randwrite\nsprandom=1\nspr_num_regions=0\n", "spr_num_regions", "at least one region"},
		{"log_issue_time=1\nlog_store_compressed=1\n", "log_store_compressed", "log_issue_time"},
	}
	for _, c := range cases {
		err := parseOne(t, c.body).UnrunError()
		var e *Error
		if !errors.As(err, &e) || e.Option != c.option || !strings.Contains(e.Msg, c.want) || e.Line == 0 {
			t.Errorf("%q: got %v, want an error at option %s's line saying %q", c.body, err, c.option, c.want)
		}
	}
	for _, body := range []string{"plids=1-3\nplid_select=random\n", "dp_scheme=" + scheme + "\n", "num_range=4\n", "dataplacement=none\n"} {
		if err := parseOne(t, body).UnrunError(); err != nil {
			t.Errorf("%q: %v, want it to run (fio uses these only with data placement or trims)", body, err)
		}
	}
}
