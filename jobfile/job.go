package jobfile

import (
	"strings"
	"time"
)

// This file is the contract between the front end and the rest of gofio: the
// parser fills a Job, and run/, engines/ and report/ read it. Fields may be
// added; existing ones keep their meaning.

// Dir indexes per-direction values: read, write and trim, in fio's order.
type Dir int

// The three data directions, in fio's order (DDIR_READ, DDIR_WRITE, DDIR_TRIM).
const (
	DirRead Dir = iota
	DirWrite
	DirTrim
	NumDirs
)

// String returns fio's lower-case name of the direction.
func (d Dir) String() string {
	switch d {
	case DirRead:
		return "read"
	case DirWrite:
		return "write"
	case DirTrim:
		return "trim"
	}
	return "unknown"
}

// RW is the I/O pattern of a job, as given by rw= (without the :N suffix).
type RW string

// The rw= choices fio 3.33 accepts, canonical spelling.
const (
	RWRead          RW = "read"
	RWWrite         RW = "write"
	RWTrim          RW = "trim"
	RWRandRead      RW = "randread"
	RWRandWrite     RW = "randwrite"
	RWRandTrim      RW = "randtrim"
	RWReadWrite     RW = "rw" // readwrite is an alias
	RWRandRW        RW = "randrw"
	RWTrimWrite     RW = "trimwrite"
	RWRandTrimWrite RW = "randtrimwrite"
)

// IsRandom reports whether offsets are chosen at random.
func (r RW) IsRandom() bool {
	switch r {
	case RWRandRead, RWRandWrite, RWRandTrim, RWRandRW, RWRandTrimWrite:
		return true
	}
	return false
}

// HasRead reports whether the pattern issues reads.
func (r RW) HasRead() bool {
	switch r {
	case RWRead, RWRandRead, RWReadWrite, RWRandRW:
		return true
	}
	return false
}

// HasWrite reports whether the pattern issues writes.
func (r RW) HasWrite() bool {
	switch r {
	case RWWrite, RWRandWrite, RWReadWrite, RWRandRW, RWTrimWrite, RWRandTrimWrite:
		return true
	}
	return false
}

// HasTrim reports whether the pattern issues trims.
func (r RW) HasTrim() bool {
	switch r {
	case RWTrim, RWRandTrim, RWTrimWrite, RWRandTrimWrite:
		return true
	}
	return false
}

// ContinueOn is the set of error kinds continue_on_error lets a job go on
// after, as fio's ERROR_TYPE_* bits: none, read, write, io (read and
// write), verify, all.
type ContinueOn uint8

// The kinds of ContinueOn.
const (
	ContinueRead ContinueOn = 1 << iota
	ContinueWrite
	ContinueVerify
	ContinueIO              = ContinueRead | ContinueWrite
	ContinueAll             = ContinueIO | ContinueVerify
	ContinueNone ContinueOn = 0
)

// ParseContinueOn decodes a continue_on_error value (case does not matter;
// 0 is none, 1 is all, as fio's aliases).
func ParseContinueOn(v string) (ContinueOn, bool) {
	switch strings.ToLower(v) {
	case "none", "0":
		return ContinueNone, true
	case "read":
		return ContinueRead, true
	case "write":
		return ContinueWrite, true
	case "io":
		return ContinueIO, true
	case "verify":
		return ContinueVerify, true
	case "all", "1":
		return ContinueAll, true
	}
	return ContinueNone, false
}

// Covers reports whether c lets the job go on after every kind in k.
func (c ContinueOn) Covers(k ContinueOn) bool { return c&k == k }

// Option is one option as the user typed it, after ${VAR} expansion, with
// the canonical option name. The report prints these as fio's JSON "job
// options" and --showcmd prints them back.
type Option struct {
	Name     string // canonical name (aliases and command-line prefixes resolved)
	Value    string // raw text; empty for a flag given without a value
	HasValue bool
	File     string // job file it came from, "" for the command line
	Line     int    // 1-based line in File, 0 for the command line
}

// BSSplitEntry is one bs/percentage pair of bssplit=.
type BSSplitEntry struct {
	BS  uint64
	Pct uint32 // 0..100 after fio's distribution of unspecified entries
}

