package jobfile

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// EngineOpts holds the options of fio's engines other than io_uring. The
// options io_uring shares with them (hipri, nowait, cmdprio*) live in Job.
type EngineOpts struct {
	// libaio.
	UserspaceReap bool // userspace_reap: reap completions from the AIO ring in user space

	// pvsync2.
	HipriPercentage int  // hipri_percentage: share of I/Os with RWF_HIPRI (default 100)
	Uncached        bool // uncached: RWF_UNCACHED (RWF_DONTCACHE since Linux 6.14)

	// mmap.
	THP bool // thp: madvise(MADV_HUGEPAGE) the mapping

	// filestat.
	StatType string // stat, lstat or statx

	// cpuio.
	CPULoad      int    // percent of a CPU to burn
	CPUChunks    int    // length of one burn cycle, µs
	CPUMode      string // noop or qsort
	ExitOnIODone bool   // stop when the job's non-cpuio jobs are done

	// exec.
	Program     string
	Arguments   string
	GraceTime   int  // seconds between SIGTERM and SIGKILL
	StdRedirect bool // send stdout/stderr to JOBNAME.stdout/.stderr

	// net.
	Hostname   string
	Port       int
	Protocol   string // tcp, tcpv6, udp, udpv6, unix
	NoDelay    bool
	Listen     bool
	PingPong   bool
	Interface  string
	TTL        int
	WindowSize int
	MSS        int

	// e4defrag.
	DonorName string
	InPlace   bool
}

// engineDefaults sets the engine options' defaults in j.
func engineDefaults(j *Job) {
	j.HipriPercentage = 100
	j.StatType = "stat"
	j.CPUChunks = 50000
	j.CPUMode = "noop"
	j.GraceTime = 1
	j.StdRedirect = true
	j.Protocol = "tcp"
	j.TTL = 1
}

// cmdprioOptions returns the cmdprio options for engine: fio's
// engines/cmdprio.h, shared by io_uring and libaio.
func cmdprioOptions(engine string) []OptionSpec {
	return []OptionSpec{
		{Name: "cmdprio_percentage", Type: TypeInt, Min: 0, Max: 100, Dirs: 2, Engine: engine,
			Help: "Send high priority I/O this percentage of the time", dirsp: func(j *Job) *[NumDirs]int { return &j.CmdprioPercentage }},
		{Name: "cmdprio_class", Type: TypeInt, Min: 1, Max: 3, Dirs: 2, Engine: engine,
			Help: "Set asynchronous IO priority class", dirsp: func(j *Job) *[NumDirs]int { return &j.CmdprioClass }},
		{Name: "cmdprio", Type: TypeInt, Min: 0, Max: 7, Dirs: 2, Engine: engine,
			Help: "Set asynchronous IO priority level", dirsp: func(j *Job) *[NumDirs]int { return &j.Cmdprio }},
		{Name: "cmdprio_bssplit", Type: TypeString, Engine: engine,
			Help:   "Set priority percentages for different block sizes",
			custom: func(j *Job, v string) error { j.CmdprioBSSplitText = v; return nil }},
	}
}

