package jobfile

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writeJob writes a job file into a temp dir and returns its path.
func writeJob(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseJobs(t *testing.T) {
	a := writeJob(t, "a.fio", "[global]\nioengine=null\nsize=1m\n[j1]\n[global]\nbs=8k\n[j2]\nnumjobs=3\ngroup_reporting\n[j3]\nnew_group\n")
	b := writeJob(t, "b.fio", "[k1]\nioengine=null\nsize=2m\n")
	jobs, err := Parse(Input{Files: []string{a, b}, CmdLine: []string{"--iodepth=4", "--name=cmd", "--ioengine=null", "--size=1m"},
		Sets: []string{"runtime=2"}, Host: &testHost})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		name           string
		sub, group, bs int
		iodepth        int
	}
	want := []row{
		{"cmd", 0, 0, 4096, 4}, // command-line job first, with the command-line globals
		{"j1", 0, 0, 4096, 4},  // command-line globals apply to the first file
		{"j2", 0, 0, 8192, 4},  // later [global] only affects later jobs
		{"j2", 2, 0, 8192, 4},  // numjobs clones keep the name; fio adds them counting down
		{"j2", 1, 0, 8192, 4},  // ...
		{"j3", 0, 1, 8192, 4},  // new_group starts group 1
		{"k1", 0, 2, 4096, 1},  // second file: stonewall, fresh globals
	}
	if len(jobs) != len(want) {
		t.Fatalf("got %d jobs, want %d", len(jobs), len(want))
	}
	for i, w := range want {
		j := jobs[i]
		got := row{j.Name, j.SubjobNumber, j.GroupID, int(j.BS[DirRead]), j.IODepth}
		if got != w {
			t.Errorf("job %d = %+v, want %+v", i, got, w)
		}
		if j.Runtime != 2*time.Second {
			t.Errorf("job %d runtime = %v, want --set's 2s", i, j.Runtime)
		}
	}
	if !jobs[6].Stonewall || jobs[6].JobFileIndex != 1 {
		t.Errorf("first job of the second file: stonewall=%v index=%d", jobs[6].Stonewall, jobs[6].JobFileIndex)
	}
	if got := jobs[3].GeneratedFilename(0); got != "j2.2.0" {
		t.Errorf("clone file name = %q, want j2.2.0 (fio's second j2 is subjob 2)", got)
	}
}

