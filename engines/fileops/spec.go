package fileops

import (
	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// Options are filestat's and dirstat's own options.
type Options struct {
	StatType string // stat_type: stat, lstat or statx
}

func newOptions() any { return &Options{StatType: "stat"} }

// statTypeOption is stat_type, for filestat and dirstat alike.
func statTypeOption() jobfile.OptionSpec {
	return jobfile.OptionSpec{Name: "stat_type", Type: jobfile.TypeChoice, Default: "stat",
		Help:    "Specify stat system call type to measure lookup/getattr performance",
		Choices: []jobfile.Choice{{Value: "stat", Help: "Use stat(2)"}, {Value: "lstat", Help: "Use lstat(2)"}, {Value: "statx", Help: "Use statx(2) if exists"}},
	}.WithSet(func(j *jobfile.Job, v string) error { j.EngineConfig().(*Options).StatType = v; return nil })
}

// Spec is kind k's ioengine: its name, fio's help, its capabilities, its
// options and its opener.
func Spec(k Kind) engines.Spec {
	var info jobfile.EngineInfo
	switch k {
	case FileCreate:
		info = jobfile.EngineInfo{Name: "filecreate", Help: "File creation engine", Diskless: true, SizedByFile: true,
			Alters: "creates its files"}
	case FileStat:
		info = jobfile.EngineInfo{Name: "filestat", Help: "File stat engine",
			NewOptions: newOptions, Options: []jobfile.OptionSpec{statTypeOption()}}
	case FileDelete:
		info = jobfile.EngineInfo{Name: "filedelete", Help: "File delete engine", Alters: "removes its files"}
	case DirCreate:
		info = jobfile.EngineInfo{Name: "dircreate", Help: "Directory creation engine (fio 3.37+)", Diskless: true, SizedByFile: true,
			Alters: "creates directories"}
	case DirStat:
		info = jobfile.EngineInfo{Name: "dirstat", Help: "Directory stat engine (fio 3.37+)", Diskless: true, SizedByFile: true,
			NewOptions: newOptions, Options: []jobfile.OptionSpec{statTypeOption()}}
	case DirDelete:
		info = jobfile.EngineInfo{Name: "dirdelete", Help: "Directory delete engine (fio 3.37+)", Diskless: true, SizedByFile: true,
			Alters: "removes directories"}
	}
	return engines.Spec{EngineInfo: info, Open: Opener(k)}
}
