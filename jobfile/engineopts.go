package jobfile

import "strconv"

// CmdprioOptions returns the cmdprio options fio's engines/cmdprio.h gives
// io_uring and libaio, for an engine to register; their values are Job
// fields (iogen reads them).
func CmdprioOptions() []OptionSpec {
	return []OptionSpec{
		{Name: "cmdprio_percentage", Type: TypeInt, Min: 0, Max: 100, Dirs: 2,
			Help: "Send high priority I/O this percentage of the time", dirsp: func(j *Job) *[NumDirs]int { return &j.CmdprioPercentage }},
		{Name: "cmdprio_class", Type: TypeInt, Min: 1, Max: 3, Dirs: 2,
			Help: "Set asynchronous IO priority class", dirsp: func(j *Job) *[NumDirs]int { return &j.CmdprioClass }},
		{Name: "cmdprio", Type: TypeInt, Min: 0, Max: 7, Dirs: 2,
			Help: "Set asynchronous IO priority level", dirsp: func(j *Job) *[NumDirs]int { return &j.Cmdprio }},
		{Name: "cmdprio_bssplit", Type: TypeString,
			Help:   "Set priority percentages for different block sizes",
			custom: func(j *Job, v string) error { j.CmdprioBSSplitText = v; return nil }},
	}
}

// NoWaitOption is the nowait option of an engine other than io_uring
// (libaio, pvsync2), with that engine's help; its value is Job.NoWait.
func NoWaitOption(help string) OptionSpec {
	return OptionSpec{Name: "nowait", Type: TypeBool, Help: help, boolp: func(j *Job) *bool { return &j.NoWait }}
}

// HipriOption is the hipri flag of an engine other than io_uring
// (pvsync2), with that engine's help; its value is Job.Hipri.
func HipriOption(help string) OptionSpec {
	return OptionSpec{Name: "hipri", Type: TypeFlag, Help: help, boolp: func(j *Job) *bool { return &j.Hipri }}
}

// uncachedNote is what gofio sends for uncached (io_uring's and
// pvsync2's), and what kernels take.
const uncachedNote = "sent as RWF_DONTCACHE (0x80, Linux 6.14+), as fio 3.40 and later send it (their help: " +
	"Use RWF_DONTCACHE for buffered read/writes; fio 3.38 and 3.39 ignore the option); fio 3.33 sends 0x40, which Linux 6.11+ " +
	"reads as RWF_ATOMIC and refuses (EOPNOTSUPP). Linux 6.18 reads and writes ext4 files uncached and fails the I/O " +
	"with EOPNOTSUPP on tmpfs and block devices, as with fio 3.42; direct=1 leaves it out"

// UncachedOption is the uncached option of an engine other than io_uring
// (pvsync2), with that engine's help; its value is Job.Uncached.
func UncachedOption(help string) OptionSpec {
	return OptionSpec{Name: "uncached", Type: TypeInt, Help: help, Note: uncachedNote,
		custom: func(j *Job, v string) error { n, _ := strconv.Atoi(v); j.Uncached = n != 0; return nil }}
}

// ExitOnIODoneOption is cpuio's exit_on_io_done; its value is
// Job.ExitOnIODone, which the run core acts on.
func ExitOnIODoneOption() OptionSpec {
	return OptionSpec{Name: "exit_on_io_done", Type: TypeBool, Default: "0", Help: "Exit when IO threads finish",
		boolp: func(j *Job) *bool { return &j.ExitOnIODone }}
}

// WithBool returns o storing its flag or boolean through field: an engine's
// own option, field a member of the engine's EngineConfig.
func (o OptionSpec) WithBool(field func(*Job) *bool) OptionSpec { o.boolp = field; return o }

// WithInt returns o storing its integer through field.
func (o OptionSpec) WithInt(field func(*Job) *int) OptionSpec { o.intp = field; return o }

// WithSet returns o storing its value with set, which may refuse it; the
// error is reported at the option's file and line.
func (o OptionSpec) WithSet(set func(j *Job, v string) error) OptionSpec { o.custom = set; return o }

// AllOptions returns every job and engine option spec: the option table's
// first, then the registered engines' in engine table order (a name
// several engines share comes once per engine).
func AllOptions() []*OptionSpec { return allOptions() }

// allOptions returns every job and engine option spec, the option table's
// first, then the registered engines' in engine table order.
func allOptions() []*OptionSpec {
	out := make([]*OptionSpec, 0, len(optionTable)+32)
	for i := range optionTable {
		out = append(out, &optionTable[i])
	}
	for _, e := range engineTable {
		for i := range e.Options {
			out = append(out, &e.Options[i])
		}
	}
	return out
}
