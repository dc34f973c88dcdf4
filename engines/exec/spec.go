package exec

import (
	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// Options are the exec engine's own options.
type Options struct {
	Program     string
	Arguments   string
	GraceTime   int  // seconds between SIGTERM and SIGKILL
	StdRedirect bool // send stdout/stderr to JOBNAME.stdout/.stderr
}

// NewOptions returns exec's options with fio's defaults.
func NewOptions() *Options { return &Options{GraceTime: 1, StdRedirect: true} }

// optionsOf returns job j's exec options.
func optionsOf(j *jobfile.Job) *Options { return engines.OptionsOf(j, NewOptions) }

// Spec is the exec ioengine: fio's help, its capabilities, its options and
// its opener.
var Spec = engines.Spec{Open: Open, EngineInfo: jobfile.EngineInfo{Name: "exec", Help: "Execute a program",
	Diskless: true, NoIO: true, SizedByFile: true,
	NewOptions: func() any { return NewOptions() },
	Options: []jobfile.OptionSpec{
		jobfile.OptionSpec{Name: "program", Type: jobfile.TypeString, Help: "Program to execute"}.
			WithSet(func(j *jobfile.Job, v string) error { optionsOf(j).Program = v; return nil }),
		jobfile.OptionSpec{Name: "arguments", Type: jobfile.TypeString, Help: "Arguments to pass",
			Note: "%r is replaced by the job's runtime in seconds, %n by its name"}.
			WithSet(func(j *jobfile.Job, v string) error { optionsOf(j).Arguments = v; return nil }),
		jobfile.OptionSpec{Name: "grace_time", Type: jobfile.TypeInt, Default: "1", Help: "Grace time before sending a SIGKILL"}.
			WithInt(func(j *jobfile.Job) *int { return &optionsOf(j).GraceTime }),
		jobfile.OptionSpec{Name: "std_redirect", Type: jobfile.TypeBool, Default: "1", Help: "Redirect stdout & stderr to files"}.
			WithBool(func(j *jobfile.Job) *bool { return &optionsOf(j).StdRedirect }),
	}}}
