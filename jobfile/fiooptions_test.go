package jobfile

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// parseOne parses job section j, after a job named other, and returns j's
// first job.
func parseOne(t *testing.T, body string) *Job {
	t.Helper()
	jobs, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[other]\nsize=1m\n[j]\nsize=1m\n"+body)}, Host: &testHost})
	if err != nil {
		t.Fatal(err)
	}
	return jobs[1]
}

// TestFioOptionValues checks what fio's options beyond the core set store.
func TestFioOptionValues(t *testing.T) {
	cases := []struct {
		body string
		got  func(j *Job) any
		want any
	}{
		{"zonemode=strided\nzonesize=1m\nzoneskip=2m\n", func(j *Job) any { return j.Zones },
			Zones{Mode: "strided", Size: 1 << 20, Range: 1 << 20, Skip: 2 << 20}},
		{"zonesize=1m\nzonerange=4m\nzoneskip=10%\n", func(j *Job) any { return []uint64{j.Zones.Range, uint64(j.Zones.SkipPercent)} }, []uint64{4 << 20, 10}},
		{"flow=3\nflow_id=2\nflow_sleep=100\n", func(j *Job) any { return j.Flow }, Flow{Weight: 3, ID: 2, Sleep: 100 * time.Microsecond}},
		{"rate=1m,2m\n", func(j *Job) any { return j.Rate }, [NumDirs]uint64{1 << 20, 2 << 20, 2 << 20}},
		{"ratemin=1k\n", func(j *Job) any { return j.RateMin }, [NumDirs]uint64{1024, 1024, 1024}},
		{"thinktime=1ms\nthinktime_spin=10\nthinktime_blocks=4\n", func(j *Job) any { return j.Think },
			ThinkTime{Time: time.Millisecond, Spin: 10 * time.Microsecond, Blocks: 4, BlocksType: "complete"}},
		{"thinktime=250\n", func(j *Job) any { return j.Think.Time }, 250 * time.Microsecond},
		{"ignore_error=EIO:5,,ENOSPC\n", func(j *Job) any { return j.IgnoreError }, [3][]int{{5, 5}, nil, {28}}},
		{"fallocate=1\n", func(j *Job) any { return j.Fallocate }, "posix"},
		{"sync=1\n", func(j *Job) any { return j.Sync }, "sync"},
		{"wait_for=other\n", func(j *Job) any { return j.WaitFor }, "other"},
		{"rw=read:-8k\n", func(j *Job) any { return j.RWSeqAdd }, int64(-8192)},
		{"rw=write:4k\n", func(j *Job) any { return j.RWSeqAdd }, int64(4096)},
		{"write_bw_log\nwrite_lat_log=lat\n", func(j *Job) any { return []string{j.WriteBWLog, j.WriteLatLog, j.WriteIOPSLog} },
			[]string{"j", "lat", ""}},
		{"verify=meta\n", func(j *Job) any { return j.Verify }, "meta"},
		{"prioclass=2\nprio=3\n", func(j *Job) any { return []int{j.PrioClass, j.Prio} }, []int{2, 3}},
		{"threads=4\n", func(j *Job) any { return j.Thread }, false}, // the tiobench option is not thread=
		{"", func(j *Job) any { return j.FileService }, FileService{Kind: "roundrobin", Nr: 1, Center: -1}},
		{"", func(j *Job) any { return j.SeqPercent }, [NumDirs]int{}},
		{"lockmem=64m\n", func(j *Job) any { return j.LockMem }, uint64(64 << 20)},
		{"", func(j *Job) any { return []any{j.Mem, j.MemFile, j.HugepageSize} }, []any{"malloc", "", uint64(4 << 20)}},
		{"iomem=mmaphuge: /hugetlbfs/f\nhugepage-size=2m\n", func(j *Job) any { return []any{j.Mem, j.MemFile, j.HugepageSize} }, []any{"mmaphuge", "/hugetlbfs/f", uint64(2 << 20)}},
		{"mem=shm:ignored\n", func(j *Job) any { return []any{j.Mem, j.MemFile} }, []any{"shm", ""}},
		{"", func(j *Job) any { return []any{j.FadviseHint, j.WriteHint, j.PreRead, j.Invalidate} }, []any{"1", 0, false, true}},
		{"pre_read=1\nfadvise_hint=sequential\nwrite_hint=extreme\n", func(j *Job) any { return []any{j.FadviseHint, j.WriteHint, j.PreRead, j.Invalidate} },
			[]any{"sequential", 5, true, false}},
		{"nice=-5\nexec_prerun=echo a && echo b\nexec_postrun=true\n", func(j *Job) any { return []any{j.Nice, j.ExecPrerun, j.ExecPostrun} }, []any{-5, "echo a && echo b", "true"}},
		{"max_latency=10ms,1\n", func(j *Job) any { return j.MaxLatency }, [NumDirs]time.Duration{10 * time.Millisecond, time.Microsecond, time.Microsecond}},
		{"log_unix_epoch=1\n", func(j *Job) any { return []any{j.LogEpoch(), j.LogEpochClock} }, []any{true, 0}},
		{"log_alternate_epoch=1\nlog_alternate_epoch_clock_id=1\n", func(j *Job) any { return []any{j.LogEpoch(), j.LogEpochClock} }, []any{true, 1}},
		{"percentage_random=20,80\n", func(j *Job) any { return j.SeqPercent }, [NumDirs]int{80, 20, 20}},
		{"rw_sequencer=identical\n", func(j *Job) any { return j.RWIdentical }, true},
		{"allrandrepeat=1\n", func(j *Job) any { return j.AllRandRepeat }, true},
		{"offset_align=0\n", func(j *Job) any { return []any{j.OffsetAlign, j.OffsetAlignSet} }, []any{uint64(0), true}},
		{"offset_align=64k\n", func(j *Job) any { return j.OffsetAlign }, uint64(64 << 10)},
		{"file_service_type=random:4\n", func(j *Job) any { return j.FileService }, FileService{Kind: "random", Nr: 4, Center: -1}},
		{"file_service_type=roundrobin:x\n", func(j *Job) any { return j.FileService }, FileService{Kind: "roundrobin", Center: -1}}, // C's atoi
		{"file_service_type=sequential\n", func(j *Job) any { return j.FileService }, FileService{Kind: "sequential", Nr: 1, Center: -1}},
		{"file_service_type=zipf\n", func(j *Job) any { return j.FileService }, FileService{Kind: "zipf", Nr: 1, Param: 1.1, Center: -1}},
		{"file_service_type=pareto:0.3:0.5\n", func(j *Job) any { return j.FileService }, FileService{Kind: "pareto", Nr: 1, Param: 0.3, Center: 0.5}},
		{"file_service_type=gauss:20\n", func(j *Job) any { return j.FileService }, FileService{Kind: "normal", Nr: 1, Param: 20, Center: -1}},
	}
	for _, c := range cases {
		j := parseOne(t, c.body)
		if got := c.got(j); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %#v, want %#v", c.body, got, c.want)
		}
	}
}

