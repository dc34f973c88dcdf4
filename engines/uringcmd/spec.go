package uringcmd

import (
	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// Spec is the io_uring_cmd ioengine: fio's help, its capabilities (it
// takes io_uring's fio options, as in fio) and its opener.
var Spec = engines.Spec{Open: Open, EngineInfo: jobfile.EngineInfo{Name: "io_uring_cmd", Help: "io_uring passthrough commands",
	NVMePassthrough: true, OptionsOf: "io_uring"}}