// engineOptionTable holds the options of every engine but io_uring (whose
// options sit in the option table), grouped by engine in --enghelp order.
var engineOptionTable = concatOptions(
	[]OptionSpec{
		{Name: "userspace_reap", Type: TypeFlag, Engine: "libaio", Help: "Use alternative user-space reap implementation",
			boolp: func(j *Job) *bool { return &j.UserspaceReap }},
	},
	cmdprioOptions("libaio"),
	[]OptionSpec{
		{Name: "nowait", Type: TypeBool, Engine: "libaio", Help: "Set RWF_NOWAIT for reads/writes",
			boolp: func(j *Job) *bool { return &j.NoWait }},

		{Name: "hipri", Type: TypeFlag, Engine: "pvsync2", Help: "Set RWF_HIPRI for pwritev2/preadv2",
			boolp: func(j *Job) *bool { return &j.Hipri }},
		{Name: "hipri_percentage", Type: TypeInt, Default: "100", Min: 0, Max: 100, Engine: "pvsync2",
			Help: "Probabilistically set RWF_HIPRI for pwritev2/preadv2", intp: func(j *Job) *int { return &j.HipriPercentage }},
		{Name: "uncached", Type: TypeInt, Engine: "pvsync2", Help: "Use RWF_UNCACHED for buffered read/writes",
			Note:   "sent as RWF_DONTCACHE (0x80), the flag's name since Linux 6.14; older kernels fail the I/O with EOPNOTSUPP",
			custom: func(j *Job, v string) error { n, _ := strconv.Atoi(v); j.Uncached = n != 0; return nil }},
		{Name: "nowait", Type: TypeBool, Engine: "pvsync2", Help: "Set RWF_NOWAIT for pwritev2/preadv2",
			boolp: func(j *Job) *bool { return &j.NoWait }},

		{Name: "thp", Type: TypeInt, Engine: "mmap", Help: "Memory Advise Huge Page",
			custom: func(j *Job, v string) error { n, _ := strconv.Atoi(v); j.THP = n != 0; return nil }},

		{Name: "stat_type", Type: TypeChoice, Default: "stat", Engine: "filestat",
			Help:    "Specify stat system call type to measure lookup/getattr performance",
			Choices: []Choice{{"stat", "Use stat(2)"}, {"lstat", "Use lstat(2)"}, {"statx", "Use statx(2) if exists"}},
			custom:  func(j *Job, v string) error { j.StatType = v; return nil }},
		{Name: "stat_type", Type: TypeChoice, Default: "stat", Engine: "dirstat",
			Help:    "Specify stat system call type to measure lookup/getattr performance",
			Choices: []Choice{{"stat", "Use stat(2)"}, {"lstat", "Use lstat(2)"}, {"statx", "Use statx(2) if exists"}},
			custom:  func(j *Job, v string) error { j.StatType = v; return nil }},

		{Name: "cpuload", Type: TypeInt, Engine: "cpuio", Help: "Use this percentage of CPU",
			custom: func(j *Job, v string) error { return setCPULoad(j, v) }},
		{Name: "cpuchunks", Type: TypeInt, Default: "50000", Engine: "cpuio", Parent: "cpuload",
			Help: "Length of the CPU burn cycles (usecs)", intp: func(j *Job) *int { return &j.CPUChunks }},
		{Name: "cpumode", Type: TypeChoice, Default: "noop", Engine: "cpuio", Help: "Stress mode",
			Choices: []Choice{{"noop", "NOOP instructions"}, {"qsort", "QSORT computation"}},
			custom:  func(j *Job, v string) error { j.CPUMode = v; return nil }},
		{Name: "exit_on_io_done", Type: TypeBool, Default: "0", Engine: "cpuio", Help: "Exit when IO threads finish",
			boolp: func(j *Job) *bool { return &j.ExitOnIODone }},

		{Name: "program", Type: TypeString, Engine: "exec", Help: "Program to execute",
			custom: func(j *Job, v string) error { j.Program = v; return nil }},
		{Name: "arguments", Type: TypeString, Engine: "exec", Help: "Arguments to pass",
			Note:   "%r is replaced by the job's runtime in seconds, %n by its name",
			custom: func(j *Job, v string) error { j.Arguments = v; return nil }},
		{Name: "grace_time", Type: TypeInt, Default: "1", Engine: "exec", Help: "Grace time before sending a SIGKILL",
			intp: func(j *Job) *int { return &j.GraceTime }},
		{Name: "std_redirect", Type: TypeBool, Default: "1", Engine: "exec", Help: "Redirect stdout & stderr to files",
			boolp: func(j *Job) *bool { return &j.StdRedirect }},

		{Name: "hostname", Type: TypeString, Engine: "net", Help: "Hostname for net IO engine",
			custom: func(j *Job, v string) error { j.Hostname = v; return nil }},
		{Name: "port", Type: TypeInt, Min: 1, Max: 65535, Engine: "net", Help: "Port to use for TCP or UDP net connections",
			intp: func(j *Job) *int { return &j.Port }},
		{Name: "protocol", Aliases: []string{"proto"}, Type: TypeChoice, Default: "tcp", Engine: "net",
			Help: "Network protocol to use",
			Choices: []Choice{{"tcp", "Transmission Control Protocol"}, {"tcpv6", "Transmission Control Protocol V6"},
				{"udp", "User Datagram Protocol"}, {"udpv6", "User Datagram Protocol V6"}, {"unix", "UNIX domain socket"}},
			custom: func(j *Job, v string) error { j.Protocol = v; return nil }},
		{Name: "nodelay", Type: TypeBool, Engine: "net", Help: "Use TCP_NODELAY on TCP connections",
			boolp: func(j *Job) *bool { return &j.NoDelay }},
		{Name: "listen", Type: TypeFlag, Engine: "net", Help: "Listen for incoming TCP connections",
			boolp: func(j *Job) *bool { return &j.Listen }},
		{Name: "pingpong", Type: TypeFlag, Engine: "net", Help: "Ping-pong IO requests",
			boolp: func(j *Job) *bool { return &j.PingPong }},
		{Name: "interface", Type: TypeString, Engine: "net", Help: "Network interface to use",
			custom: func(j *Job, v string) error { j.Interface = v; return nil }},
		{Name: "ttl", Type: TypeInt, Default: "1", Engine: "net", Help: "Time-to-live value for outgoing UDP multicast packets",
			intp: func(j *Job) *int { return &j.TTL }},
		{Name: "window_size", Type: TypeInt, Engine: "net", Help: "Set socket buffer window size",
			intp: func(j *Job) *int { return &j.WindowSize }},
		{Name: "mss", Type: TypeInt, Engine: "net", Help: "Set TCP maximum segment size",
			intp: func(j *Job) *int { return &j.MSS }},

		{Name: "donorname", Type: TypeString, Engine: "e4defrag", Help: "File used as a block donor",
			custom: func(j *Job, v string) error { j.DonorName = v; return nil }},
		{Name: "inplace", Type: TypeInt, Min: 0, Max: 1, Engine: "e4defrag", Help: "Alloc and free space inside defrag event",
			custom: func(j *Job, v string) error { j.InPlace = v == "1"; return nil }},
	},
)

func concatOptions(parts ...[]OptionSpec) []OptionSpec {
	var out []OptionSpec
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// setCPULoad reads cpuload=PERCENT: fio's cpuio refuses 0 and values above
// 100 when the engine starts; gofio does it at parse time.
func setCPULoad(j *Job, v string) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return fmt.Errorf("%q is not a number", v)
	}
	if n <= 0 || n > 100 {
		return errors.New("cpuload must be 1..100 (percent of one CPU)")
	}
	j.CPULoad = n
	return nil
}

// allOptions returns every job and engine option spec, the option table's
// first.
func allOptions() []*OptionSpec {
	out := make([]*OptionSpec, 0, len(optionTable)+len(engineOptionTable))
	for i := range optionTable {
		out = append(out, &optionTable[i])
	}
	for i := range engineOptionTable {
		out = append(out, &engineOptionTable[i])
	}
	return out
}
