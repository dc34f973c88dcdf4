package null

import (
	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// Spec is the null ioengine: fio's help, its capabilities and its opener.
var Spec = engines.Spec{Open: Open, EngineInfo: jobfile.EngineInfo{Name: "null", Help: "Testing engine (no data transfer)",
	Commit: true, GetEventsAll: true, Diskless: true}}