// TestUnrunOptions checks that options gofio parses but does not run are
// recorded only when set to something other than fio's default.
// TestUnifiedRW checks unified_rw_reporting's values and aliases.
func TestUnifiedRW(t *testing.T) {
	for v, want := range map[string]int{"none": UnifiedNone, "0": UnifiedNone, "mixed": UnifiedMixed,
		"1": UnifiedMixed, "both": UnifiedBoth, "2": UnifiedBoth} {
		if got := parseOne(t, "unified_rw_reporting="+v+"\n").UnifiedRW; got != want {
			t.Errorf("unified_rw_reporting=%s: %d, want %d", v, got, want)
		}
	}
}

func TestUnrunOptions(t *testing.T) {
	cases := []struct {
		body string
		want []string
	}{
		{"scramble_buffers=1\nfill_device=0\nlatency_run=0\n", nil},
		{"scramble_buffers=0\n", nil},
		{"dedupe_percentage=0\n", nil},
		{"unified_rw_reporting=none\n", nil},
		{"ss=iops:10%\nss_dur=5\n", nil},
		{"latency_target=10ms\nlatency_window=1s\nlatency_percentile=99\n", nil},
	}
	for _, c := range cases {
		j := parseOne(t, c.body)
		if got := j.UnrunOptions(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: unrun %q, want %q", c.body, got, c.want)
		}
	}
}