func TestParseSemantics(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		check func(*Job) bool
	}{
		// The patch's job: sqpoll alias, tw_priority defaults to 1, registerfiles implied.
		{"sqpoll alias", "[j]\nioengine=io_uring\nsqpoll=1\nsize=1m\n", func(j *Job) bool {
			return j.SQThreadPoll && j.RegisterFiles && j.TWPriority
		}},
		// Engine options may precede ioengine= in a section.
		{"engine option order", "[j]\nfixedbufs\nioengine=io_uring\nsize=1m\n", func(j *Job) bool { return j.FixedBufs }},
		// Engine options in [global] are dropped for a job on another engine, as in fio.
		{"engine inheritance", "[global]\nioengine=io_uring\nfixedbufs\nsize=1m\n[j]\nioengine=null\n", func(j *Job) bool {
			return !j.FixedBufs && j.IOEngine == "null"
		}},
		// cpumask= is fio's other spelling of cpus_allowed=: bits 0 to 31.
		{"cpumask", "[j]\nioengine=null\nsize=1m\ncpumask=1\n", func(j *Job) bool { return fmt.Sprint(j.CPUsAllowed) == "[0]" }},
		// gtod_reduce sets disable_bw_measurement, as fio's str_gtod_reduce_cb.
		{"gtod_reduce disables bw", "[j]\nioengine=null\nsize=1m\ngtod_reduce=1\n", func(j *Job) bool { return j.DisableBW }},
		{"disable_bw alias", "[j]\nioengine=null\nsize=1m\ndisable_bw=1\n", func(j *Job) bool { return j.DisableBW && !j.DisableClat }},
		{"uid gid", "[j]\nioengine=null\nsize=1m\nuid=65534\ngid=100\n", func(j *Job) bool { return j.UIDSet && j.UID == 65534 && j.GIDSet && j.GID == 100 }},
		{"no uid", "[j]\nioengine=null\nsize=1m\n", func(j *Job) bool { return !j.UIDSet && !j.GIDSet }},
		{"gtod_cpu", "[j]\nioengine=null\nsize=1m\ngtod_cpu=1\nclocksource=cpu\n", func(j *Job) bool {
			return j.GtodCPUSet && j.GtodCPU == 1 && j.Clocksource == "cpu"
		}},
		// kb_base is parsed before size, whatever the order in the section.
		{"kb_base priority", "[j]\nioengine=null\nsize=1m\nkb_base=1000\n", func(j *Job) bool { return j.Size == 1000000 }},
		// rwmixwrite sets rwmixread; the later one wins.
		{"rwmix", "[j]\nioengine=null\nsize=1m\nrw=randrw\nrwmixread=10\nrwmixwrite=30\n", func(j *Job) bool { return j.RWMixRead == 70 }},
		// iodepth_batch fixups.
		{"batch fixups", "[j]\nioengine=io_uring\nsize=1m\niodepth=8\niodepth_batch=0\niodepth_batch_complete_max=0\n", func(j *Job) bool {
			return j.IODepthBatchSubmit == 8 && j.IODepthBatchCompleteMax == 1 && j.IODepthLow == 8
		}},
		// rw suffixes.
		{"rw suffix", "[j]\nioengine=null\nsize=1m\nrw=randread:8\n", func(j *Job) bool { return j.RW == RWRandRead && j.RWSeqNr == 8 }},
		// Verify forces refill_buffers unless it was given.
		{"verify refill", "[j]\nioengine=null\nsize=1m\nrw=write\nverify=crc32c\n", func(j *Job) bool { return j.RefillBuffers }},
		// defer_taskrun implies single_issuer.
		{"defer", "[j]\nioengine=io_uring\nsize=1m\ndefer_taskrun\n", func(j *Job) bool { return j.SingleIssuer }},
		// gofio options.
		{"gofio tw options", "[j]\nioengine=io_uring\nsize=1m\nsqthread_poll=1\ntw_thread=goroutine\ntw_list=lockfree\n", func(j *Job) bool {
			return j.TWThread == "goroutine" && j.TWList == "lockfree"
		}},
		{"gofio tw defaults", "[j]\nioengine=io_uring\nsize=1m\n", func(j *Job) bool {
			return j.TWThread == "auto" && j.TWList == "locked"
		}},
		{"gofio options", "[j]\nioengine=io_uring\nsize=1m\ntw_priority=0\nsqthread_idle=20\niowq_max_workers=4,8\n", func(j *Job) bool {
			return !j.TWPriority && j.SQThreadIdle == 20*time.Millisecond && j.IOWQMaxWorkers == [2]uint32{4, 8}
		}},
		{"iowq_max_workers one count for both", "[j]\nioengine=io_uring\nsize=1m\niowq_max_workers=16\n", func(j *Job) bool {
			return j.IOWQMaxWorkers == [2]uint32{16, 16}
		}},
		// taskrun_mode sets the ring options and wins over the flags given.
		{"taskrun_mode default", "[j]\nioengine=io_uring\nsize=1m\n", func(j *Job) bool {
			return j.TaskrunMode == TaskrunFlags && j.TaskrunAuto && !j.SQThreadPoll
		}},
		{"taskrun_mode none", "[j]\nioengine=io_uring\nsize=1m\nsqthread_poll=1\ntaskrun_mode=none\n", func(j *Job) bool {
			return !j.TaskrunAuto && !j.CoopTaskrun && !j.DeferTaskrun && !j.SingleIssuer && !j.SQThreadPoll && !j.RegisterFiles
		}},
		{"taskrun_mode coop", "[j]\nioengine=io_uring\nsize=1m\ndefer_taskrun=1\ntaskrun_mode=coop\n", func(j *Job) bool {
			return !j.TaskrunAuto && j.CoopTaskrun && !j.DeferTaskrun && !j.SingleIssuer && !j.SQThreadPoll
		}},
		{"taskrun_mode defer", "[j]\nioengine=io_uring\nsize=1m\ntaskrun_mode=defer\n", func(j *Job) bool {
			return !j.TaskrunAuto && !j.CoopTaskrun && j.DeferTaskrun && j.SingleIssuer && !j.SQThreadPoll
		}},
		{"taskrun_mode sqpoll", "[j]\nioengine=io_uring\nsize=1m\ncoop_taskrun=1\ntw_thread=goroutine\ntaskrun_mode=sqpoll\n", func(j *Job) bool {
			return !j.TaskrunAuto && !j.CoopTaskrun && !j.DeferTaskrun && j.SQThreadPoll && j.TWThread == "kernel" && j.RegisterFiles
		}},
		{"log compression options", "[j]\nioengine=null\nsize=1m\nwrite_lat_log=l\nlog_compression=4k\nlog_compression_cpus=0-1\nlog_store_compressed=1\nlog_entries=2048\n", func(j *Job) bool {
			return j.LogCompression == 4096 && slices.Equal(j.LogCompressionCPUs, []int{0, 1}) && j.LogStoreCompressed && j.LogEntries == 2048
		}},
		{"hist log named by the job", "[j]\nioengine=null\nsize=1m\nwrite_hist_log\nlog_hist_msec=10\nlog_hist_coarseness=6\n", func(j *Job) bool {
			return j.WriteHistLog == "j" && j.LogHistMsec == 10 && j.LogHistCoarseness == 6 && j.WritesLogs()
		}},
		// $ncpus arithmetic, as fio does through bc.
		{"keywords", "[j]\nioengine=null\nsize=1m\niodepth=$ncpus*2\n", func(j *Job) bool { return j.IODepth == 8 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs, err := Parse(Input{Files: []string{writeJob(t, "j.fio", tt.text)}, Host: &testHost})
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(jobs[len(jobs)-1]) {
				t.Errorf("%s: unexpected job %+v", tt.name, *jobs[len(jobs)-1])
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string // substring of the error
	}{
		{"unknown", "[j]\nsqpol=1\n", "j.fio:2: bad option <sqpol=1>: did you mean sqpoll?"},
		{"engine option of another engine", "[j]\ncmd_type=nvme\n", "option cmd_type needs ioengine=io_uring or ioengine=io_uring_cmd"},
		// fio keeps the flags it knows and reads 8k as 8 (DIFFERENCES.md).
		{"sync_file_range bad flag", "[j]\nsync_file_range=write,bogus\n", `j.fio:2: sync_file_range=write,bogus: unknown flag "bogus"`},
		{"sync_file_range sized N", "[j]\nsync_file_range=write:8k\n", `j.fio:2: sync_file_range=write:8k: "8k" after ':' is not a number of writes`},
		// fio's str_cpumask_cb: a bit at or past the configured CPUs.
		{"cpumask past the CPUs", "[j]\ncpumask=" + strconv.FormatUint(1<<(configuredCPUs()), 10) + "\n",
			fmt.Sprintf("j.fio:2: cpumask=%d: CPU %d too large (max=%d)", 1<<configuredCPUs(), configuredCPUs(), configuredCPUs()-1)},
		{"clocksource value", "[j]\nclocksource=tsc\n", "j.fio:2: clocksource=tsc"},
		{"bad value", "[j]\ndirect=2\n", "j.fio:2: direct=2: max value out of range: 2 (1 max)"},
		{"min value", "[j]\niodepth=0\n", "iodepth=0: min value out of range: 0 (1 min)"},
		// fio takes any log_hist_coarseness and reads past its histogram
		// (a negative one writes gigabytes): gofio keeps to [0,6].
		{"hist coarseness", "[j]\nlog_hist_coarseness=7\n", "j.fio:2: log_hist_coarseness=7: max value out of range: 7 (6 max)"},
		{"log_compression below 1k", "[j]\nlog_compression=1000\n", "log_compression=1000: min value out of range"},
		{"log_entries below 1024", "[j]\nlog_entries=10\n", "log_entries=10: min value out of range"},
		{"hist coarseness negative", "[j]\nlog_hist_coarseness=-1\n", "log_hist_coarseness=-1: min value out of range"},
		{"outside", "bs=4k\n[j]\n", "j.fio:1: bs=4k: option outside of [] job section"},
		{"engine", "[j]\nioengine=rdma\n", "j.fio:2: ioengine=rdma: engine rdma is not supported by gofio: needs RDMA hardware"},
		{"engine before its options", "[j]\nverb=read\nbindname=x\nioengine=rdma\n", "j.fio:4: ioengine=rdma: engine rdma is not supported by gofio"},
		{"engine in global", "[global]\nioengine=sg\n[j]\nreadfua=1\n", "j.fio:2: ioengine=sg: engine sg is not supported by gofio"},
		{"not an engine", "[j]\nioengine=libaoi\n", "engine libaoi is not a fio engine"},
		{"external engine", "[j]\nioengine=/usr/lib/fio/x.so\n", "external engines load a C shared object"},
		{"registerfiles", "[j]\nioengine=io_uring\nsize=1m\nnrfiles=2\nopenfiles=1\nsqthread_poll\n", "openfiles=1 equal to nrfiles=2"},
		{"iodepth max", "[j]\nioengine=io_uring\nsize=1m\niodepth=65536\n", "io_uring maximum of 32768"},
		{"direct alignment", "[j]\nioengine=io_uring\nsize=1m\ndirect=1\nbs=1000\n", "multiple of 512"},
		{"size too small", "[j]\nioengine=null\nsize=1k\n", "size too small"},
		{"numjobs zero", "[j]\nioengine=null\nsize=1m\nnumjobs=0\n", "numjobs must be at least 1"},
		{"block histogram files", "[j]\nrw=trim\nnrfiles=2\nsize=1m\nblock_error_percentiles=1\n", "block error histogram only available with a single file per job, but 2 files provided"},
		{"too many jobs", "[j]\nioengine=null\nsize=1m\nnumjobs=5000\n", "maximum number of jobs"},
		{"bs range", "[j]\nbs=4k-16k\n", "use bsrange"},
		{"fraction", "[j]\nbs=1.5k\n", "fractions are not allowed"},
		{"time suffix", "[j]\nruntime=3fortnights\n", "unknown time suffix"},
		{"no section end", "[j\nbs=4k\n", "lacks the closing ]"},
		{"include loop", "[j]\ninclude j.fio\n", "include loop"},
		{"missing include", "[j]\ninclude nope.inc\n", "cannot read include file nope.inc"},
		{"no jobs", "[global]\nbs=4k\n", "no job(s) defined"},
		{"binary", "[j]\n\x00\x01\n", "NUL bytes"},
		{"not utf8", "[j]\nname=\xff\n", "not valid UTF-8"},
		{"huge line", "[j]\nname=" + strings.Repeat("x", 9000) + "\n", "line longer than"},
		{"engine option on psync", "[j]\nioengine=psync\nhipri\n", "option hipri needs ioengine=io_uring"},
		{"hipri buffered", "[j]\nioengine=io_uring\nsize=1m\nhipri\n", "needs direct=1"},
		{"filename directory", "[j]\nioengine=null\nsize=1m\nfilename=/tmp\n", "is a directory"},
		{"flag needs arg", "[j]\ndirect\n", "option requires an argument"},
		{"net trim", "[j]\nioengine=net\nport=9000\nhostname=localhost\nrw=trim\nsize=1m\n", "the net engine does not trim"},
		{"net random", "[j]\nioengine=net\nport=9000\nlisten\nrw=randread\nsize=1m\n", "network IO can't be random"},
		{"net udp listen", "[j]\nioengine=net\nport=9000\nprotocol=udp\nlisten\nrw=read\nsize=1m\n", "listen only valid for TCP"},
		{"net no port", "[j]\nioengine=net\nlisten\nrw=read\nsize=1m\n", "network IO requires port"},
		{"net unix listen", "[j]\nioengine=net\nprotocol=unix\nhostname=/tmp/s\nlisten\nrw=read\nsize=1m\n", "listen only valid for TCP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(Input{Files: []string{writeJob(t, "j.fio", tt.text)}, Host: &testHost})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			if _, ok := err.(*Error); err != nil && !ok {
				t.Errorf("err is %T, want *Error", err)
			}
		})
	}
}

