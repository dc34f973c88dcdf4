package jobfile

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// OptionTable returns the option table: every job, io_uring engine and gofio
// option, in fio's --cmdhelp order. Callers must not modify it.
func OptionTable() []OptionSpec { return optionTable }

// lookup maps every option name and alias to its spec.
var lookup = func() map[string]*OptionSpec {
	m := map[string]*OptionSpec{}
	for i := range optionTable {
		o := &optionTable[i]
		m[o.Name] = o
		for _, a := range o.Aliases {
			m[a] = o
		}
	}
	// The other engines' options join as they register (RegisterEngine).
	return m
}()

// Lookup returns the option spec named name (or one of its aliases).
func Lookup(name string) (*OptionSpec, bool) {
	o, ok := lookup[name]
	return o, ok
}

var rwChoices = []Choice{
	{"read", "Sequential read"},
	{"write", "Sequential write"},
	{"trim", "Sequential trim"},
	{"randread", "Random read"},
	{"randwrite", "Random write"},
	{"randtrim", "Random trim"},
	{"rw", "Sequential read and write mix"},
	{"readwrite", "Sequential read and write mix"},
	{"randrw", "Random read and write mix"},
	{"trimwrite", "Trim and write mix, trims preceding writes"},
	{"randtrimwrite", "Randomly trim and write mix, trims preceding writes"},
}

var engineChoices = []Choice{
	{"sync", "Use read/write"},
	{"psync", "Use pread/pwrite"},
	{"vsync", "Use readv/writev"},
	{"pvsync", "Use preadv/pwritev"},
	{"pvsync2", "Use preadv2/pwritev2"},
	{"libaio", "Linux native asynchronous IO"},
	{"io_uring", "Fast Linux native aio"},
	{"posixaio", "POSIX asynchronous IO"},
	{"rbd", "Rados Block Device asynchronous IO"},
	{"mmap", "Memory mapped IO"},
	{"splice", "splice/vmsplice based IO"},
	{"netsplice", "splice/vmsplice to/from the network"},
	{"sg", "SCSI generic v3 IO"},
	{"null", "Testing engine (no data transfer)"},
	{"net", "Network IO"},
	{"cpuio", "CPU cycle burner engine"},
	{"rdma", "RDMA IO engine"},
	{"e4defrag", "ext4 defrag engine"},
	{"falloc", "fallocate() file based engine"},
	{"gfapi", "Glusterfs libgfapi(sync) based engine"},
	{"gfapi_async", "Glusterfs libgfapi(async) based engine"},
	{"pmemblk", "PMDK libpmemblk based IO engine"},
	{"dev-dax", "DAX Device based IO engine"},
	{"filecreate", "File creation engine"},
	{"external", "Load external engine (append name)"},
	{"libpmem", "PMDK libpmem based IO engine"},
	{"nbd", "Network Block Device (NBD) IO engine"},
}

var verifyChoices = []Choice{
	{"0", "Don't do IO verification"},
	{"md5", "Use md5 checksums for verification"},
	{"crc64", "Use crc64 checksums for verification"},
	{"crc32", "Use crc32 checksums for verification"},
	{"crc32c-intel", "Use crc32c checksums for verification (hw assisted, if available)"},
	{"crc32c", "Use crc32c checksums for verification (hw assisted, if available)"},
	{"crc16", "Use crc16 checksums for verification"},
	{"crc7", "Use crc7 checksums for verification"},
	{"sha1", "Use sha1 checksums for verification"},
	{"sha256", "Use sha256 checksums for verification"},
	{"sha512", "Use sha512 checksums for verification"},
	{"sha3-224", "Use sha3-224 checksums for verification"},
	{"sha3-256", "Use sha3-256 checksums for verification"},
	{"sha3-384", "Use sha3-384 checksums for verification"},
	{"sha3-512", "Use sha3-512 checksums for verification"},
	{"xxhash", "Use xxhash checksums for verification"},
	{"meta", "Use io information for verification. Now is implied by default, thus option is obsolete, don't use it"},
	{"pattern", "Verify strict pattern"},
	{"null", "Pretend to verify"},
}

var distChoices = []Choice{{"random", "Completely random"}, {"zipf", "Zipf distribution"},
	{"pareto", "Pareto distribution"}, {"normal", "Normal (Gaussian) distribution"},
	{"zoned", "Zoned random distribution"}, {"zoned_abs", "Zoned absolute random distribution"}}

// supportedVerify are the verify= methods gofio implements.
var supportedVerify = []string{"0", "crc32c", "crc32c-intel", "md5", "sha256", "meta", "pattern", "null"}

var continueChoices = []Choice{
	{"none", "Exit when an error is encountered"},
	{"read", "Continue on read errors only"},
	{"write", "Continue on write errors only"},
	{"io", "Continue on any IO errors"},
	{"verify", "Continue on verify errors only"},
	{"all", "Continue on all io and verify errors"},
	{"0", "Alias for 'none'"},
	{"1", "Alias for 'all'"},
}

