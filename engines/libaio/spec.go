package libaio

import (
	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// Options are libaio's own options.
type Options struct {
	UserspaceReap bool // userspace_reap: reap completions from the AIO ring in user space
	Vectored      bool // libaio_vectored: IOCB_CMD_PREADV/PWRITEV of one iovec
}

// Spec is the libaio ioengine: fio's help, its capabilities, its options
// and its opener.
var Spec = engines.Spec{Open: Open, EngineInfo: jobfile.EngineInfo{Name: "libaio", Help: "Linux native asynchronous IO",
	SyncAtQueue: true, Commit: true, TrimAtQueue: true, Cmdprio: true,
	NewOptions: func() any { return &Options{} },
	Options: append(append([]jobfile.OptionSpec{
		jobfile.OptionSpec{Name: "userspace_reap", Type: jobfile.TypeFlag, Help: "Use alternative user-space reap implementation"}.
			WithBool(func(j *jobfile.Job) *bool { return &j.EngineConfig().(*Options).UserspaceReap }),
	}, jobfile.CmdprioOptions()...), jobfile.NoWaitOption("Set RWF_NOWAIT for reads/writes"),
		jobfile.OptionSpec{Name: "libaio_vectored", Type: jobfile.TypeBool, Since: "3.39",
			Help: "Use libaio {preadv,pwritev} instead of libaio {pread,pwrite}"}.
			WithBool(func(j *jobfile.Job) *bool { return &j.EngineConfig().(*Options).Vectored })),
}}