// Distribution is random_distribution= parsed.
type Distribution struct {
	Kind  string  // "random", "zipf", "pareto", "normal", "zoned", "zoned_abs"
	Param float64 // theta for zipf, h for pareto, sigma (percent) for normal
	// Zones are the ranges of zoned and zoned_abs per direction, in
	// order. fio 3.33 gives every direction the same list (its parser
	// refuses the per-direction form with commas).
	Zones [NumDirs][]ZoneSplit
}

// FileService is file_service_type=: how a job with several files picks
// the file of its next I/O, as fio 3.33's get_next_file.
type FileService struct {
	// Kind is "roundrobin" (fio's default), "sequential" (finish one
	// file before moving to the next), "random" (uniform), or the
	// non-uniform "zipf", "pareto" and "normal" (gauss is its alias).
	Kind string
	// Nr is the N of roundrobin:N, sequential:N and random:N, I/Os to
	// issue to a file before choosing again (fio's file_service_nr, read
	// with C's atoi: 0 never chooses again while the file lasts); 1 for
	// the non-uniform kinds.
	Nr int
	// Param is zipf's theta, pareto's h or normal's deviation (percent).
	Param float64
	// Center is the distribution's center in [0, 1], -1 when not given.
	Center float64
}

// ZoneSplit is one range of random_distribution=zoned or zoned_abs, as
// fio's struct zone_split: Access percent of the I/Os go to the next
// SizePct percent of the region (zoned) or the next Size bytes
// (zoned_abs). The percentages are 8 bits wide, as fio's.
type ZoneSplit struct {
	Access  uint8
	SizePct uint8
	Size    uint64
}

