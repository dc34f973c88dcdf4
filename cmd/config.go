package cmd

import (
	"time"

	"github.com/gofio/gofio/compare"
	"github.com/gofio/gofio/internal/fingerprint"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// allowDiff is what a diff of this command accepts.
func (cfg *Config) allowDiff() compare.Allow {
	return compare.Allow{Jobs: cfg.AllowDifferentJobs, Runner: cfg.AllowRunner}
}

// Config is the one parsed form of a gofio command line: gofio's own flags
// (flagTable) and the job options and files splitArgv set apart. cli.go
// fills it; act and execute read only it.
type Config struct {
	Help, Version bool
	Verbose       bool    // --verbose: with --version, the long form
	CmdHelp       *string // --cmdhelp[=OPT]; nil when not given
	EngHelp       *string // --enghelp[=ENGINE[,OPT]]; nil when not given

	JobFiles   []string // job files in order ("-" is stdin)
	JobOptions []string // fio job options from the command line, canonical --name[=value]

	OutputFormats []string // --output-format: names from outputFormats
	// OutputFormatSet is --output-format given: a --compare or --sweep
	// run without it writes the table alone (defaultComparisonFormat).
	OutputFormatSet bool
	Output          string // --output=FILE; "" means stdout
	ParseOnly       bool
	// MergeBlktraceOnly is --merge-blktrace-only: write each job's
	// merge_blktrace_file and run no I/O.
	MergeBlktraceOnly bool
	ShowCmd           bool
	Sections          []string
	Eta               string   // auto, always, never
	Sets              []string // --set KEY=VALUE, in order

	// Compare and sweep.
	Compare    *string // --compare[=KEY=A,B]; nil when not given
	Repeat     int
	RepeatSet  bool     // --repeat was given (it overrides repeat= in a job file)
	GateMetric string   // --gate-metric: report.GateAvg, GateP99, GateIOPS or a stage (report.StageGateMetric)
	KernelRef  bool     // --kernel-ref: the kernel's SQPOLL reference of a comparison of the model
	Sweeps     []string // --sweep KEY=LIST, in order
	// Spec is the comparison --compare and --sweep (or the job file's
	// compare= and sweep=) ask for, parsed once by applyRunOptions.
	Spec         compare.Spec
	CompareCSV   string
	JSONDir      string
	Plot         string
	FailIfSlower float64 // percent; <0 when unset
	// Capacity is --slo, --capacity-plot and --fail-if-capacity-below
	// (capacity.go).
	Capacity capacityFlags
	Drift    float64 // --drift: between-run drift allowance of a baseline diff, percent; <0 when unset
	// Budget is --budget: the time the rounds of a gated --compare may
	// take, all rows together.
	Budget time.Duration
	// RunOptionsAt are the job-file options compare=, sweep= and
	// fail_if_slower= that the run took (applyRunOptions), by name: the
	// errors they cause later name their file and line.
	RunOptionsAt map[string]jobfile.Option

	// CI: baselines, diff and reports.
	Diff               bool   // gofio diff OLD.json NEW.json (JobFiles holds the two)
	Baseline           string // --baseline OLD.json
	History            string // --history DIR: judge the run against the saved runs in DIR
	AllowDifferentJobs bool   // --allow-different-jobs
	// AllowRunner lists the runner fingerprint's fields a diff may find
	// changed (--allow-runner-change).
	AllowRunner fingerprint.Allowed
	JUnit       string // --junit FILE
	// The CI benchmark files: --benchfmt (Go benchmark format, for
	// benchstat), --github-benchmark (github-action-benchmark's
	// customSmallerIsBetter JSON) and --bencher (Bencher's BMF JSON).
	Benchfmt, GitHubBenchmark, Bencher string

	// fio's flags (fioflags.go).
	TerseVersion   int                // --terse-version: 2, 3, 4 or 5
	ReadOnly       bool               // --readonly: refuse writing and trimming jobs, lay nothing out
	EtaNewline     time.Duration      // --eta-newline; 0 = off
	StatusInterval time.Duration      // --status-interval; 0 = off
	BandwidthLog   bool               // --bandwidth-log: agg-*_bw.log
	WarningsFatal  bool               // --warnings-fatal
	Debug          []string           // --debug categories
	AuxPath        string             // --aux-path
	FioRelease     report.Release     // --fio-release: fio 3.33's output ("") or 3.42's
	IOTimeout      time.Duration      // --io-timeout; 0 = off (hung.go in run)
	KernelStages   jobfile.TracerMode // --kernel-stages: 0 (not given), 1 or required
	KernelLocks    jobfile.TracerMode // --kernel-locks: 0 (not given), 1 or required
	// KernelTraceCost is --kernel-trace-cost: the kernel tracers measure
	// their programs' run time.
	KernelTraceCost bool

	// Fleet runs and fallbacks.
	StartAt        time.Time // --start-at; zero when not given
	StartLate      bool      // --start-at-late=run
	RunID          string    // --run-id, or a random one
	Hostname       string    // --hostname: the host name results carry; "" is uname -n
	FallbackEngine string    // --fallback-engine; "" when not given
}
