package iouring

import (
	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// MaxDepth is the largest iodepth the io_uring engine accepts: the
// kernel's IORING_MAX_ENTRIES.
const MaxDepth = 32768

// Spec is the io_uring ioengine: fio's help, its capabilities and its
// opener. Its options are Job fields in jobfile's option table: the run
// core, the SQPOLL stand-in (twthread) and the kernel stage tracer read
// them too.
var Spec = engines.Spec{Open: Open, EngineInfo: jobfile.EngineInfo{Name: "io_uring", Help: "Fast Linux native aio",
	Commit: true, TrimAtQueue: true, Cmdprio: true, SQPoll: true, Traced: true, RingFallback: true,
	MaxDepth: MaxDepth, HipriNeedsDirect: true}}
