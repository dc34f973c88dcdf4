// Package all registers every engine gofio runs, in --enghelp order: the
// one list of them. A program or test that parses job files imports it,
// for its effect (the run core does).
package all

import (
	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/cpuio"
	"github.com/gofio/gofio/engines/e4defrag"
	"github.com/gofio/gofio/engines/exec"
	"github.com/gofio/gofio/engines/fileops"
	"github.com/gofio/gofio/engines/iouring"
	"github.com/gofio/gofio/engines/libaio"
	"github.com/gofio/gofio/engines/mmap"
	"github.com/gofio/gofio/engines/net"
	"github.com/gofio/gofio/engines/null"
	"github.com/gofio/gofio/engines/psync"
	"github.com/gofio/gofio/engines/uringcmd"
)

func init() {
	engines.Register(
		iouring.Spec,
		libaio.Spec,
		psync.Spec(psync.Sync),
		psync.Spec(psync.PSync),
		psync.Spec(psync.VSync),
		psync.Spec(psync.PVSync),
		psync.Spec(psync.PVSync2),
		mmap.Spec,
		null.Spec,
		psync.Spec(psync.Falloc),
		psync.Spec(psync.Ftruncate),
		fileops.Spec(fileops.FileCreate),
		fileops.Spec(fileops.FileStat),
		fileops.Spec(fileops.FileDelete),
		fileops.Spec(fileops.DirCreate),
		fileops.Spec(fileops.DirStat),
		fileops.Spec(fileops.DirDelete),
		cpuio.Spec,
		exec.Spec,
		net.Spec,
		e4defrag.Spec,
		uringcmd.Spec,
	)
}
