package jobfile

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// This file holds the fio 3.33 job options that fio's own job files use
// beyond gofio's core set: zones, flow control, think time,
// bandwidth rates, job ordering, priorities, the verify knobs, iologs and
// the rest. Each keeps fio's type, default, range and help text, so
// --cmdhelp, --showcmd and --parse-only read as fio's. Options marked
// NotRun are parsed and validated as fio does, but a job that sets one to
// anything but its default is refused when it would run (Job.Unrun), with
// a message naming the option: gofio never silently ignores an option that
// changes the I/O.

// Zones is zonemode= and the zone options that go with it.
type Zones struct {
	Mode         string // "none", "strided" or "zbd"
	Size         uint64 // zonesize: bytes of I/O per zone
	Range        uint64 // zonerange: size of a zone (0: zonesize)
	Skip         uint64 // zoneskip: bytes skipped after each zone
	SkipPercent  int    // zoneskip=N%, which fio 3.33 runs as Skip = 2^64-1-N bytes
	Capacity     uint64 // zonecapacity (zbd)
	MaxOpen      int    // max_open_zones (zbd)
	JobMaxOpen   int    // job_max_open_zones (zbd)
	IgnoreLimits bool   // ignore_zone_limits (zbd)
	ReadBeyondWP bool   // read_beyond_wp (zbd)
	// SizeWithoutMode is zonesize= without zonemode=: fio 3.33 accepts it
	// with --parse-only and refuses to run it ("--zonemode=none and
	// --zonesize are not compatible").
	SizeWithoutMode bool
	// ResetThreshold and ResetFrequency are zone_reset_threshold and
	// zone_reset_frequency (zbd), both in 0..1.
	ResetThreshold, ResetFrequency float64
	// Counts are the values given with fio's z suffix (a count of
	// zones), which fixupZones turns into bytes with the zone size.
	Counts ZoneCounts
}

// ZoneCounts are size=, io_size=, offset=, offset_increment= and
// zoneskip= given as a number of zones (fio's size_nz, io_size_nz,
// start_offset_nz, offset_increment_nz and zone_skip_nz); 0 is unset.
type ZoneCounts struct {
	Size, IOSize, Offset, OffsetIncrement, Skip uint64
}

// The values of Job.UnifiedRW (unified_rw_reporting).
const (
	UnifiedNone  = 0 // per-direction statistics, fio's default
	UnifiedMixed = 1 // one "mixed" direction summing reads, writes and trims
	UnifiedBoth  = 2 // per-direction statistics followed by the mixed ones
)

// unifiedModes maps unified_rw_reporting's values to Job.UnifiedRW.
var unifiedModes = map[string]int{"none": UnifiedNone, "0": UnifiedNone,
	"mixed": UnifiedMixed, "1": UnifiedMixed, "both": UnifiedBoth, "2": UnifiedBoth}

// Flow is fio's flow control: jobs with the same flow ID share their I/Os in
// the ratio of their weights.
type Flow struct {
	Weight int           // flow=: 0 means the job takes no part
	ID     int           // flow_id=
	Sleep  time.Duration // flow_sleep=: pause after being held back
}

// ThinkTime is thinktime= and its companions.
type ThinkTime struct {
	Time       time.Duration // thinktime: idle time
	Spin       time.Duration // thinktime_spin: busy part of it
	Blocks     int           // thinktime_blocks: I/Os between pauses
	BlocksType string        // thinktime_blocks_type: "complete" or "issue"
	IOTime     time.Duration // thinktime_iotime: I/O time between pauses
}

// ThinkBlocksSet reports whether the job sets thinktime_blocks (fio's
// fio_option_is_set): with thinktime_iotime, an unset thinktime_blocks
// leaves the pauses to the time alone.
func (j *Job) ThinkBlocksSet() bool { return j.Given("thinktime_blocks") }

