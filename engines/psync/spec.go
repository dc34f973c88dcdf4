package psync

import (
	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// Options are pvsync2's own options.
type Options struct {
	HipriPercentage int // hipri_percentage: share of I/Os with RWF_HIPRI (default 100)
}

func newOptions() any { return &Options{HipriPercentage: 100} }

// optionsOf returns job j's pvsync2 options (their defaults on another
// variant).
func optionsOf(j *jobfile.Job) *Options {
	return engines.OptionsOf(j, func() *Options { return newOptions().(*Options) })
}

// Spec is variant v's ioengine: its name, fio's help, its options and its
// opener.
func Spec(v Variant) engines.Spec {
	var info jobfile.EngineInfo
	switch v {
	case PSync:
		info = jobfile.EngineInfo{Name: "psync", Help: "Use pread/pwrite"}
	case Sync:
		info = jobfile.EngineInfo{Name: "sync", Help: "Use read/write"}
	case VSync:
		info = jobfile.EngineInfo{Name: "vsync", Help: "Use readv/writev"}
	case PVSync:
		info = jobfile.EngineInfo{Name: "pvsync", Help: "Use preadv/pwritev"}
	case PVSync2:
		info = jobfile.EngineInfo{Name: "pvsync2", Help: "Use preadv2/pwritev2", NewOptions: newOptions, Options: []jobfile.OptionSpec{
			jobfile.HipriOption("Set RWF_HIPRI for pwritev2/preadv2"),
			jobfile.OptionSpec{Name: "hipri_percentage", Type: jobfile.TypeInt, Default: "100", Min: 0, Max: 100,
				Help: "Probabilistically set RWF_HIPRI for pwritev2/preadv2"}.WithInt(func(j *jobfile.Job) *int { return &optionsOf(j).HipriPercentage }),
			jobfile.UncachedOption("Use RWF_UNCACHED for buffered read/writes"),
			jobfile.NoWaitOption("Set RWF_NOWAIT for pwritev2/preadv2"),
		}}
	case Falloc:
		info = jobfile.EngineInfo{Name: "falloc", Help: "fallocate() file based engine", OpensRW: true,
			Alters: "opens its files read-write, creating a missing one, and a read allocates blocks (fallocate with FALLOC_FL_KEEP_SIZE)"}
	case Ftruncate:
		info = jobfile.EngineInfo{Name: "ftruncate", Help: "ftruncate() file based engine"}
	}
	return engines.Spec{EngineInfo: info, Open: Opener(v)}
}