// Job is one validated job: a [section] of a job file or a --name= job on
// the command line, with [global] defaults applied, values converted to
// their units, and numjobs clones already expanded (each clone is a Job).
type Job struct {
	Name         string // name= or the section name
	Description  string
	File         string // job file the section came from ("" on the command line)
	Line         int    // line of the section header
	GroupID      int    // reporting group, assigned like fio's add_job
	SubjobNumber int    // clone index 0..numjobs-1
	JobFileIndex int    // index of the job file on the command line; >0 implies stonewall

	// Options are the options set for this job, in fio's parse order,
	// globals first. Used for JSON "job options".
	Options []Option
	// NumGlobalOptions is how many leading Options come from [global]
	// sections and command-line options before the first --name: fio
	// prints those under "global options", the rest under "job options".
	NumGlobalOptions int

	// Files and targets.
	Filenames      []string // explicit filename= list (escapes resolved); empty means generated
	Directory      []string
	FilenameFormat string
	NrFiles        int
	OpenFiles      int
	Size           uint64 // total bytes; 0 means the file/device size
	SizePercent    int    // size=N% (1..100), 0 if unset
	FileSizeMin    uint64 // filesize= range; 0 when unset
	FileSizeMax    uint64
	IOSize         uint64 // io_size=; 0 means Size
	IOSizePercent  int    // io_size=N% (1..100), 0 if unset
	Offset         uint64
	// OffsetAlign is offset_align: the unit an offset computed from a
	// percentage is rounded up to; OffsetAlignSet says it was given
	// (fio then uses it even when 0), else the smallest block size is.
	OffsetAlign       uint64
	OffsetAlignSet    bool
	OffsetPercent     int
	CreateOnOpen      bool
	Unlink            bool
	Invalidate        bool
	AllowMountedWrite bool
	// ReadOnly is the run's --readonly: the job neither writes nor trims
	// (refused at parse time), and never creates, extends, truncates or
	// removes a target: a file to lay out is refused with fio's
	// "refusing extend of file due to read-only", a replay skips its
	// log's writes, create_on_open creates nothing, unlink=1 removes
	// nothing.
	ReadOnly bool

	// Engine and queue.
	IOEngine                string // "io_uring", "null", "psync"
	IODepth                 int
	IODepthBatchSubmit      int // already fixed up: 0 or > iodepth becomes iodepth
	IODepthBatchCompleteMin int
	IODepthBatchCompleteMax int // already fixed up: < min becomes min
	IODepthLow              int // already fixed up: 0 or > iodepth becomes iodepth
	Direct                  bool
	Thread                  bool

	// Pattern.
	RW        RW
	RWSeqNr   uint64 // rw=randread:N, new random offset every N I/Os (0 = every I/O)
	RWSeqAdd  int64  // rw=write:4k, hole added after each sequential I/O; negative (rw=read:-8k) goes backwards
	RWMixRead int    // percent of reads for mixed patterns
	// SeqPercent is 100 less percentage_random per direction: the share
	// of a random pattern's I/Os that go on sequentially (0: all random,
	// fio's default).
	SeqPercent [NumDirs]int
	// RWIdentical is rw_sequencer=identical: the I/Os between the new
	// random offsets of rw=randread:N repeat the last offset instead of
	// going on sequentially.
	RWIdentical bool
	BS          [NumDirs]uint64 // bs= per direction
	BSRangeMin  [NumDirs]uint64 // bsrange=; 0 when unset
	BSRangeMax  [NumDirs]uint64
	BSSplit     [NumDirs][]BSSplitEntry
	BlockAlign  [NumDirs]uint64 // 0 means min bs
	BSUnaligned bool
	NoRandomMap bool
	RandRepeat  bool
	RandSeed    uint64
	// RandSeedSet says randseed= was given: fio then seeds its
	// generators from it (the offset generator only without randrepeat,
	// as fio seeds before it turns randrepeat off) and no longer reseeds
	// at every loop.
	RandSeedSet bool
	// AllRandRepeat is allrandrepeat: every generator's seed is fixed
	// (fio's FIO_RANDSEED times the thread number, plus the seed's
	// index), even with randrepeat=0.
	AllRandRepeat      bool
	RandomGenerator    string
	RandomDistribution Distribution
	FileService        FileService // file_service_type=
	Loops              int
	NumberIOs          uint64

	// Time.
	Runtime    time.Duration
	TimeBased  bool
	RampTime   time.Duration
	StartDelay time.Duration
	// IOTimeout is gofio's io_timeout: an I/O outstanding longer ends the
	// job with ETIMEDOUT. 0 (the default) waits forever, as fio does.
	IOTimeout time.Duration

	// Groups and placement.
	NumJobs        int // as given; clones already expanded
	GroupReporting bool
	// UnifiedRW is unified_rw_reporting: UnifiedNone, UnifiedMixed or
	// UnifiedBoth.
	UnifiedRW   int
	Stonewall   bool
	NewGroup    bool
	CPUsAllowed []int // nil means all
	// CPUsAllowedPolicy is cpus_allowed_policy: "split" gives each job one
	// CPU of cpus_allowed; "" or "shared" gives every job all of them.
	CPUsAllowedPolicy string
	RateIOPS          [NumDirs]uint64

	// Sync.
	Fsync     int
	Fdatasync int
	EndFsync  bool
	// SyncFileRange is sync_file_range's flags (SYNC_FILE_RANGE_WAIT_BEFORE,
	// _WRITE, _WAIT_AFTER ORed) and SyncFileRangeEvery its :N, the writes
	// issued between two sync_file_range calls (0: none).
	SyncFileRange      uint32
	SyncFileRangeEvery int
	// OpenDir is opendir=: Parse adds its regular files, and those of its
	// subdirectories, to Filenames (fio's add_dir_files).
	OpenDir string
	// LockFile is lockfile=: "none" (or ""), "exclusive" or "readwrite".
	LockFile string
	// Atomic is atomic=1: fio 3.33's O_ATOMIC, which implies direct=1
	// (Direct is set with it).
	Atomic bool
	// WriteBarrier is write_barrier: parsed and checked, and without
	// effect, as in fio 3.33, whose only engine with barrier support
	// (libpmem) never reads the barrier flag fio sets on every Nth write.
	WriteBarrier int

	// Buffers and verify.
	ZeroBuffers   bool
	RefillBuffers bool
	BufferPattern []byte
	// ScrambleBuffers is scramble_buffers (fio's default 1): a write that
	// does not refill its buffer gets its offset and issue time stamped
	// into every 512 bytes (io_u.c small_content_scramble). buffer_pattern
	// turns it off, and zero_buffers does unless scramble_buffers is set.
	ScrambleBuffers bool
	// CompressPercentage is buffer_compress_percentage: that share of
	// every CompressChunk bytes (buffer_compress_chunk) is zeros (or
	// buffer_pattern), the rest random. 100 becomes zero_buffers at fixup.
	CompressPercentage int
	CompressChunk      uint64
	// DedupePercentage is dedupe_percentage: that share of the written
	// buffers repeats an earlier one. DedupeMode is dedupe_mode ("repeat"
	// or "working_set"), DedupeWorkingSetPercentage the working set's
	// share of size=, and DedupeGlobal (dedupe_global) draws the working
	// set from every job's generator.
	DedupePercentage           int
	DedupeMode                 string
	DedupeWorkingSetPercentage int
	DedupeGlobal               bool
	// FillDevice is fill_device (fill_fs): write until ENOSPC, which then
	// ends the job without an error; without size= the size is unbounded.
	FillDevice bool
	// SerializeOverlap is serialize_overlap: an I/O waits while an
	// in-flight one overlaps it. fixup turns it off where fio does (no
	// writes, or iodepth=1).
	SerializeOverlap bool
	Verify           string // "" or "0" means off; crc32c, md5, sha256, pattern, ...
	VerifyPattern    []byte
	// VerifyPatternFormats holds where verify_pattern's %o formats lie in
	// VerifyPattern: 8 bytes each, filled with the I/O's offset.
	VerifyPatternFormats []int
	DoVerify             bool
	// VerifyOnly is verify_only: replay the write workload without
	// writing and verify what it would have written.
	VerifyOnly bool
	// VerifyStateSave and VerifyStateLoad are verify_state_save and
	// verify_state_load: keep a state file of the writes that completed,
	// and verify only those.
	VerifyStateSave bool
	VerifyStateLoad bool
	ContinueOnError ContinueOn // continue_on_error: the error kinds the job goes on after

	// Reporting.
	ClatPercentiles     bool
	LatPercentiles      bool
	SlatPercentiles     bool
	PercentileList      []float64
	PercentilePrecision int // decimals to print (largest in the list; 2 by default)
	SignificantFigures  int
	KBBase              int // 1024 or 1000
	UnitBase            int // 0 auto, 8 bytes, 1 bits
	DisableLat          bool
	DisableClat         bool
	DisableSlat         bool
	GtodReduce          bool
	DisableBW           bool   // disable_bw_measurement=: no per-I/O bw samples
	GtodCPU             int    // gtod_cpu=: the CPU taken out of the job's affinity
	GtodCPUSet          bool   // gtod_cpu= was given
	Clocksource         string // clocksource=: accepted; gofio always times with CLOCK_MONOTONIC
	UID, GID            int    // uid=, gid=: the job thread's credentials
	UIDSet, GIDSet      bool   // uid=, gid= were given
	Cgroup              string // cgroup=: the job thread's cgroup under the blkio or cgroup2 mount
	CgroupWeight        int    // cgroup_weight=: blkio.weight (100..1000), 0 unset
	CgroupNodelete      bool   // cgroup_nodelete=: keep the cgroup gofio made
	IOScheduler         string // ioscheduler=: written to the queue/scheduler of the disks under the job's files
	WriteLatLog         string
	WriteBWLog          string
	WriteIOPSLog        string
	WriteHistLog        string // write_hist_log: the clat histogram log's prefix
	LogHistMsec         int    // log_hist_msec: ms between histogram log samples (0: none)
	LogHistCoarseness   int    // log_hist_coarseness: 2^N histogram bins summed per column
	LogAvgMsec          int
	LogMaxValue         bool // log_max_value: a window's max instead of its mean
	LogOffset           bool // log_offset: the offset column in every log line
	// MaxLatency is max_latency per direction: a read, write or trim
	// whose total latency is longer ends the job with ETIMEDOUT (0: no
	// limit).
	MaxLatency [NumDirs]time.Duration
	// LogUnixEpoch and LogAlternateEpoch are log_unix_epoch and
	// log_alternate_epoch: either makes every log line's time count
	// from the epoch of clock_gettime's LogEpochClock
	// (log_alternate_epoch_clock_id; 0, CLOCK_REALTIME, is the Unix
	// epoch) instead of from the job's start (Job.LogEpoch).
	LogUnixEpoch, LogAlternateEpoch bool
	LogEpochClock                   int
	// LogCompression is log_compression, fio's chunk size for logs
	// compressed in memory (0: off); the logs it writes are the same.
	// LogCompressionCPUs is log_compression_cpus (nil: all).
	LogCompression     int
	LogCompressionCPUs []int
	// LogStoreCompressed is log_store_compressed: the logs are written
	// as fio stores them, <name>.log.fz, zlib streams of fio's binary
	// samples that fio --inflate-log prints.
	LogStoreCompressed bool
	// LogEntries is log_entries, the samples of a log's first chunk;
	// the stored compressed logs are split into chunks as fio's.
	LogEntries  int
	PerJobLogs  bool // per_job_logs: the job number in log file names
	BWAvgTime   int  // ms
	IOPSAvgTime int  // ms
	Stats       bool

	// io_uring engine options.
	Hipri             bool
	FixedBufs         bool
	RegisterFiles     bool
	SQThreadPoll      bool
	SQThreadPollCPU   int // -1 when unset
	NonVectored       int // -1 probe, 0 vectored, 1 non-vectored
	NoWait            bool
	ForceAsync        int
	CmdType           string // cmd_type: io_uring_cmd's command set, "nvme"
	CmdprioPercentage [NumDirs]int
	CmdprioClass      [NumDirs]int
	Cmdprio           [NumDirs]int
	// CmdprioBSSplitText is cmdprio_bssplit as given; CmdprioBSSplit
	// parses it, as fio does, when the job starts.
	CmdprioBSSplitText string

	// Options several engines share (io_uring, libaio, pvsync2), or that
	// the run core acts on; each engine's own options are its
	// EngineConfig.
	Uncached     bool // uncached: RWF_UNCACHED (RWF_DONTCACHE since Linux 6.14)
	ExitOnIODone bool // exit_on_io_done (cpuio): stop when the group's I/O jobs are done

	// engineConfig holds the options of the engine engineConfigFor that
	// only that engine reads (EngineInfo.NewOptions).
	engineConfig    any
	engineConfigFor string

	// The job options fio added after 3.33 (newer.go).
	Newer

	// gofio's own options.
	Run          RunOptions // compare=, sweep=, repeat=, fail_if_slower= ([global])
	TWPriority   bool       // tw_priority=1 (default): completion task-work first
	TWThread     string     // tw_thread: "auto" (default), "kernel" or "goroutine"
	TWList       string     // tw_list: "locked" (default) or "lockfree"
	TWReap       string     // tw_reap: "auto" (default), "fio" or "all"
	KernelStages TracerMode // kernel_stages: 0 (default), 1 or required
	// KernelStagesSample is kernel_stages_sample: 1 in this many I/Os traced.
	KernelStagesSample int
	// KernelLocks is kernel_locks: whether the job measures the kernel
	// lock contention of its threads (internal/klock).
	KernelLocks TracerMode
	// OpenLoop is open_loop=1: I/Os follow rate_iops='s timetable
	// whatever completes (internal/openloop).
	OpenLoop     bool
	SQThreadIdle time.Duration // sqthread_idle (ms); 0 = kernel default
	CoopTaskrun  bool
	DeferTaskrun bool // implies SingleIssuer
	SingleIssuer bool
	// TaskrunAuto is set when none of coop_taskrun, defer_taskrun and
	// single_issuer was given: the engine then asks for fio's own ring
	// flags (DEFER_TASKRUN+SINGLE_ISSUER and COOP_TASKRUN) and drops them
	// group by group where the kernel refuses them, as fio does.
	TaskrunAuto bool
	// TaskrunMode is taskrun_mode: TaskrunFlags (the default) leaves the
	// flags above as given; the other modes set them (finish).
	TaskrunMode    string
	IOWQMaxWorkers [2]uint32 // bounded, unbounded; 0 = leave as is

	// fio 3.33 options beyond the core set (jobfile/fiooptions.go).
	Zones               Zones
	Flow                Flow
	Think               ThinkTime
	LatencyTarget       LatencyTarget   // latency_target, latency_window, latency_percentile, latency_run
	SteadyState         SteadyState     // steadystate, steadystate_duration, steadystate_ramp_time
	Rate                [NumDirs]uint64 // rate=: bytes per second per direction; 0 = unlimited
	RateMin             [NumDirs]uint64 // rate_min=: bytes per second the job must keep up
	RateIOPSMin         [NumDirs]uint64 // rate_iops_min=
	RateProcess         string          // "linear" or "poisson"
	RateCycle           int             // rate_cycle= (ms)
	RateIgnoreThinktime bool
	WaitFor             string // wait_for=: the job (section name) this one starts after
	ExitAll             bool   // exitall: the first job to finish ends the others (ExitWhat says which)
	ExitWhat            string // "group", "stonewall" or "all"
	ExitAllOnError      bool
	IgnoreError         [3][]int // ignore_error= per class: read, write, verify
	ErrorDump           bool
	VerifyDump          bool
	VerifyFatal         bool
	VerifyAsync         int
	VerifyBacklog       uint64 // verify_backlog: verify once this many written blocks are unverified
	VerifyBacklogBatch  int    // verify_backlog_batch: blocks per backlog verify (0: VerifyBacklog)
	TrimPercentage      int    // trim_percentage: percent of the logged (verified) writes chosen for trimming
	TrimVerifyZero      bool   // trim_verify_zero: a trimmed block read back must be zeroes
	TrimBacklog         uint64 // trim_backlog: trim the chosen blocks once this many written blocks are logged
	TrimBacklogBatch    int    // trim_backlog_batch: trims per backlog batch (0: TrimBacklog)
	VerifyInterval      int    // verify_interval after fio's fixups: bytes per header; the block size when 0
	VerifyOffset        int    // verify_offset: where in each verify block the header goes (0: at its start)
	ExperimentalVerify  bool
	IOSubmitMode        string // "inline" or "offload" (run inline)
	Fallocate           string // none, native, posix, keep, truncate
	Sync                string // none, sync, dsync: O_SYNC/O_DSYNC on opened files
	NoFileCreate        bool   // allow_file_create=0
	CreateSerialize     bool
	LogPrio             bool
	IOLog               IOLog  // read_iolog=, write_iolog= and the replay_* options
	NUMACPUNodes        []int  // numa_cpu_nodes=
	NUMAMemPolicy       string // numa_mem_policy=MODE[:NODES]
	PrioClass, Prio     int    // prioclass=, prio= (ioprio of the job's thread)
	PrioSet             bool   // prioclass or prio was given
	Nice                int    // nice=: added to the job thread's nice value (-20..19)
	// Mem is mem= (iomem=), what backs the I/O buffers: "malloc" (fio's
	// default; an anonymous mapping in gofio, as "mmap"), "mmapshared",
	// "mmaphuge" (MAP_HUGETLB), "shm" or "shmhuge" (a SysV segment,
	// SHM_HUGETLB). MemFile is the PATH of mmap:PATH, mmapshared:PATH or
	// mmaphuge:PATH, a file the buffers map.
	Mem, MemFile string
	// HugepageSize is hugepage-size: what the huge kinds round the
	// buffers' size up to (fio's default 4 MiB).
	HugepageSize uint64
	// LockMem is lockmem: bytes of memory the job's thread maps and
	// mlocks for the length of the job (0: none).
	LockMem uint64
	// PreRead is pre_read: each file's region is read once before the
	// job's I/O (and invalidate is off).
	PreRead bool
	// FadviseHint is fadvise_hint: "1" (fio's default: POSIX_FADV_RANDOM
	// for a random pattern, else SEQUENTIAL, on each file's region when
	// it opens), "random", "sequential", or "0" for none.
	FadviseHint string
	// WriteHint is write_hint's RWH_WRITE_LIFE_* value (1 none ... 5
	// extreme), set on each file as it opens; 0 when not given.
	WriteHint int
	// ExecPrerun and ExecPostrun are exec_prerun and exec_postrun:
	// shell commands run before the job's I/O and after the job, their
	// output sent to NAME.prerun.txt and NAME.postrun.txt.
	ExecPrerun, ExecPostrun string
	OffsetIncrement         uint64
	OffsetIncrementPercent  int

	// File setup and teardown, as fio's filesetup.c and backend.c run
	// them.
	Overwrite      bool // overwrite: a writing job lays its files out with data first (fixup sets it for a job that reads)
	NoCreateFsync  bool // create_fsync=0: no fsync after laying a file out with data
	CreateOnly     bool // create_only: lay the files out and do no I/O
	FsyncOnClose   bool // fsync_on_close: fsync each file a writing job wrote when the job ends, as end_fsync, and again at its close
	UnlinkEachLoop bool // unlink_each_loop: unlink the regular files before every loop after the first
	FileAppend     bool // file_append: each regular file's I/O starts at its end
	UniqueFilename bool // unique_filename: fio's client/server file-name prefix, which gofio has no use for
	// NoSpaceCheck is gofio's space_check=0: lay the files out even when
	// they do not fit the free space of their filesystem, as fio does.
	NoSpaceCheck bool
	NoDiskUtil   bool // disk_util=0: the disks under the job's files are not sampled
	// Unrun maps each option gofio parses but does not run, and that the
	// job sets to something other than its default, to its value. A job
	// with any is refused at run time (UnrunOptions).
	Unrun map[string]string

	// BlockErrorPercentiles is block_error_percentiles: count the trims
	// of each trim-sized block of the job's one file and report their
	// percentiles and the blocks' states.
	BlockErrorPercentiles bool

	refillSet bool // refill_buffers was given explicitly (verify only forces it otherwise)
	// scrambleSet and zeroSet say scramble_buffers and zero_buffers were
	// given explicitly (fio's init_flags reads both).
	scrambleSet, zeroSet bool
	// logNamed marks write_lat_log, write_bw_log, write_iops_log and
	// write_hist_log given without a file prefix: the job name is the
	// prefix, as in fio.
	logNamed [4]bool
}