func TestSectionsStdinAndWarnings(t *testing.T) {
	var warn bytes.Buffer
	in := Input{Files: []string{"-"}, Stdin: strings.NewReader("[a]\nioengine=null\nsize=${NOPE}1m\n[b]\nioengine=null\nsize=1m\n"),
		Sections: []string{"b"}, Warn: &warn, Host: &testHost}
	jobs, err := Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].Name != "b" {
		t.Errorf("--section=b gave %d jobs", len(jobs))
	}
	if !strings.Contains(warn.String(), "${NOPE} is not set") {
		t.Errorf("no warning for an unset variable: %q", warn.String())
	}
}

func TestHelp(t *testing.T) {
	var b bytes.Buffer
	if err := CmdHelp(&b, "direct"); err != nil {
		t.Fatal(err)
	}
	want := "              direct: Use O_DIRECT IO (negates buffered)\n                type: boolean value (opt=1)\n             default: 0\n               range: min=0, max=1\n\n"
	if b.String() != want {
		t.Errorf("--cmdhelp=direct:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	if err := CmdHelp(&b, "bsz"); err != nil || !strings.HasPrefix(b.String(), "No such command: bsz - showing closest match\n                  bs:") {
		t.Errorf("--cmdhelp=bsz: %q, %v", b.String(), err)
	}
	if name, ok := refusedFioOption(); ok {
		b.Reset()
		want := fmt.Sprintf("%20s: fio option, not supported by gofio (a job file that sets it is refused)\n", name)
		if err := CmdHelp(&b, name); err != nil || b.String() != want {
			t.Errorf("--cmdhelp=%s: %q, %v; want %q", name, b.String(), err, want)
		}
		if _, err := Parse(Input{Files: []string{writeJob(t, "j.fio", "[j]\n"+name+"=1\n")}, Host: &testHost}); err == nil ||
			!strings.Contains(err.Error(), "fio option "+name+" is not supported by gofio") {
			t.Errorf("%s=1: %v, want fio's option named as not supported", name, err)
		}
	}
	b.Reset()
	if err := EngHelp(&b, "io_uring"); err != nil || !strings.Contains(b.String(), "sqthread_poll           : Offload") {
		t.Errorf("--enghelp=io_uring: %q, %v", b.String(), err)
	}
	if err := EngHelp(&b, "rdma"); err == nil || !strings.Contains(err.Error(), "engine rdma is not supported by gofio: needs RDMA") {
		t.Errorf("--enghelp=rdma: %v", err)
	}
}

// TestEngineOptions checks the per-engine registry: --enghelp lists an
// engine's own options, a name two engines share binds to the job's engine,
// and an option of another engine names the engines that have it.
func TestEngineOptions(t *testing.T) {
	var b strings.Builder
	if err := EngHelp(&b, "libaio"); err != nil || !strings.HasPrefix(b.String(), "userspace_reap          : Use alternative user-space reap implementation\n") ||
		!strings.Contains(b.String(), "nowait                  : Set RWF_NOWAIT for reads/writes\n") {
		t.Errorf("--enghelp=libaio: %q, %v", b.String(), err)
	}
	b.Reset()
	if err := EngHelp(&b, "psync"); err != nil || b.String() != "IO engine psync has no options\n" {
		t.Errorf("--enghelp=psync: %q, %v", b.String(), err)
	}
	jobs, err := Parse(Input{Files: []string{writeJob(t, "j.fio",
		"[global]\nioengine=libaio\ncmdprio_percentage=30,40\n[j]\nsize=1m\nuserspace_reap\nnowait=1\nlibaio_vectored=1\n")}, Host: &testHost})
	if err != nil {
		t.Fatal(err)
	}
	j := jobs[0]
	if own := fmt.Sprintf("%+v", j.EngineConfig()); own != "&{UserspaceReap:true Vectored:true}" || !j.NoWait || j.CmdprioPercentage[DirRead] != 30 || j.CmdprioPercentage[DirWrite] != 40 {
		t.Errorf("libaio options not set: %s %v %v", own, j.NoWait, j.CmdprioPercentage)
	}
	_, err = Parse(Input{Files: []string{writeJob(t, "k.fio", "[j]\nioengine=io_uring\nsize=1m\nuserspace_reap\n")}, Host: &testHost})
	if err == nil || !strings.Contains(err.Error(), "k.fio:4: userspace_reap: option userspace_reap needs ioengine=libaio (the engine here is io_uring)") {
		t.Errorf("userspace_reap on io_uring: %v", err)
	}
	_, err = Parse(Input{CmdLine: []string{"--name=c", "--ioengine=libaio", "--size=1m", "--userspace_reap"}, Host: &testHost})
	if err != nil {
		t.Errorf("libaio option on the command line: %v", err)
	}
}

// TestTimeBasedWithoutRuntime checks fio's fixup_options: time_based
// without a runtime is dropped with a warning (the job runs to its size),
// and --warnings-fatal makes that an error at the option's line.
func TestTimeBasedWithoutRuntime(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "j.fio")
	if err := os.WriteFile(p, []byte("[j]\nioengine=null\nsize=1m\ntime_based\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	jobs, err := Parse(Input{Files: []string{p}, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if jobs[0].TimeBased || !strings.Contains(warn.String(), "j.fio:4: warning: time_based requires a runtime/timeout setting") {
		t.Errorf("time_based %v, warning %q; want it dropped with fio's warning", jobs[0].TimeBased, warn.String())
	}
	if _, err := Parse(Input{Files: []string{p}, WarningsFatal: true}); err == nil || !strings.Contains(err.Error(), "j.fio:4: time_based") {
		t.Errorf("--warnings-fatal: %v, want an error at j.fio:4", err)
	}
}

// TestTimeBasedVerifyWarning checks fio's warning for a time_based writing
// job with verify and no verify_backlog: its runtime ends it before any
// verify phase (an error with --warnings-fatal).
func TestTimeBasedVerifyWarning(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "j.fio")
	if err := os.WriteFile(p, []byte("[j]\nioengine=null\nsize=1m\nrw=write\nverify=md5\ntime_based\nruntime=1s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	if _, err := Parse(Input{Files: []string{p}, Warn: &warn}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warn.String(), "j.fio:1: warning: job j: verification read phase will never start because write phase uses all of runtime") {
		t.Errorf("warning %q", warn.String())
	}
	if _, err := Parse(Input{Files: []string{p}, WarningsFatal: true}); err == nil {
		t.Error("--warnings-fatal accepted it")
	}
}

// refusedFioOption returns a fio 3.33 job option gofio does not have, if
// one is left (they are implemented one by one).
func refusedFioOption() (string, bool) {
	var names []string
	for name := range fioOptionNames {
		if _, ok := lookup[name]; !ok && len(enginesWith(name)) == 0 {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "", false
	}
	return names[0], true
}

// TestEveryFioOptionHelped checks that "--cmdhelp=all lists no fio
// option as unsupported" for each of fio 3.33's job and io_uring options
// (fionames.go): --cmdhelp=NAME shows the option's details, not "not
// supported by gofio" nor "No such command", a job file may set it, and
// --cmdhelp=all lists each job option (an alias by its option's name).
func TestEveryFioOptionHelped(t *testing.T) {
	if name, ok := refusedFioOption(); ok {
		t.Errorf("gofio refuses fio option %s (and maybe more)", name)
	}
	var all bytes.Buffer
	if err := CmdHelp(&all, "all"); err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, l := range strings.Split(all.String(), "\n") {
		if name, _, ok := strings.Cut(l, ":"); ok {
			listed[strings.TrimSpace(name)] = true
		}
	}
	names := slices.Sorted(maps.Keys(fioOptionNames))
	for _, name := range names {
		var b bytes.Buffer
		if err := CmdHelp(&b, name); err != nil {
			t.Errorf("--cmdhelp=%s: %v", name, err)
			continue
		}
		if h := b.String(); strings.Contains(h, "not supported") || strings.HasPrefix(h, "No such command") {
			t.Errorf("--cmdhelp=%s: %q", name, h)
		}
		if o, ok := lookup[name]; ok && o.Engine == "" && !listed[o.Name] {
			t.Errorf("--cmdhelp=all does not list %s (fio's %s)", o.Name, name)
		}
	}
	if strings.Contains(all.String(), "not supported") {
		t.Error("--cmdhelp=all names an option as not supported")
	}
}

// TestMultipleWritersWarning checks fio's fixup_options warning for a
// writing verify job whose numjobs clones share a file: printed once for
// the section, not when the default file names tell the clones apart,
// and an error with --warnings-fatal.
func TestMultipleWritersWarning(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"--name=v", "--rw=randwrite", "--verify=crc32c", "--numjobs=3", "--filename=/tmp/x", "--size=1m"}, true},
		{[]string{"--name=v", "--rw=randwrite", "--verify=crc32c", "--numjobs=3", "--size=1m"}, false},
		{[]string{"--name=v", "--rw=randwrite", "--verify=crc32c", "--numjobs=1", "--filename=/tmp/x", "--size=1m"}, false},
		{[]string{"--name=v", "--rw=randread", "--verify=crc32c", "--numjobs=3", "--filename=/tmp/x", "--size=1m"}, false},
	} {
		var warn bytes.Buffer
		if _, err := Parse(Input{CmdLine: c.args, Host: &testHost, Warn: &warn}); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(warn.String(), "fio: multiple writers may overwrite blocks that belong to other jobs."); n != map[bool]int{true: 1, false: 0}[c.want] {
			t.Errorf("%v: warned %d times (%q)", c.args, n, warn.String())
		}
	}
	if _, err := Parse(Input{CmdLine: []string{"--name=v", "--rw=write", "--verify=md5", "--numjobs=2", "--filename=/tmp/x"}, Host: &testHost, WarningsFatal: true}); err == nil ||
		!strings.Contains(err.Error(), "multiple writers") {
		t.Errorf("--warnings-fatal: %v, want fio's warning as an error", err)
	}
}

// TestGlobalNameIgnored checks fio's job names: a name= in [global] (as
// in fio's examples/zbd-rand-write.fio) leaves each job named after its
// section, and a name= in the section renames it.
func TestGlobalNameIgnored(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "j.fio")
	if err := os.WriteFile(p, []byte("[global]\nname=g\nioengine=null\nsize=1m\n[sec]\n[other]\nname=own\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs, err := Parse(Input{Files: []string{p}, Host: &testHost})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].Name != "sec" || jobs[1].Name != "own" {
		t.Errorf("job names %q, %q; want sec (the section's, as fio) and own", jobs[0].Name, jobs[1].Name)
	}
}