// TestFioParseDifferences pins fio 3.33's verdicts that gofio now matches:
// empty values fail, fio's aliases resolve, and optional-argument options
// take no value.
func TestFioParseDifferences(t *testing.T) {
	for _, body := range []string{"bs=\n", "filename=\n", "description=\n", "wait_for=\n", "exitall=\n", "rate=\n", "thinktime=\n"} {
		_, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nsize=1m\n"+body)}, Host: &testHost})
		if err == nil || !strings.Contains(err.Error(), "empty value") {
			t.Errorf("%q: err = %v, want empty value", body, err)
		}
	}
	for body, want := range map[string]string{
		"wait_for=j\n":                       "a job cannot wait for itself",
		"wait_for=later\n[later]\nsize=1m\n": "waitee job later unknown",
		"zonemode=none\nzonesize=1m\n":       "--zonemode=none and --zonesize are not compatible",
		"zonemode=strided\n":                 "--zonesize must be specified",
		"zonemode=zbd\ncreate_serialize=0\n": "--zonemode=zbd and --create_serialize=0 are not compatible",
		"rate=1m\nrate_iops=10\n":            "rate and rate_iops are mutually exclusive",
		"rate=1m\nrate_min=2m\n":             "minimum rate exceeds rate",
		"file_service_type=zipf:1\n":         "zipf theta must be different than 1.0",
		"file_service_type=pareto:1.5\n":     "pareto input out of range (0 < input < 1.0)",
		"file_service_type=normal:100\n":     "normal deviation out of range (0 <= input < 100.0)",
		"file_service_type=zipf:x\n":         "file service type random postfix parsing failed",
		"file_service_type=zipf:1.2:1.5\n":   "distribution center out of range",
		"file_service_type=lottery\n":        "valid values: random, zipf, pareto, normal, gauss, roundrobin, sequential",
	} {
		_, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nsize=1m\n"+body)}, Host: &testHost})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", body, err, want)
		}
	}
	for _, body := range []string{"ratemin=1k\n", "ss_dur=10s\n", "ss_ramp=5s\n", "verify_async_cpus=1\n", "cpus_allowed=0\nignore_error\n",
		"numa_cpu_nodes=\n", "write_iops_log=\n"} {
		if _, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nsize=1m\n"+body)}, Host: &testHost}); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
}

// TestOffsetIncrement checks that clone k starts at offset + k *
// offset_increment, as fio's get_start_offset.
func TestOffsetIncrement(t *testing.T) {
	jobs, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\nsize=1m\noffset=4k\noffset_increment=1m\nnumjobs=3\n")}, Host: &testHost})
	if err != nil {
		t.Fatal(err)
	}
	// fio adds the clones counting down: subjobs 0, 2, 1.
	for k, j := range jobs {
		if sub := []int{0, 2, 1}[k]; j.SubjobNumber != sub {
			t.Errorf("job %d is subjob %d, want fio's %d", k, j.SubjobNumber, sub)
		}
		if want := uint64(4096 + j.SubjobNumber<<20); j.Offset != want {
			t.Errorf("subjob %d at %d, want %d", j.SubjobNumber, j.Offset, want)
		}
	}
}

// TestUnrunOptionsDocumented checks that DIFFERENCES.md names every option
// gofio parses but does not run (by name, or by a prefix written NAME*).
func TestUnrunOptionsDocumented(t *testing.T) {
	b, err := os.ReadFile("DIFFERENCES.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "| options gofio parses but does not run yet") {
			row = l
		}
	}
	if row == "" {
		t.Fatal("DIFFERENCES.md has no row for the options gofio does not run")
	}
	for _, o := range OptionTable() {
		if !o.NotRun {
			continue
		}
		named := strings.Contains(row, "`"+o.Name) || strings.Contains(row, "/`"+o.Name)
		for i := len(o.Name) - 1; i > 0 && !named; i-- {
			named = strings.Contains(row, "`"+o.Name[:i]+"*`")
		}
		if !named {
			t.Errorf("DIFFERENCES.md does not name %s among the options gofio does not run", o.Name)
		}
	}
	// The other way round: a plain option name in the row is one gofio
	// does not run (values such as `scramble_buffers=0` and families such
	// as `latency_*` are left out).
	for _, o := range OptionTable() {
		if !o.NotRun && strings.Contains(row, "`"+o.Name+"`") {
			t.Errorf("DIFFERENCES.md lists %s among the options gofio does not run, but gofio runs it", o.Name)
		}
	}
}