// GlobalOptions returns the options fio prints under JSON "global
// options": the global options in effect for the last job, which has seen
// every [global] section before it (nil when there are none).
func GlobalOptions(jobs []*Job) []Option {
	if len(jobs) == 0 {
		return nil
	}
	j := jobs[len(jobs)-1]
	return j.Options[:j.NumGlobalOptions]
}

// OwnOptions returns the job's own options, which fio prints under JSON
// "job options".
func (j *Job) OwnOptions() []Option { return j.Options[j.NumGlobalOptions:] }

// Given reports whether the user set option name (its canonical name) for
// this job, in a [global] section, the job's own section or on the command
// line, whatever the value.
func (j *Job) Given(name string) bool {
	_, ok := j.Setting(name)
	return ok
}

// Setting returns the option name as the user last set it for this job:
// the setting in effect, with the file and line an error about it should
// name. ok is false when the option was not given.
func (j *Job) Setting(name string) (o Option, ok bool) {
	for i := len(j.Options) - 1; i >= 0; i-- {
		if j.Options[i].Name == name {
			return j.Options[i], true
		}
	}
	return Option{}, false
}

// IOLog holds fio's I/O log options: write_iolog= records what a job
// issues, read_iolog= replays a log in place of the job's own offsets,
// directions and files, as the replay_* options adjust it.
type IOLog struct {
	Read            string // read_iolog=: the log to replay ("" = none)
	Chunked         bool   // read_iolog_chunked=1
	ReplayNoStall   bool   // replay_no_stall=1: no delays
	ReplayRedirect  string // replay_redirect=: the one file every I/O goes to
	ReplayTimeScale int    // replay_time_scale= percent (100 = real time)
	ReplayScale     int    // replay_scale=: offsets divided by it
	ReplayAlign     int    // replay_align=: offsets rounded down to it
	Write           string // write_iolog=: where to record the job's I/O ("" = nowhere)
	// ReplaySkip is replay_skip=: the directions (read, write, trim,
	// sync) a blktrace replay leaves out.
	ReplaySkip []string
	// MergeFile is merge_blktrace_file=: the read_iolog= blktraces are
	// merged into this file, which is then replayed ("" = no merge).
	MergeFile string
	// MergeScalars and MergeIters are merge_blktrace_scalars= and
	// merge_blktrace_iters=: per read_iolog= trace, the percentage its
	// times are scaled by and how often it runs; nil for fio's 100 and 1.
	MergeScalars, MergeIters []int
}

// WritesLogs reports whether the job writes any of fio's per-job logs:
// write_lat_log, write_bw_log, write_iops_log or write_hist_log.
func (j *Job) WritesLogs() bool {
	return j.WriteLatLog != "" || j.WriteBWLog != "" || j.WriteIOPSLog != "" || j.WriteHistLog != ""
}
