package cpuio

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// Options are cpuio's own options (exit_on_io_done, which the run core
// acts on, is Job.ExitOnIODone).
type Options struct {
	CPULoad   int    // percent of a CPU to burn
	CPUChunks int    // length of one burn cycle, µs
	CPUMode   string // noop or qsort
}

// NewOptions returns cpuio's options with fio's defaults.
func NewOptions() *Options { return &Options{CPUChunks: 50000, CPUMode: "noop"} }

// optionsOf returns job j's cpuio options.
func optionsOf(j *jobfile.Job) *Options { return engines.OptionsOf(j, NewOptions) }

// Spec is the cpuio ioengine: fio's help, its capabilities, its options,
// its checks and its opener.
var Spec = engines.Spec{Open: Open, EngineInfo: jobfile.EngineInfo{Name: "cpuio", Help: "CPU cycle burner engine",
	Diskless: true, NoIO: true, SizedByFile: true,
	NewOptions: func() any { return NewOptions() },
	Validate: func(j *jobfile.Job) (string, string) {
		if optionsOf(j).CPULoad == 0 {
			return "ioengine=cpuio", "cpuio needs cpuload= (the percentage of a CPU to burn), as fio's \"cpu thread needs rate\""
		}
		return "", ""
	},
	Options: []jobfile.OptionSpec{
		jobfile.OptionSpec{Name: "cpuload", Type: jobfile.TypeInt, Help: "Use this percentage of CPU"}.WithSet(setCPULoad),
		jobfile.OptionSpec{Name: "cpuchunks", Type: jobfile.TypeInt, Default: "50000", Parent: "cpuload",
			Help: "Length of the CPU burn cycles (usecs)"}.WithInt(func(j *jobfile.Job) *int { return &optionsOf(j).CPUChunks }),
		jobfile.OptionSpec{Name: "cpumode", Type: jobfile.TypeChoice, Default: "noop", Help: "Stress mode",
			Choices: []jobfile.Choice{{Value: "noop", Help: "NOOP instructions"}, {Value: "qsort", Help: "QSORT computation"}},
		}.WithSet(func(j *jobfile.Job, v string) error { optionsOf(j).CPUMode = v; return nil }),
		jobfile.ExitOnIODoneOption(),
	}}}

// setCPULoad reads cpuload=PERCENT: fio's cpuio refuses 0 and values above
// 100 when the engine starts; gofio does it at parse time.
func setCPULoad(j *jobfile.Job, v string) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return fmt.Errorf("%q is not a number", v)
	}
	if n <= 0 || n > 100 {
		return errors.New("cpuload must be 1..100 (percent of one CPU)")
	}
	optionsOf(j).CPULoad = n
	return nil
}