// fioOptions are the options of this file, in fio's --cmdhelp=all order
// within each topic. withFioOptions splices them into the option table.
var fioOptions = []OptionSpec{
	// Zones.
	{Name: "zonemode", Type: TypeChoice, Default: "none", Help: "Mode for the zonesize, zonerange and zoneskip parameters",
		Choices: []Choice{{"none", "no zoning"}, {"strided", "strided mode - random I/O is restricted to a single zone"},
			{"zbd", "zoned block device mode - random I/O selects one of multiple zones randomly"}},
		Note:   "strided runs as fio 3.33 (zoneskip=N% as fio 3.33 reads it: a skip of 2^64-1-N bytes); zbd runs as fio 3.33 emulates zones on regular files and block devices that are not zoned (write pointers in memory); gofio refuses zbd on a zoned block device",
		custom: func(j *Job, v string) error { j.Zones.Mode = v; return nil }},
	{Name: "zonesize", Type: TypeStrVal, Default: "0", Help: "Amount of data to read per zone",
		custom: func(j *Job, v string) error { return setU64(&j.Zones.Size, v, j.KBBase) }},
	{Name: "zonerange", Type: TypeStrVal, Default: "0", Help: "Give size of an IO zone",
		custom: func(j *Job, v string) error { return setU64(&j.Zones.Range, v, j.KBBase) }},
	{Name: "zoneskip", Type: TypeSize, Default: "0", Help: "Space between IO zones",
		custom: func(j *Job, v string) error {
			if nz, ok, err := parseZoneCount(v); ok || err != nil {
				j.Zones.Skip, j.Zones.Counts.Skip = 0, nz
				return err
			}
			n, pct, err := parseSize(v, j.KBBase, true)
			if pct > 0 {
				// fio 3.33's zoneskip callback takes no percentage: it
				// keeps the parser's encoding of N%, 2^64-1-N, as the
				// byte count, so a zone starts N+1 bytes before the end
				// of the range before it.
				n = math.MaxUint64 - uint64(pct)
			}
			j.Zones.Skip, j.Zones.SkipPercent = n, pct
			return err
		}},
	{Name: "zonecapacity", Type: TypeStrVal, Default: "0", Help: "Capacity per zone",
		custom: func(j *Job, v string) error { return setU64(&j.Zones.Capacity, v, j.KBBase) }},
	{Name: "max_open_zones", Type: TypeInt, Default: "0", Min: 0, Max: 4096,
		Help: "Limit on the number of simultaneously opened sequential write zones with zonemode=zbd",
		intp: func(j *Job) *int { return &j.Zones.MaxOpen }},
	{Name: "job_max_open_zones", Type: TypeInt, Default: "0", Min: 0, Max: 4096,
		Help: "Limit on the number of simultaneously opened sequential write zones with zonemode=zbd by one thread/process",
		intp: func(j *Job) *int { return &j.Zones.JobMaxOpen }},
	{Name: "ignore_zone_limits", Type: TypeBool, Default: "0", Min: 0, Max: 1,
		Help:  "Ignore the zone resource limits (max open/active zones) reported by the device",
		boolp: func(j *Job) *bool { return &j.Zones.IgnoreLimits }},
	{Name: "zone_reset_threshold", Type: TypeFloatList, FMin: 0, FMax: 1, FMaxLen: 1, Help: "Zoned block device reset threshold",
		custom: func(j *Job, v string) error { return setZoneFloat(&j.Zones.ResetThreshold, v) }},
	{Name: "zone_reset_frequency", Type: TypeFloatList, FMin: 0, FMax: 1, FMaxLen: 1, Help: "Zoned block device zone reset frequency in HZ",
		custom: func(j *Job, v string) error { return setZoneFloat(&j.Zones.ResetFrequency, v) }},
	{Name: "read_beyond_wp", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Allow reads beyond the zone write pointer",
		boolp: func(j *Job) *bool { return &j.Zones.ReadBeyondWP }},

	// Flow control.
	{Name: "flow_id", Type: TypeInt, Default: "0", Min: 0, Max: Unbounded, Help: "The flow index ID to use",
		intp: func(j *Job) *int { return &j.Flow.ID }},
	{Name: "flow", Type: TypeInt, Default: "0", Min: 0, Max: 1000, Parent: "flow_id",
		Help: "Weight for flow control of this job", intp: func(j *Job) *int { return &j.Flow.Weight }},
	{Name: "flow_sleep", Type: TypeInt, Default: "0", Min: 0, Max: Unbounded, Parent: "flow_id",
		Help:   "How many microseconds to sleep after being held back by the flow control mechanism",
		custom: func(j *Job, v string) error { return setMicros(&j.Flow.Sleep, v) }},

	// Verify knobs (verify_state_save/load are in options.go).
	{Name: "verify_backlog", Type: TypeStrVal, Parent: "verify", Help: "Verify after this number of blocks are written",
		custom: func(j *Job, v string) error { return setU64(&j.VerifyBacklog, v, j.KBBase) }},
	{Name: "verify_backlog_batch", Type: TypeInt, Min: 0, Max: Unbounded, Parent: "verify", Help: "Verify this number of IO blocks",
		intp: func(j *Job) *int { return &j.VerifyBacklogBatch }},
	{Name: "trim_percentage", Type: TypeInt, Default: "0", Min: 0, Max: 100, Parent: "verify", Help: "Number of verify blocks to trim (i.e., discard)",
		Note: "trims only with trim_backlog, in a job that trims and writes (rw=trimwrite or randtrimwrite) and verifies; fio 3.33 aborts a writing job that does not trim",
		intp: func(j *Job) *int { return &j.TrimPercentage }},
	{Name: "trim_verify_zero", Type: TypeBool, Default: "1", Min: 0, Max: 1, Parent: "trim_percentage",
		Help: "Verify that trimmed (i.e., discarded) blocks are returned as zeroes", boolp: func(j *Job) *bool { return &j.TrimVerifyZero }},
	{Name: "trim_backlog", Type: TypeStrVal, Parent: "trim_percentage", Help: "Trim after this number of blocks are written",
		custom: func(j *Job, v string) error { return setU64(&j.TrimBacklog, v, j.KBBase) }},
	{Name: "trim_backlog_batch", Type: TypeInt, Min: 0, Max: Unbounded, Parent: "trim_percentage", Help: "Trim this number of IO blocks",
		intp: func(j *Job) *int { return &j.TrimBacklogBatch }},
	{Name: "verify_dump", Type: TypeBool, Default: "0", Min: 0, Max: 1, Parent: "verify",
		Help: "Dump contents of good and bad blocks on failure", boolp: func(j *Job) *bool { return &j.VerifyDump }},
	{Name: "verify_fatal", Type: TypeBool, Default: "0", Min: 0, Max: 1, Parent: "verify",
		Help: "Exit on a single verify failure, don't continue", boolp: func(j *Job) *bool { return &j.VerifyFatal },
		Note: "a mismatch ends the job in gofio either way, unless continue_on_error covers verify errors"},
	{Name: "verify_interval", Type: TypeInt, Min: 80, Max: Unbounded, Parent: "verify", Help: "Store verify buffer header every N bytes",
		intp: func(j *Job) *int { return &j.VerifyInterval }},
	{Name: "verify_offset", Type: TypeInt, Min: 40, Max: Unbounded, Parent: "verify", Help: "Offset verify header location by N bytes",
		Note: "the header must lie past itself and inside every block: gofio refuses what fio 3.33 corrupts", intp: func(j *Job) *int { return &j.VerifyOffset }},
	{Name: "verify_async", Type: TypeInt, Default: "0", Min: 0, Max: Unbounded, Parent: "verify", Help: "Number of async verifier threads to use",
		Note: "gofio verifies on the job's own thread; the count is accepted and the checks are the same",
		intp: func(j *Job) *int { return &j.VerifyAsync }},
	{Name: "verify_async_cpus", Type: TypeString, Parent: "verify_async", Help: "Set CPUs allowed for async verify threads",
		OptionalArg: true, Note: "checked as a CPU list; gofio has no verify threads to pin",
		custom: func(j *Job, v string) error {
			if v == "" {
				return nil
			}
			_, err := parseCPUList(v)
			return err
		}},
	{Name: "experimental_verify", Type: TypeBool, Min: 0, Max: 1, Parent: "verify", Help: "Enable experimental verification",
		Note: "gofio checks the same headers and data either way", boolp: func(j *Job) *bool { return &j.ExperimentalVerify }},

	// Submission, layout and ordering.
	{Name: "io_submit_mode", Type: TypeChoice, Default: "inline", Help: "How IO submissions and completions are done",
		Choices: []Choice{{"inline", "Submit and complete IO inline"}, {"offload", "Offload submit and complete to threads"}},
		Note:    "offload runs inline in gofio: the same I/Os, submitted by the job's own thread",
		custom:  func(j *Job, v string) error { j.IOSubmitMode = v; return nil }},
	{Name: "fallocate", Type: TypeChoice, Default: "native", Help: "Whether pre-allocation is performed when laying out files",
		Choices: []Choice{{"none", "Do not pre-allocate space"}, {"native", "Use native pre-allocation if possible"},
			{"posix", "Use posix_fallocate()"}, {"keep", "Use fallocate(..., FALLOC_FL_KEEP_SIZE, ...)"},
			{"truncate", "Truncate file to final size instead of allocating"}, {"0", "Alias for 'none'"}, {"1", "Alias for 'posix'"}},
		custom: func(j *Job, v string) error {
			j.Fallocate = map[string]string{"0": "none", "1": "posix"}[v]
			if j.Fallocate == "" {
				j.Fallocate = v
			}
			return nil
		}},
	{Name: "wait_for", Type: TypeString, Help: "Name of the job this one wants to wait for before starting",
		custom: func(j *Job, v string) error { j.WaitFor = v; return nil }},
	{Name: "log_prio", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Include priority value of IO for each log entry",
		boolp: func(j *Job) *bool { return &j.LogPrio }},
	{Name: "exitall", Type: TypeFlag, Help: "Terminate all jobs when one exits", boolp: func(j *Job) *bool { return &j.ExitAll }},
	{Name: "exit_what", Type: TypeChoice, Default: "group", Help: "Fine-grained control for exitall",
		Choices: []Choice{{"group", "exit_all=1 default behaviour"}, {"stonewall", "quit all currently running jobs; continue with next stonewall"},
			{"all", "Quit everything"}},
		custom: func(j *Job, v string) error { j.ExitWhat = v; return nil }},
	{Name: "exitall_on_error", Type: TypeFlag, Help: "Terminate all jobs when one exits in error",
		boolp: func(j *Job) *bool { return &j.ExitAllOnError }},
	{Name: "ignore_error", Type: TypeString, Parent: "rw", Help: "Set a specific list of errors to ignore",
		OptionalArg: true, Note: "READ,WRITE,VERIFY lists of errno names or numbers separated by ':'", custom: setIgnoreError},
	{Name: "error_dump", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Dump info on each error",
		boolp: func(j *Job) *bool { return &j.ErrorDump }},

	// Placement and priority.
	{Name: "numa_cpu_nodes", Type: TypeString, Help: "NUMA CPU nodes bind", Note: "refused at run time on a machine without the nodes",
		OptionalArg: true, custom: func(j *Job, v string) error {
			if v == "" {
				j.NUMACPUNodes = nil
				return nil
			}
			n, err := parseCPUList(v)
			j.NUMACPUNodes = n
			return err
		}},
	{Name: "numa_mem_policy", Type: TypeString, Help: "NUMA memory policy setup", OptionalArg: true,
		Note:   "applied to the job's I/O buffers (mbind); a node this machine lacks fails the job",
		custom: func(j *Job, v string) error { j.NUMAMemPolicy = v; return checkMemPolicy(j, v) }},
	{Name: "prioclass", Type: TypeInt, Min: 0, Max: 3, Help: "Set job IO priority class",
		custom: func(j *Job, v string) error { j.PrioClass, _ = strconv.Atoi(v); j.PrioSet = true; return nil }},
	{Name: "prio", Type: TypeInt, Min: 0, Max: 7, Help: "Set job IO priority value",
		custom: func(j *Job, v string) error { j.Prio, _ = strconv.Atoi(v); j.PrioSet = true; return nil }},

	// Rates.
	{Name: "rate", Type: TypeInt, Min: 0, Max: Unbounded, Dirs: 3, Help: "Set bandwidth rate",
		dirs64: func(j *Job) *[NumDirs]uint64 { return &j.Rate }},
	{Name: "rate_min", Aliases: []string{"ratemin"}, Type: TypeInt, Min: 0, Max: Unbounded, Dirs: 3, Parent: "rate",
		Help: "Job must meet this rate or it will be shutdown", dirs64: func(j *Job) *[NumDirs]uint64 { return &j.RateMin }},
	{Name: "rate_process", Type: TypeChoice, Default: "linear", Parent: "rate", Help: "What process controls how rated IO is managed",
		Choices: []Choice{{"linear", "Linear rate of IO"}, {"poisson", "Rate follows Poisson process"}},
		custom:  func(j *Job, v string) error { j.RateProcess = v; return nil }},
	{Name: "rate_cycle", Aliases: []string{"ratecycle"}, Type: TypeInt, Default: "1000", Min: 0, Max: Unbounded, Parent: "rate",
		Help: "Window average for rate limits (msec)", intp: func(j *Job) *int { return &j.RateCycle }},
	{Name: "rate_ignore_thinktime", Type: TypeBool, Min: 0, Max: 1, Parent: "rate", Help: "Rated IO ignores thinktime settings",
		boolp: func(j *Job) *bool { return &j.RateIgnoreThinktime }},
	{Name: "rate_iops_min", Type: TypeInt, Min: 0, Max: Unbounded, Dirs: 3, Parent: "rate_iops",
		Help: "Job must meet this rate or it will be shut down", dirs64: func(j *Job) *[NumDirs]uint64 { return &j.RateIOPSMin }},

	// I/O logs.
	{Name: "read_iolog", Type: TypeString, Help: "Playback IO pattern from file",
		custom: func(j *Job, v string) error { j.IOLog.Read = v; return nil }},
	{Name: "read_iolog_chunked", Type: TypeBool, Default: "0", Min: 0, Max: 1, Parent: "read_iolog", Help: "Parse IO pattern in chunks",
		Note:  "the log is parsed whole before the job starts (so that a bad line is refused before any I/O); the replay is the same",
		boolp: func(j *Job) *bool { return &j.IOLog.Chunked }},
	{Name: "replay_no_stall", Type: TypeBool, Default: "0", Min: 0, Max: 1, Parent: "read_iolog",
		Help: "Playback IO pattern file as fast as possible without stalls", boolp: func(j *Job) *bool { return &j.IOLog.ReplayNoStall }},
	{Name: "replay_redirect", Type: TypeString, Parent: "read_iolog", Help: "Replay all I/O onto this device, regardless of trace device",
		custom: func(j *Job, v string) error { j.IOLog.ReplayRedirect = v; return nil }},
	{Name: "replay_time_scale", Type: TypeInt, Default: "100", Min: 1, Max: Unbounded, Parent: "read_iolog", Help: "Scale time for replay events",
		intp: func(j *Job) *int { return &j.IOLog.ReplayTimeScale }},
	{Name: "replay_scale", Type: TypeInt, Default: "1", Min: 0, Max: Unbounded, Parent: "read_iolog", Help: "Align offsets to this blocksize",
		intp: func(j *Job) *int { return &j.IOLog.ReplayScale }},
	{Name: "replay_align", Type: TypeInt, Min: 0, Max: Unbounded, Parent: "read_iolog", Help: "Scale offset down by this factor",
		intp: func(j *Job) *int { return &j.IOLog.ReplayAlign }},
	{Name: "replay_skip", Type: TypeString, Parent: "read_iolog", Help: "Skip certain IO types (read,write,trim,flush)",
		Note: "comma-separated read, write, trim, sync; applies to blktrace replays only, as in fio", custom: setReplaySkip},
	{Name: "merge_blktrace_file", Type: TypeString, Help: "Merged blktrace output filename",
		Note:   "the merge is written and then replayed, as fio's documentation says (fio 3.33 reads no record: DIFFERENCES.md)",
		custom: func(j *Job, v string) error { j.IOLog.MergeFile = v; return nil }},
	{Name: "merge_blktrace_scalars", Type: TypeFloatList, Help: "Percentage to scale each trace",
		custom: func(j *Job, v string) (err error) { j.IOLog.MergeScalars, err = parseMergeList(v); return err }},
	{Name: "merge_blktrace_iters", Type: TypeFloatList, Help: "Number of iterations to run per trace",
		custom: func(j *Job, v string) (err error) { j.IOLog.MergeIters, err = parseMergeList(v); return err }},
	{Name: "write_iolog", Type: TypeString, Help: "Store IO pattern to file",
		custom: func(j *Job, v string) error { j.IOLog.Write = v; return nil }},

	// Latency target.
	{Name: "latency_target", Type: TypeTime, Unit: time.Microsecond, Help: "Ramp to max queue depth supporting this latency",
		durp: func(j *Job) *time.Duration { return &j.LatencyTarget.Target }},
	{Name: "latency_window", Type: TypeTime, Unit: time.Microsecond, Help: "Time to sustain latency_target",
		durp: func(j *Job) *time.Duration { return &j.LatencyTarget.Window }},
	{Name: "latency_percentile", Type: TypeFloatList, Default: "100", FMin: 0, FMax: 100,
		Help: "Percentile of IOs must be below latency_target", custom: setLatencyPercentile},
	{Name: "latency_run", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Keep adjusting queue depth to match latency_target",
		boolp: func(j *Job) *bool { return &j.LatencyTarget.Run }},

	// Buffer contents.
	{Name: "scramble_buffers", Type: TypeBool, Default: "1", Min: 0, Max: 1, Help: "Slightly scramble buffers on every IO submit",
		custom: func(j *Job, v string) error { j.ScrambleBuffers, j.scrambleSet = v == "1", true; return nil }},
	{Name: "buffer_compress_percentage", Type: TypeInt, Min: 0, Max: 100, Help: "How compressible the buffer is (approximately)",
		intp: func(j *Job) *int { return &j.CompressPercentage }},
	{Name: "buffer_compress_chunk", Type: TypeInt, Default: "512", Min: 0, Max: Unbounded, Parent: "buffer_compress_percentage",
		Help: "Size of compressible region in buffer", custom: func(j *Job, v string) error { return setU64(&j.CompressChunk, v, j.KBBase) }},
	{Name: "dedupe_percentage", Type: TypeInt, Min: 0, Max: 100, Help: "Percentage of buffers that are dedupable",
		custom: func(j *Job, v string) error {
			// fio's str_dedupe_cb turns refill_buffers on.
			j.DedupePercentage, _ = strconv.Atoi(v)
			j.RefillBuffers = true
			return nil
		}},
	{Name: "dedupe_mode", Type: TypeChoice, Default: "repeat", Parent: "dedupe_percentage", Help: "Mode for the deduplication buffer generation",
		Choices: []Choice{{"repeat", "repeat previous page"},
			{"working_set", "choose a page randomly from limited working set defined in dedupe_working_set_percentage"}},
		custom: func(j *Job, v string) error { j.DedupeMode = v; return nil }},
	{Name: "dedupe_working_set_percentage", Type: TypeInt, Default: "5", Min: 0, Max: 100, Parent: "dedupe_percentage",
		Help: "Dedupe working set size in percentages from file or device size used to generate dedupe patterns from",
		intp: func(j *Job) *int { return &j.DedupeWorkingSetPercentage }},
	{Name: "dedupe_global", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Share deduplication buffers across jobs",
		boolp: func(j *Job) *bool { return &j.DedupeGlobal }},

	// Think time.
	{Name: "thinktime", Type: TypeTime, TypeHelp: "integer value (opt=100)", Default: "0", Min: 0, Max: Unbounded, Unit: time.Microsecond,
		Help: "Idle time between IO buffers (usec)", durp: func(j *Job) *time.Duration { return &j.Think.Time }},
	{Name: "thinktime_blocks", Type: TypeInt, Default: "1", Min: 0, Max: Unbounded, Parent: "thinktime",
		Help: "IO buffer period between 'thinktime'", intp: func(j *Job) *int { return &j.Think.Blocks }},
	{Name: "thinktime_spin", Type: TypeTime, TypeHelp: "integer value (opt=100)", Default: "0", Min: 0, Max: Unbounded, Unit: time.Microsecond,
		Parent: "thinktime", Help: "Start think time by spinning this amount (usec)", durp: func(j *Job) *time.Duration { return &j.Think.Spin }},
	{Name: "thinktime_blocks_type", Type: TypeChoice, Default: "complete", Parent: "thinktime", Help: "How thinktime_blocks takes effect",
		Choices: []Choice{{"complete", "thinktime_blocks takes effect at the completion side"},
			{"issue", "thinktime_blocks takes effect at the issue side"}},
		custom: func(j *Job, v string) error { j.Think.BlocksType = v; return nil }},
	{Name: "thinktime_iotime", Type: TypeTime, TypeHelp: "integer value (opt=100)", Default: "0", Min: 0, Max: Unbounded, Unit: time.Second,
		Parent: "thinktime", Help: "IO time interval between 'thinktime'", durp: func(j *Job) *time.Duration { return &j.Think.IOTime }},

	// Reporting.
	{Name: "unified_rw_reporting", Type: TypeChoice, Default: "none", Help: "Unify reporting across data direction",
		Choices: []Choice{{"none", "Normal statistics reporting"}, {"mixed", "Statistics are summed per data direction and reported together"},
			{"both", "Statistics are reported normally, followed by the mixed statistics"},
			{"0", "Alias for 'none'"}, {"1", "Alias for 'mixed'"}, {"2", "Alias for 'both'"}},
		custom: func(j *Job, v string) error { j.UnifiedRW = unifiedModes[v]; return nil }},
	{Name: "block_error_percentiles", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Record trim block errors and make a histogram",
		boolp: func(j *Job) *bool { return &j.BlockErrorPercentiles },
		Note:  "fio 3.33 aborts on an assertion (stat.c block_state_category) whenever it has blocks to report; gofio reports them"},

	// Steady state.
	{Name: "steadystate", Aliases: []string{"ss"}, Type: TypeChoice, Default: "iops_slope:0.01%", Choices: steadyChoices,
		Help: "Define the criterion and limit to judge when a job has reached steady state", custom: setSteadyState,
		Note: "lat and lat_slope are fio 3.42's: the mean completion latency of each check interval, its limit a time (a bare number in microseconds) " +
			"or a percentage; fio 3.42 compares a time limit's microseconds with nanoseconds, gofio the time written"},
	{Name: "steadystate_duration", Aliases: []string{"ss_dur"}, Type: TypeTime, Default: "0", Unit: time.Second, Parent: "steadystate",
		Help: "Stop workload upon attaining steady state for specified duration", durp: func(j *Job) *time.Duration { return &j.SteadyState.Duration }},
	{Name: "steadystate_ramp_time", Aliases: []string{"ss_ramp"}, Type: TypeTime, Default: "0", Unit: time.Second, Parent: "steadystate",
		Help: "Delay before initiation of data collection for steady state job termination testing", durp: func(j *Job) *time.Duration { return &j.SteadyState.Ramp }},

	// Files.
	{Name: "sync", Type: TypeChoice, Default: "none", Help: "Use synchronous write IO",
		Choices: []Choice{{"none", ""}, {"0", ""}, {"sync", ""}, {"1", ""}, {"dsync", ""}},
		custom: func(j *Job, v string) error {
			j.Sync = map[string]string{"0": "none", "1": "sync"}[v]
			if j.Sync == "" {
				j.Sync = v
			}
			return nil
		}},
	{Name: "allow_file_create", Type: TypeBool, Default: "1", Min: 0, Max: 1, Help: "Permit fio to create files, if they don't exist",
		Neg: true, boolp: func(j *Job) *bool { return &j.NoFileCreate }},
	{Name: "create_serialize", Type: TypeBool, Default: "1", Min: 0, Max: 1, Help: "Serialize creation of job files",
		Note: "gofio always lays files out one after another", boolp: func(j *Job) *bool { return &j.CreateSerialize }},
	{Name: "fill_device", Aliases: []string{"fill_fs"}, Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Write until an ENOSPC error occurs",
		Note:  "runs with jobs that only write; random writes need size=",
		boolp: func(j *Job) *bool { return &j.FillDevice }},
	{Name: "unique_filename", Type: TypeBool, Default: "1", Min: 0, Max: 1, Help: "For network clients, prefix file with source IP",
		Note:  "fio uses it only for the file names of its client/server mode, which gofio does not have: accepted, no effect",
		boolp: func(j *Job) *bool { return &j.UniqueFilename }},
	{Name: "overwrite", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "When writing, set whether to overwrite current data",
		Note:  "a writing job lays a missing or short file out with data before its I/O, as a reading job does",
		boolp: func(j *Job) *bool { return &j.Overwrite }},
	{Name: "create_fsync", Type: TypeBool, Default: "1", Min: 0, Max: 1, Help: "fsync file after creation",
		Neg: true, boolp: func(j *Job) *bool { return &j.NoCreateFsync }},
	{Name: "create_only", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Only perform file creation phase",
		boolp: func(j *Job) *bool { return &j.CreateOnly }},
	{Name: "fsync_on_close", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "fsync files on close",
		boolp: func(j *Job) *bool { return &j.FsyncOnClose }},
	{Name: "unlink_each_loop", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Unlink created files after each loop in a job has completed",
		Note:  "each later loop reopens its files: a writing job creates them again, a reading one fails with ENOENT, as fio; refused with registered files or ioengine=mmap",
		boolp: func(j *Job) *bool { return &j.UnlinkEachLoop }},
	{Name: "file_append", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "IO will start at the end of the file(s)",
		boolp: func(j *Job) *bool { return &j.FileAppend }},
	{Name: "disk_util", Type: TypeBool, Default: "1", Min: 0, Max: 1, Help: "Log disk utilization statistics",
		Neg: true, boolp: func(j *Job) *bool { return &j.NoDiskUtil }},
	{Name: "percentage_random", Type: TypeInt, Default: "100,100,100", Min: 0, Max: 100, Dirs: 3, Neg: true,
		Help:  "Percentage of seq/random mix that should be random",
		dirsp: func(j *Job) *[NumDirs]int { return &j.SeqPercent }},
	{Name: "rw_sequencer", Type: TypeChoice, Default: "sequential", Help: "IO offset generator modifier",
		Choices: []Choice{{"sequential", "Generate sequential offsets"}, {"identical", "Generate identical offsets"}},
		custom:  func(j *Job, v string) error { j.RWIdentical = v == "identical"; return nil }},
	{Name: "allrandrepeat", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Use repeatable random numbers for everything",
		boolp: func(j *Job) *bool { return &j.AllRandRepeat }},
	{Name: "offset_align", Type: TypeInt, Default: "0", Min: 0, Max: Unbounded, Help: "Start IO from this offset alignment",
		custom: func(j *Job, v string) error {
			n, err := strconv.ParseUint(v, 10, 64)
			j.OffsetAlign, j.OffsetAlignSet = n, true
			return err
		}},
	{Name: "max_latency", Type: TypeTime, Unit: time.Microsecond, Dirs: 3, Help: "Maximum tolerated IO latency (usec)",
		durDirs: func(j *Job) *[NumDirs]time.Duration { return &j.MaxLatency }},
	{Name: "nice", Type: TypeInt, Default: "0", Min: -20, Max: 19, Help: "Set job CPU nice value",
		intp: func(j *Job) *int { return &j.Nice }},
	{Name: "exec_prerun", Type: TypeString, Help: "Execute this file prior to running job",
		custom: func(j *Job, v string) error { j.ExecPrerun = v; return nil }},
	{Name: "exec_postrun", Type: TypeString, Help: "Execute this file after running job",
		custom: func(j *Job, v string) error { j.ExecPostrun = v; return nil }},
	{Name: "mem", Aliases: []string{"iomem"}, Type: TypeChoice, Default: "malloc", Help: "Backing type for IO buffers",
		Choices: memChoices, Note: "cudamalloc is refused, as by a fio built without CUDA",
		custom: func(j *Job, v string) error {
			j.Mem, _, _ = choiceIn(memChoices, v)
			j.MemFile = ""
			if i := strings.IndexByte(v, ':'); i >= 0 && strings.HasPrefix(j.Mem, "mmap") {
				// fio's str_mem_cb: the path after the colon, trimmed.
				j.MemFile = strings.TrimSpace(v[i+1:])
			}
			return nil
		}},
	{Name: "hugepage-size", Type: TypeInt, Default: "4194304", Min: 0, Max: Unbounded, Help: "When using hugepages, specify size of each page",
		custom: func(j *Job, v string) error {
			n, err := strconv.ParseUint(v, 10, 64)
			j.HugepageSize = n
			return err
		}},
	{Name: "lockmem", Type: TypeStrVal, Default: "0", Help: "Lock down this amount of memory (per worker)",
		custom: func(j *Job, v string) error {
			n, _, err := parseSize(v, j.KBBase, false)
			j.LockMem = n
			return err
		}},
	{Name: "pre_read", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Pre-read files before starting official testing",
		boolp: func(j *Job) *bool { return &j.PreRead }},
	{Name: "fadvise_hint", Type: TypeChoice, Default: "1", Help: "Use fadvise() to advise the kernel on IO pattern",
		Choices: fadviseChoices,
		custom:  func(j *Job, v string) error { j.FadviseHint, _, _ = choiceIn(fadviseChoices, v); return nil }},
	{Name: "write_hint", Type: TypeChoice, Help: "Set expected write life time",
		Choices: writeHintChoices,
		custom: func(j *Job, v string) error {
			name, _, _ := choiceIn(writeHintChoices, v)
			j.WriteHint = 1 + slices.IndexFunc(writeHintChoices, func(c Choice) bool { return c.Value == name })
			return nil
		}},
	{Name: "log_unix_epoch", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Use Unix time in log files",
		boolp: func(j *Job) *bool { return &j.LogUnixEpoch }},
	{Name: "log_alternate_epoch", Type: TypeBool, Default: "0", Min: 0, Max: 1,
		Help:  "Use alternate epoch time in log files. Uses the same epoch as that is used by clock_gettime with specified log_alternate_epoch_clock_id.",
		boolp: func(j *Job) *bool { return &j.LogAlternateEpoch }},
	{Name: "log_alternate_epoch_clock_id", Type: TypeInt, Default: "0", Min: 0, Max: Unbounded,
		Help: "If log_alternate_epoch or log_unix_epoch is true, this option specifies the clock_id from clock_gettime whose epoch should be used. If neither of those is true, this option has no effect. Default value is 0, or CLOCK_REALTIME",
		intp: func(j *Job) *int { return &j.LogEpochClock }},
	{Name: "log_compression", Type: TypeInt, Min: 1024, Max: 512 << 20, Help: "Log in compressed chunks of this size",
		intp: func(j *Job) *int { return &j.LogCompression }},
	{Name: "log_compression_cpus", Type: TypeString, Parent: "log_compression", Help: "Limit log compression to these CPUs",
		Note: "checked as fio checks it; gofio compresses stored logs when it writes them, after the run, on the main thread",
		custom: func(j *Job, v string) error {
			c, err := parseCPUList(v)
			j.LogCompressionCPUs = c
			return err
		}},
	{Name: "log_store_compressed", Type: TypeBool, Min: 0, Max: 1, Help: "Store logs in a compressed format",
		boolp: func(j *Job) *bool { return &j.LogStoreCompressed }},
	{Name: "log_entries", Type: TypeInt, Default: "1024", Min: 1024, Max: 1024 * 1024, Help: "Initial number of entries in a job IO log",
		intp: func(j *Job) *int { return &j.LogEntries }},
	{Name: "file_service_type", Type: TypeChoice, Default: "roundrobin", Parent: "nrfiles", Help: "How to select which file to service next",
		Choices: fileServiceChoices, custom: setFileService},
	{Name: "serialize_overlap", Type: TypeBool, Default: "0", Min: 0, Max: 1, Parent: "iodepth", Help: "Wait for in-flight IOs that collide to complete",
		boolp: func(j *Job) *bool { return &j.SerializeOverlap }},
	{Name: "offset_increment", Type: TypeSize, Default: "0", Parent: "offset", Help: "What is the increment from one offset to the next",
		custom: func(j *Job, v string) error {
			return setOffsetValue(j, v, &j.OffsetIncrement, &j.OffsetIncrementPercent, &j.Zones.Counts.OffsetIncrement)
		}},

	// fio's tiobench profile option: fio's parser knows it in every job.
	{Name: "threads", Type: TypeInt, Min: 0, Max: Unbounded, Help: "Number of Threads",
		Note:   "fio's tiobench profile option; as in fio it does nothing outside profile=tiobench (thread= runs jobs as threads)",
		custom: func(*Job, string) error { return nil }},
}

// fioAliases maps the aliases of fio options gofio does not have to their
// names (fio 3.33's options.c), so that an alias is reported as the fio
// option it is rather than as a typo.
var fioAliases = map[string]string{"mem_align": "iomem_align", "disable_bw": "disable_bw_measurement"}

// withFioOptions returns table with fioOptions and newerOptions spliced in before the first
// gofio or engine option, the place fio's own job options end.
func withFioOptions(table []OptionSpec) []OptionSpec {
	at := len(table)
	for i, o := range table {
		if o.Gofio || o.Engine != "" {
			at = i
			break
		}
	}
	out := make([]OptionSpec, 0, len(table)+len(fioOptions)+len(newerOptions))
	out = append(out, table[:at]...)
	out = append(out, fioOptions...)
	out = append(out, newerOptions...)
	return append(out, table[at:]...)
}