// optionTable is the one option table, in fio's --cmdhelp=all order, io_uring
// engine options and gofio's own options last.
var optionTable = withFioOptions([]OptionSpec{
	{Name: "description", Type: TypeString, Help: "Text job description",
		custom: func(j *Job, v string) error { j.Description = v; return nil }},
	{Name: "name", Type: TypeString, Help: "Name of this job",
		custom: func(j *Job, v string) error { j.Name = v; return nil }},
	{Name: "filename", Type: TypeString, Prio: -1, Help: "File(s) to use for the workload",
		Note:   "':'-separated list; write '\\:' for a literal colon",
		custom: addFilenames},
	{Name: "lockfile", Type: TypeChoice, Default: "none", Parent: "filename", Prio: 1, Help: "Lock file when doing IO to it",
		Choices: lockChoices,
		Note:    "as fio 3.33: a lock per file shared by the job's numjobs clones, held while an I/O is queued (for the sync engines, while it runs); the :N batch fio's HOWTO names is ignored, as in fio 3.33",
		custom:  func(j *Job, v string) error { j.LockFile, _, _ = choiceIn(lockChoices, v); return nil }},
	{Name: "directory", Type: TypeString, Help: "Directory to store files in",
		custom: func(j *Job, v string) error { j.Directory = splitFilenames(v); return nil }},
	{Name: "filename_format", Type: TypeString, Prio: -1, Default: "$jobname.$jobnum.$filenum",
		Help:   "Override default $jobname.$jobnum.$filenum naming",
		custom: func(j *Job, v string) error { j.FilenameFormat = v; return nil }},
	{Name: "opendir", Type: TypeString, Help: "Recursively add files from this directory and down",
		Note:   "its regular files, in directory order, before filename='s (fio's add_dir_files at parse time); a directory without any is an error (fio runs a job with no files)",
		custom: func(j *Job, v string) error { j.OpenDir = v; return nil }},
	{Name: "rw", Aliases: []string{"readwrite"}, Type: TypeChoice, Default: "read", Choices: rwChoices,
		Help: "IO direction", custom: setRW},
	{Name: "bs", Aliases: []string{"blocksize"}, Type: TypeInt, Default: "4096", Min: 1, Max: Unbounded, Dirs: 3,
		Parent: "rw", Help: "Block size unit", Note: "R,W,T values separated by commas; bs=4k-16k is rejected (use bsrange)",
		dirs64: func(j *Job) *[NumDirs]uint64 { return &j.BS }},
	{Name: "ba", Aliases: []string{"blockalign"}, Type: TypeInt, Min: 1, Max: Unbounded, Dirs: 3, Parent: "rw",
		Help: "IO block offset alignment", dirs64: func(j *Job) *[NumDirs]uint64 { return &j.BlockAlign }},
	{Name: "bsrange", Aliases: []string{"blocksize_range"}, Type: TypeRange, Min: 1, Dirs: 3, Parent: "rw",
		Help: "Set block size range (in more detail than bs)", custom: setBSRange},
	{Name: "bssplit", Type: TypeString, Parent: "rw", Help: "Set a specific mix of block sizes", custom: setBSSplit},
	{Name: "bs_unaligned", Aliases: []string{"blocksize_unaligned"}, Type: TypeFlag, Parent: "rw",
		Help: "Don't sector align IO buffer sizes", boolp: func(j *Job) *bool { return &j.BSUnaligned }},
	{Name: "randrepeat", Type: TypeBool, Default: "1", Min: 0, Max: 1, Parent: "rw",
		Help: "Use repeatable random IO pattern", boolp: func(j *Job) *bool { return &j.RandRepeat }},
	{Name: "randseed", Type: TypeStrVal, Default: "0x89", Parent: "rw", Help: "Set the random generator seed value",
		custom: func(j *Job, v string) error {
			n, _, err := parseSize(v, j.KBBase, false)
			// fio turns randrepeat off after seeding (fixup_options
			// runs after setup_random_seeds), so RandRepeat keeps what
			// the job says; run applies both in fio's order.
			j.RandSeed, j.RandSeedSet = n, true
			return err
		}},
	{Name: "norandommap", Type: TypeFlag, Parent: "rw", Help: "Accept potential duplicate random blocks",
		boolp: func(j *Job) *bool { return &j.NoRandomMap }},
	{Name: "ioengine", Type: TypeChoice, Default: "psync", Choices: engineChoices, Help: "IO engine to use",
		Note:   "the engines gofio runs and those it refuses are listed under Engines",
		custom: func(j *Job, v string) error { j.IOEngine = v; return nil }},
	{Name: "iodepth", Type: TypeInt, Default: "1", Min: 1, Max: Unbounded, Help: "Number of IO buffers to keep in flight",
		Note: "not rounded to a power of 2 (fio 3.33's io_uring engine rounds it up)",
		intp: func(j *Job) *int { return &j.IODepth }},
	{Name: "iodepth_batch", Aliases: []string{"iodepth_batch_submit"}, Type: TypeInt, Default: "1", Min: 0, Max: Unbounded,
		Parent: "iodepth", Help: "Number of IO buffers to submit in one go",
		intp: func(j *Job) *int { return &j.IODepthBatchSubmit }},
	{Name: "iodepth_batch_complete_min", Aliases: []string{"iodepth_batch_complete"}, Type: TypeInt, Default: "1", Min: 0,
		Max: Unbounded, Parent: "iodepth", Help: "Min number of IO buffers to retrieve in one go",
		intp: func(j *Job) *int { return &j.IODepthBatchCompleteMin }},
	{Name: "iodepth_batch_complete_max", Type: TypeInt, Min: 0, Max: Unbounded, Parent: "iodepth",
		Help: "Max number of IO buffers to retrieve in one go", intp: func(j *Job) *int { return &j.IODepthBatchCompleteMax }},
	{Name: "iodepth_low", Type: TypeInt, Min: 0, Max: Unbounded, Parent: "iodepth", Help: "Low water mark for queuing depth",
		intp: func(j *Job) *int { return &j.IODepthLow }},
	{Name: "size", Type: TypeSize, Help: "Total size of device or files", custom: func(j *Job, v string) error {
		if nz, ok, err := parseZoneCount(v); ok || err != nil {
			j.Size, j.SizePercent, j.Zones.Counts.Size = 0, 0, nz
			return err
		}
		n, pct, err := parseSize(v, j.KBBase, true)
		j.Size, j.SizePercent = n, pct
		return err
	}},
	{Name: "io_size", Aliases: []string{"io_limit"}, Type: TypeSize, Help: "Total size of I/O to be performed",
		custom: func(j *Job, v string) error {
			if nz, ok, err := parseZoneCount(v); ok || err != nil {
				j.IOSize, j.IOSizePercent, j.Zones.Counts.IOSize = 0, 0, nz
				return err
			}
			n, pct, err := parseSize(v, j.KBBase, true)
			j.IOSize, j.IOSizePercent = n, pct
			return err
		}},
	{Name: "filesize", Type: TypeRange, TypeHelp: "string (opt=bla)", Min: 1, Help: "Size of individual files",
		custom: func(j *Job, v string) error {
			lo, hi, err := parseRange(v, j.KBBase)
			if err == nil && lo == 0 {
				err = errors.New("min value out of range: 0 (1 min)")
			}
			j.FileSizeMin, j.FileSizeMax = lo, hi
			return err
		}},
	{Name: "offset", Aliases: []string{"fileoffset"}, Type: TypeSize, Default: "0", Help: "Start IO from this offset",
		custom: func(j *Job, v string) error {
			return setOffsetValue(j, v, &j.Offset, &j.OffsetPercent, &j.Zones.Counts.Offset)
		}},
	{Name: "number_ios", Type: TypeStrVal, Default: "0", Help: "Force job completion after this number of IOs",
		custom: func(j *Job, v string) error {
			n, _, err := parseSize(v, j.KBBase, false)
			j.NumberIOs = n
			return err
		}},
	{Name: "random_generator", Type: TypeChoice, Default: "tausworthe", Help: "Type of random number generator to use",
		Choices: []Choice{{"tausworthe", "Strong Tausworthe generator"}, {"lfsr", "Variable length LFSR"},
			{"tausworthe64", "64-bit Tausworthe variant"}},
		custom: func(j *Job, v string) error { j.RandomGenerator = v; return nil }},
	{Name: "random_distribution", Type: TypeChoice, Default: "random", Help: "Random offset distribution generator",
		Choices: distChoices,
		Note:    "zoned and zoned_abs run as fio 3.33 (the same offsets with randrepeat); like fio 3.33, gofio refuses a per-direction list (a comma in the value)", custom: setDistribution},
	{Name: "nrfiles", Aliases: []string{"nr_files"}, Type: TypeInt, Default: "1", Min: 0, Max: Unbounded,
		Help: "Split job workload between this number of files", intp: func(j *Job) *int { return &j.NrFiles }},
	{Name: "openfiles", Type: TypeInt, Min: 0, Max: Unbounded, Help: "Number of files to keep open at the same time",
		intp: func(j *Job) *int { return &j.OpenFiles }},
	{Name: "fsync", Type: TypeInt, Default: "0", Min: 0, Max: Unbounded, Help: "Issue fsync for writes every given number of blocks",
		intp: func(j *Job) *int { return &j.Fsync }},
	{Name: "fdatasync", Type: TypeInt, Default: "0", Min: 0, Max: Unbounded,
		Help: "Issue fdatasync for writes every given number of blocks", intp: func(j *Job) *int { return &j.Fdatasync }},
	{Name: "sync_file_range", Type: TypeString, TypeHelp: "string with possible k/m/g postfix (opt=4k)", Help: "Use sync_file_range()",
		Choices: sfrChoices, Note: "FLAG[,FLAG...][:N], N a plain number (default 1); a bad flag or N is an error (fio warns and keeps the flags it knows, and reads 8k as 8)",
		custom: setSyncFileRange},
	{Name: "write_barrier", Type: TypeInt, Default: "0", Min: 0, Max: Unbounded, Help: "Make every Nth write a barrier write",
		Note: "no effect, as in fio 3.33: its one engine with barriers (libpmem) ignores the flag",
		intp: func(j *Job) *int { return &j.WriteBarrier }},
	{Name: "direct", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Use O_DIRECT IO (negates buffered)",
		boolp: func(j *Job) *bool { return &j.Direct }},
	{Name: "atomic", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Use Atomic IO with O_DIRECT (implies O_DIRECT)",
		Note:  "as fio 3.33 on Linux: direct=1, and open(2) gets O_DIRECT with fio's O_ATOMIC stand-in bit 040000000, which Linux ignores",
		boolp: func(j *Job) *bool { return &j.Atomic }},
	{Name: "buffered", Type: TypeBool, Default: "1", Min: 0, Max: 1, Neg: true, Help: "Use buffered IO (negates direct)",
		boolp: func(j *Job) *bool { return &j.Direct }},
	{Name: "loops", Type: TypeInt, Default: "1", Min: 0, Max: Unbounded, Help: "Number of times to run the job",
		intp: func(j *Job) *int { return &j.Loops }},
	{Name: "numjobs", Type: TypeInt, Default: "1", Min: 0, Max: Unbounded, Help: "Duplicate this job this many times",
		Note: "numjobs=0 is an error (fio clones until it runs out of job slots)", intp: func(j *Job) *int { return &j.NumJobs }},
	{Name: "startdelay", Type: TypeTime, Default: "0", Unit: time.Second, Help: "Only start job when this period has passed",
		durp: func(j *Job) *time.Duration { return &j.StartDelay }},
	{Name: "runtime", Aliases: []string{"timeout"}, Type: TypeTime, Default: "0", Unit: time.Second,
		Help: "Stop workload when this amount of time has passed", durp: func(j *Job) *time.Duration { return &j.Runtime }},
	{Name: "time_based", Type: TypeFlag, Help: "Keep running until runtime/timeout is met",
		Note: "without a runtime it is an error (fio warns and drops the flag)", boolp: func(j *Job) *bool { return &j.TimeBased }},
	{Name: "ramp_time", Type: TypeTime, Unit: time.Second, Help: "Ramp up time before measuring performance",
		durp: func(j *Job) *time.Duration { return &j.RampTime }},
	{Name: "verify", Type: TypeChoice, Default: "0", Choices: verifyChoices, Help: "Verify data written",
		Note: "gofio implements 0, crc32c, crc32c-intel, md5, sha256, meta, pattern and null", custom: setVerify},
	{Name: "do_verify", Type: TypeBool, Default: "1", Min: 0, Max: 1, Parent: "verify", Help: "Run verification stage after write",
		boolp: func(j *Job) *bool { return &j.DoVerify }},
	{Name: "verify_only", Type: TypeFlag,
		Help:  "Verifies previously written data is still valid",
		boolp: func(j *Job) *bool { return &j.VerifyOnly }},
	{Name: "verify_state_save", Type: TypeBool, Default: "0", Min: 0, Max: 1, Parent: "verify",
		Help:  "Save verify state on termination",
		Note:  "default 0 (fio's 1 saves only on a signal fio catches); with 1 gofio keeps the state file current on every completed write, so it survives SIGKILL",
		boolp: func(j *Job) *bool { return &j.VerifyStateSave }},
	{Name: "verify_state_load", Type: TypeBool, Default: "0", Min: 0, Max: 1, Parent: "verify",
		Help:  "Load verify state on startup",
		boolp: func(j *Job) *bool { return &j.VerifyStateLoad }},
	{Name: "verify_pattern", Type: TypeString, Parent: "verify", Help: "Fill pattern for IO buffers",
		custom: func(j *Job, v string) error {
			p, formats, err := parsePattern(v, true)
			j.VerifyPattern, j.VerifyPatternFormats = p, formats
			return err
		}},
	{Name: "rwmixread", Type: TypeInt, Default: "50", Min: 0, Max: 100, Help: "Percentage of mixed workload that is reads",
		custom: func(j *Job, v string) error { n, _ := strconv.Atoi(v); j.RWMixRead = n; return nil }},
	{Name: "rwmixwrite", Type: TypeInt, Default: "50", Min: 0, Max: 100, Help: "Percentage of mixed workload that is writes",
		custom: func(j *Job, v string) error { n, _ := strconv.Atoi(v); j.RWMixRead = 100 - n; return nil }},
	{Name: "rate_iops", Type: TypeInt, Min: 0, Max: Unbounded, Dirs: 3, Help: "Limit IO used to this number of IO operations/sec",
		dirs64: func(j *Job) *[NumDirs]uint64 { return &j.RateIOPS }},
	{Name: "invalidate", Type: TypeBool, Default: "1", Min: 0, Max: 1, Help: "Invalidate buffer/page cache prior to running job",
		boolp: func(j *Job) *bool { return &j.Invalidate }},
	{Name: "create_on_open", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Create files when they are opened for IO",
		boolp: func(j *Job) *bool { return &j.CreateOnOpen }},
	{Name: "allow_mounted_write", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Allow writes to a mounted partition",
		boolp: func(j *Job) *bool { return &j.AllowMountedWrite }},
	{Name: "cpus_allowed", Type: TypeString, Help: "Set CPUs allowed", custom: func(j *Job, v string) error {
		c, err := parseCPUList(v)
		j.CPUsAllowed = c
		return err
	}},
	{Name: "uid", Type: TypeInt, Min: 0, Max: 1<<32 - 2, Help: "Run job with this user ID",
		Note:   "set on the job's own thread only (setresuid), after its files are laid out and opened",
		custom: func(j *Job, v string) error { j.UID, _ = strconv.Atoi(v); j.UIDSet = true; return nil }},
	{Name: "gid", Type: TypeInt, Min: 0, Max: 1<<32 - 2, Help: "Run job with this group ID",
		Note:   "set on the job's own thread only (setresgid), after its files are laid out and opened",
		custom: func(j *Job, v string) error { j.GID, _ = strconv.Atoi(v); j.GIDSet = true; return nil }},
	{Name: "cgroup", Type: TypeString, Help: "Add job to cgroup of this name",
		custom: func(j *Job, v string) error { j.Cgroup = v; return nil }},
	{Name: "cgroup_weight", Type: TypeInt, Min: 100, Max: 1000, Parent: "cgroup", Help: "Use given weight for cgroup",
		intp: func(j *Job) *int { return &j.CgroupWeight }},
	{Name: "cgroup_nodelete", Type: TypeBool, Default: "0", Min: 0, Max: 1, Parent: "cgroup", Help: "Do not delete cgroups after job completion",
		boolp: func(j *Job) *bool { return &j.CgroupNodelete }},
	{Name: "profile", Type: TypeString, Help: "Select a specific builtin performance test",
		Note: "in a job file stored and unused, as in fio; on the command line --profile=tiobench runs fio's tiobench jobs after the others, and act is refused", custom: func(*Job, string) error { return nil }},
	{Name: "ioscheduler", Type: TypeString, Help: "Use this IO scheduler on the backing device",
		custom: func(j *Job, v string) error { j.IOScheduler = v; return nil }},
	{Name: "cpumask", Type: TypeInt, Min: 0, Max: Unbounded, Help: "CPU affinity mask", custom: func(j *Job, v string) error {
		m, _ := strconv.ParseUint(v, 10, 64)
		c, err := cpumaskCPUs(m, configuredCPUs())
		j.CPUsAllowed = c
		return err
	}},
	{Name: "cpus_allowed_policy", Type: TypeChoice, Parent: "cpus_allowed", Prio: 1, Help: "Distribution policy for cpus_allowed",
		Choices: []Choice{{"shared", "Mask shared between threads"}, {"split", "Mask split between threads"}},
		custom:  func(j *Job, v string) error { j.CPUsAllowedPolicy = v; return nil }},
	{Name: "end_fsync", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Include fsync at the end of job",
		boolp: func(j *Job) *bool { return &j.EndFsync }},
	{Name: "unlink", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Unlink created files after job has completed",
		boolp: func(j *Job) *bool { return &j.Unlink }},
	{Name: "stonewall", Aliases: []string{"wait_for_previous"}, Type: TypeFlag, Help: "Insert a hard barrier between this job and previous",
		boolp: func(j *Job) *bool { return &j.Stonewall }},
	{Name: "new_group", Type: TypeFlag, Help: "Mark the start of a new group (for reporting)",
		boolp: func(j *Job) *bool { return &j.NewGroup }},
	{Name: "thread", Type: TypeFlag, Help: "Use threads instead of processes",
		Note:  "gofio always runs jobs as goroutines; the flag only changes the report wording",
		boolp: func(j *Job) *bool { return &j.Thread }},
	{Name: "per_job_logs", Type: TypeBool, Default: "1", Min: 0, Max: 1, Help: "Include job number in generated log files or not",
		boolp: func(j *Job) *bool { return &j.PerJobLogs }},
	{Name: "write_bw_log", Type: TypeString, Help: "Write log of bandwidth during run",
		OptionalArg: true,
		custom:      func(j *Job, v string) error { j.WriteBWLog, j.logNamed[1] = v, v == ""; return nil }},
	{Name: "bwavgtime", Type: TypeInt, Default: "500", Min: 0, Max: Unbounded, Parent: "write_bw_log",
		Help: "Time window over which to calculate bandwidth (msec)", intp: func(j *Job) *int { return &j.BWAvgTime }},
	{Name: "write_lat_log", Type: TypeString, Help: "Write log of latency during run",
		OptionalArg: true,
		custom:      func(j *Job, v string) error { j.WriteLatLog, j.logNamed[0] = v, v == ""; return nil }},
	{Name: "write_iops_log", Type: TypeString, Help: "Write log of IOPS during run",
		OptionalArg: true,
		custom:      func(j *Job, v string) error { j.WriteIOPSLog, j.logNamed[2] = v, v == ""; return nil }},
	{Name: "iopsavgtime", Type: TypeInt, Default: "500", Min: 0, Max: Unbounded, Parent: "write_iops_log",
		Help: "Time window over which to calculate IOPS (msec)", intp: func(j *Job) *int { return &j.IOPSAvgTime }},
	{Name: "write_hist_log", Type: TypeString, Help: "Write log of latency histograms during run",
		OptionalArg: true,
		custom:      func(j *Job, v string) error { j.WriteHistLog, j.logNamed[3] = v, v == ""; return nil }},
	{Name: "log_hist_msec", Type: TypeInt, Default: "0", Min: 0, Max: Unbounded, Help: "Dump completion latency histograms at frequency of this time value",
		intp: func(j *Job) *int { return &j.LogHistMsec }},
	{Name: "log_hist_coarseness", Type: TypeInt, Default: "0", Min: 0, Max: 6,
		Help: "Integer in range [0,6]. Higher coarseness outputs fewer histogram bins per sample. The number of bins for these are [1216, 608, 304, 152, 76, 38, 19] respectively.",
		Note: "fio takes any value and reads past its histogram above 6; gofio refuses them",
		intp: func(j *Job) *int { return &j.LogHistCoarseness }},
	{Name: "log_avg_msec", Type: TypeInt, Default: "0", Min: 0, Max: Unbounded, Help: "Average bw/iops/lat logs over this period of time",
		intp: func(j *Job) *int { return &j.LogAvgMsec }},
	{Name: "log_max_value", Type: TypeChoice, TypeHelp: "boolean value (opt=1)", Default: "0", Min: 0, Max: 1,
		Help: "Log max sample in a window instead of average", Choices: logWindowChoices, custom: setLogWindow,
		Note: "fio 3.37 made it an alias of log_window_value: gofio takes that option's values too"},
	{Name: "log_offset", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Include offset of IO for each log entry",
		boolp: func(j *Job) *bool { return &j.LogOffset }},
	{Name: "group_reporting", Type: TypeFlag, Help: "Do reporting on a per-group basis",
		boolp: func(j *Job) *bool { return &j.GroupReporting }},
	{Name: "stats", Type: TypeBool, Default: "1", Min: 0, Max: 1, Help: "Enable collection of stats",
		boolp: func(j *Job) *bool { return &j.Stats }},
	{Name: "zero_buffers", Type: TypeFlag, Help: "Init IO buffers to all zeroes",
		custom: func(j *Job, v string) error { j.ZeroBuffers, j.zeroSet = v == "1", true; return nil }},
	{Name: "refill_buffers", Type: TypeFlag, Help: "Refill IO buffers on every IO submit",
		custom: func(j *Job, v string) error { j.RefillBuffers, j.refillSet = v == "1", true; return nil }},
	{Name: "buffer_pattern", Type: TypeString, Help: "Fill pattern for IO buffers",
		custom: func(j *Job, v string) error {
			p, _, err := parsePattern(v, false)
			j.BufferPattern = p
			// fio's str_buffer_pattern_cb: refill when the job reads or
			// compresses (as known at this point of the job), no
			// scrambling, no zeroing.
			j.RefillBuffers = j.CompressPercentage > 0 || j.RW.HasRead()
			j.ScrambleBuffers, j.ZeroBuffers = false, false
			return err
		}},
	{Name: "clat_percentiles", Type: TypeBool, Default: "1", Min: 0, Max: 1,
		Help: "Enable the reporting of completion latency percentiles", boolp: func(j *Job) *bool { return &j.ClatPercentiles }},
	{Name: "lat_percentiles", Type: TypeBool, Default: "0", Min: 0, Max: 1,
		Help: "Enable the reporting of IO latency percentiles", boolp: func(j *Job) *bool { return &j.LatPercentiles }},
	{Name: "slat_percentiles", Type: TypeBool, Default: "0", Min: 0, Max: 1,
		Help: "Enable the reporting of submission latency percentiles", boolp: func(j *Job) *bool { return &j.SlatPercentiles }},
	{Name: "percentile_list", Type: TypeFloatList, Default: "1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99",
		FMin: 0, FMax: 100, Help: "Specify a custom list of percentiles to report for completion latency and block errors",
		Note: "every bad entry is an error (fio only fails on the first)",
		custom: func(j *Job, v string) error {
			l, prec, err := parseFloatList(v)
			j.PercentileList, j.PercentilePrecision = l, prec
			return err
		}},
	{Name: "significant_figures", Type: TypeInt, Default: "4", Min: 1, Max: 10,
		Help: "Significant figures for output-format set to normal", intp: func(j *Job) *int { return &j.SignificantFigures }},
	{Name: "gtod_reduce", Type: TypeBool, Default: "0", Min: 0, Max: 1, Help: "Greatly reduce number of gettimeofday() calls",
		boolp: func(j *Job) *bool { return &j.GtodReduce }},
	{Name: "disable_lat", Type: TypeBool, Default: "0", Min: 0, Max: 1, Parent: "gtod_reduce", Help: "Disable latency numbers",
		boolp: func(j *Job) *bool { return &j.DisableLat }},
	{Name: "disable_clat", Type: TypeBool, Default: "0", Min: 0, Max: 1, Parent: "gtod_reduce",
		Help: "Disable completion latency numbers", boolp: func(j *Job) *bool { return &j.DisableClat }},
	{Name: "disable_slat", Type: TypeBool, Default: "0", Min: 0, Max: 1, Parent: "gtod_reduce",
		Help: "Disable submission latency numbers", boolp: func(j *Job) *bool { return &j.DisableSlat }},
	{Name: "disable_bw_measurement", Aliases: []string{"disable_bw"}, Type: TypeBool, Default: "0", Min: 0, Max: 1, Parent: "gtod_reduce",
		Help: "Disable bandwidth logging", boolp: func(j *Job) *bool { return &j.DisableBW }},
	{Name: "gtod_cpu", Type: TypeInt, Min: 0, Max: Unbounded, Help: "Set up dedicated gettimeofday() thread on this CPU",
		Note:   "gofio runs no time thread; as in fio, the CPU is taken out of every job's cpumask",
		custom: func(j *Job, v string) error { j.GtodCPU, _ = strconv.Atoi(v); j.GtodCPUSet = true; return nil }},
	{Name: "clocksource", Type: TypeChoice, Help: "What type of timing source to use", Choices: clockChoices,
		Note:   "gofio times with CLOCK_MONOTONIC whatever the value (jobfile/DIFFERENCES.md)",
		custom: func(j *Job, v string) error { j.Clocksource = v; return nil }},
	{Name: "continue_on_error", Type: TypeChoice, Default: "none", Choices: continueChoices,
		Help: "Continue on non-fatal errors during IO", custom: func(j *Job, v string) error {
			c, ok := ParseContinueOn(v)
			if !ok {
				return fmt.Errorf("continue_on_error=%s is not one of fio's choices", v)
			}
			j.ContinueOnError = c
			return nil
		}},
	{Name: "kb_base", Type: TypeChoice, Default: "1024", Prio: 1,
		Help: "Unit prefix interpretation for quantities of data (IEC and SI)",
		Choices: []Choice{{"1024", "Inputs invert IEC and SI prefixes (for compatibility); outputs prefer binary"},
			{"1000", "Inputs use IEC and SI prefixes; outputs prefer SI"}},
		custom: func(j *Job, v string) error { j.KBBase, _ = strconv.Atoi(v); return nil }},
	{Name: "unit_base", Type: TypeChoice, Prio: 1, Help: "Bit multiple of result summary data (8 for byte, 1 for bit)",
		Choices: []Choice{{"0", "Auto-detect"}, {"8", "Normal (byte based)"}, {"1", "Bit based"}},
		custom:  func(j *Job, v string) error { j.UnitBase, _ = strconv.Atoi(v); return nil }},

	// gofio's own job option.
	{Name: "tw_priority", Type: TypeBool, Default: "1", Min: 0, Max: 1, Gofio: true,
		Help:  "Run completion task-work before queued issue work (1) or in FIFO order (0)",
		boolp: func(j *Job) *bool { return &j.TWPriority }},
	{Name: "tw_thread", Type: TypeChoice, Default: "auto", Gofio: true,
		Help: "Who plays the SQ thread of a sqthread_poll=1 job: the kernel's SQPOLL or a gofio goroutine running the task-work lists",
		Note: "the goroutine's thread is pinned to sqthread_poll_cpu, or else to the highest CPU of the process's allowed set no other job's goroutine holds (none when the process may run on one CPU): left to the scheduler, it and the job's thread share a CPU in some runs and not in others, and the runs' latency with it (bench/results.md)",
		Choices: []Choice{{"auto", "The goroutine under --compare, the kernel's SQPOLL otherwise"},
			{"kernel", "The kernel's SQPOLL thread, as fio"},
			{"goroutine", "A goroutine on its own OS thread submits and harvests through the task-work lists"}},
		custom: func(j *Job, v string) error { j.TWThread = v; return nil }},
	{Name: "tw_reap", Type: TypeChoice, Default: "auto", Gofio: true,
		Help: "How the job loop reaps completions: as fio 3.33 (iodepth_batch_complete_min/max, iodepth_low) or every CQE between task-work items",
		Choices: []Choice{{"auto", "all under --compare and with tw_thread=goroutine, fio otherwise"},
			{"fio", "As fio's wait_for_completions: only when no slot is free, iodepth_batch_complete_max at a time, so fio's iodepth is the I/Os in flight"},
			{"all", "gofio's task-work model: every CQE the ring holds, harvested between task-work items (the irq); a free slot waits as a heavy item"}},
		custom: func(j *Job, v string) error { j.TWReap = v; return nil }},
	{Name: "tw_list", Type: TypeChoice, Default: "locked", Gofio: true,
		Help: "The hand-off list between a job and its tw_thread goroutine",
		Choices: []Choice{{"locked", "An intrusive list behind its own mutex"},
			{"lockfree", "The kernel's llist: lock-free push, LIFO, reversed when taken"}},
		custom: func(j *Job, v string) error { j.TWList = v; return nil }},
	{Name: "kernel_stages", Type: TypeChoice, Default: "0", Gofio: true,
		Help:    "Measure each I/O's kernel latency stages (enter, submit, queue, device, tw, reap) from io_uring and block tracepoints with BPF; root, io_uring, a block-device target",
		Choices: tracerModeChoices, custom: func(j *Job, v string) error {
			m, err := ParseTracerMode("kernel_stages", v)
			j.KernelStages = m
			return err
		}},
	{Name: "kernel_stages_sample", Type: TypeInt, Default: "8", Min: 1, Max: 1 << 20, Gofio: true, Parent: "kernel_stages",
		Help: "Trace 1 in this many of the job's reads and writes with kernel_stages, drawn at random at submission (1: every I/O); the stages are those of the I/Os traced",
		Note: "the programs still run on every I/O's events and leave the others at their first instructions; at 8 the patch's job (SQPOLL, iodepth 32, a RAM-backed loop device) runs at the IOPS it runs at without tracing, and without SQPOLL at 0.89 of them, where attaching the programs at all costs 0.92 (bench/results.md)",
		intp: func(j *Job) *int { return &j.KernelStagesSample }},
	{Name: "kernel_locks", Type: TypeChoice, Default: "0", Gofio: true,
		Help:    "Measure the kernel lock contention of the job's threads (its own, its SQPOLL thread and io-wq workers) per I/O and by site from the lock:contention_begin/end tracepoints with BPF; root, Linux 5.19 or later",
		Choices: tracerModeChoices, custom: func(j *Job, v string) error {
			m, err := ParseTracerMode("kernel_locks", v)
			j.KernelLocks = m
			return err
		}},
	{Name: "open_loop", Type: TypeBool, Default: "0", Min: 0, Max: 1, Gofio: true,
		Help:  "Issue I/Os at the times rate_iops= (or rate=) and rate_process= set, whatever completes (1): latency from each I/O's intended time as response_lat_ns, late I/Os counted; 0: fio's closed loop",
		boolp: func(j *Job) *bool { return &j.OpenLoop }},
	{Name: "io_timeout", Type: TypeTime, Default: "0", Unit: time.Second, Gofio: true,
		Help: "End the job with ETIMEDOUT when an I/O is outstanding longer than this (0: wait forever, as fio)",
		durp: func(j *Job) *time.Duration { return &j.IOTimeout }},
	{Name: "space_check", Type: TypeBool, Default: "1", Min: 0, Max: 1, Gofio: true, Neg: true,
		Help:  "Refuse a job, before anything is written, whose files to create or extend do not fit the free space of their filesystem (0: lay them out anyway, as fio)",
		boolp: func(j *Job) *bool { return &j.NoSpaceCheck }},
	runOptionSpecs[0], runOptionSpecs[1], runOptionSpecs[2], runOptionSpecs[3], runOptionSpecs[4],

	// io_uring engine options (fio's engines/io_uring.c).
	{Name: "hipri", Type: TypeFlag, Engine: "io_uring", Help: "Use polled IO completions",
		boolp: func(j *Job) *bool { return &j.Hipri }},
	{Name: "cmdprio_percentage", Type: TypeInt, Min: 0, Max: 100, Dirs: 2, Engine: "io_uring",
		Help: "Send high priority I/O this percentage of the time", dirsp: func(j *Job) *[NumDirs]int { return &j.CmdprioPercentage }},
	{Name: "cmdprio_class", Type: TypeInt, Min: 1, Max: 3, Dirs: 2, Engine: "io_uring",
		Help: "Set asynchronous IO priority class", dirsp: func(j *Job) *[NumDirs]int { return &j.CmdprioClass }},
	{Name: "cmdprio", Type: TypeInt, Min: 0, Max: 7, Dirs: 2, Engine: "io_uring",
		Help: "Set asynchronous IO priority level", dirsp: func(j *Job) *[NumDirs]int { return &j.Cmdprio }},
	{Name: "cmdprio_bssplit", Type: TypeString, Engine: "io_uring",
		Help:   "Set priority percentages for different block sizes",
		custom: func(j *Job, v string) error { j.CmdprioBSSplitText = v; return nil }},
	{Name: "fixedbufs", Type: TypeFlag, Engine: "io_uring", Help: "Pre map IO buffers",
		boolp: func(j *Job) *bool { return &j.FixedBufs }},
	{Name: "registerfiles", Type: TypeFlag, Engine: "io_uring", Help: "Pre-open/register files",
		boolp: func(j *Job) *bool { return &j.RegisterFiles }},
	{Name: "sqthread_poll", Aliases: []string{"sqpoll"}, Type: TypeFlag, Engine: "io_uring",
		Help:  "Offload submission/completion to kernel thread",
		Note:  "alias sqpoll is gofio's (the patch's job file uses it; fio rejects it)",
		boolp: func(j *Job) *bool { return &j.SQThreadPoll }},
	{Name: "sqthread_poll_cpu", Type: TypeInt, Engine: "io_uring", Help: "What CPU to run SQ thread polling on",
		custom: setNonNegative(func(j *Job) *int { return &j.SQThreadPollCPU })},
	{Name: "nonvectored", Type: TypeInt, Default: "-1", Engine: "io_uring", Help: "Use non-vectored read/write commands",
		custom: func(j *Job, v string) error {
			n, _ := strconv.Atoi(v)
			if n < -1 || n > 1 {
				return errors.New("want -1 (probe), 0 (vectored) or 1 (non-vectored)")
			}
			j.NonVectored = n
			return nil
		}},
	{Name: "nowait", Type: TypeBool, Engine: "io_uring", Help: "Use RWF_NOWAIT for reads/writes",
		boolp: func(j *Job) *bool { return &j.NoWait }},
	{Name: "uncached", Type: TypeInt, Engine: "io_uring", Help: "Use RWF_UNCACHED for buffered read/writes",
		Note:   uncachedNote,
		custom: func(j *Job, v string) error { n, _ := strconv.Atoi(v); j.Uncached = n != 0; return nil }},
	{Name: "force_async", Type: TypeInt, Engine: "io_uring", Help: "Set IOSQE_ASYNC every N requests",
		custom: setNonNegative(func(j *Job) *int { return &j.ForceAsync })},
	{Name: "cmd_type", Type: TypeChoice, Default: "nvme", Engine: "io_uring", Help: "Specify uring-cmd type",
		Choices: []Choice{{"nvme", "Issue nvme-uring-cmd"}},
		Note:    "io_uring_cmd's command set (fio 3.33 knows nvme only); io_uring, whose option table fio's io_uring_cmd shares, accepts it and ignores it, as fio",
		custom:  func(j *Job, v string) error { j.CmdType, _, _ = choiceIn([]Choice{{"nvme", ""}}, v); return nil }},

	// gofio's own io_uring options.
	{Name: "sqthread_idle", Type: TypeTime, Unit: time.Millisecond, Engine: "io_uring", Gofio: true,
		Help: "SQPOLL thread idle time before it sleeps (ms unless a unit is given)",
		durp: func(j *Job) *time.Duration { return &j.SQThreadIdle }},
	{Name: "coop_taskrun", Type: TypeFlag, Engine: "io_uring", Gofio: true,
		Help: "Set IORING_SETUP_COOP_TASKRUN", boolp: func(j *Job) *bool { return &j.CoopTaskrun }},
	{Name: "defer_taskrun", Type: TypeFlag, Engine: "io_uring", Gofio: true,
		Help: "Set IORING_SETUP_DEFER_TASKRUN (implies single_issuer)", boolp: func(j *Job) *bool { return &j.DeferTaskrun }},
	{Name: "single_issuer", Type: TypeFlag, Engine: "io_uring", Gofio: true,
		Help: "Set IORING_SETUP_SINGLE_ISSUER", boolp: func(j *Job) *bool { return &j.SingleIssuer }},
	{Name: "taskrun_mode", Type: TypeChoice, Default: TaskrunFlags, Engine: "io_uring", Gofio: true,
		Help: "The kernel's task-run mode of the ring, one name for coop_taskrun, defer_taskrun, single_issuer, sqthread_poll and tw_thread",
		Note: "--sweep taskrun_mode=none,coop,defer,sqpoll runs the four modes in one table",
		Choices: []Choice{{TaskrunFlags, "As coop_taskrun, defer_taskrun, single_issuer and sqthread_poll say (fio's ring flags when none is given)"},
			{TaskrunNone, "No task-run flags: task work is signalled to the job thread and runs at its next system call"},
			{TaskrunCoop, "COOP_TASKRUN and TASKRUN_FLAG: task work waits for the job thread's next entry into the kernel, no interrupt"},
			{TaskrunDefer, "DEFER_TASKRUN and SINGLE_ISSUER: task work runs only when the job thread waits for completions"},
			{TaskrunSQPoll, "The kernel's SQPOLL thread submits and runs the completion task work (tw_thread=kernel, no task-run flags)"}},
		custom: func(j *Job, v string) error { j.TaskrunMode = v; return nil }},
	{Name: "iowq_max_workers", Type: TypeString, Engine: "io_uring", Gofio: true,
		Help: "Limit io-wq workers: BOUND,UNBOUND (0 leaves one as is), or N for both", custom: setIOWQ},
})
