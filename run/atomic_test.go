package run

import (
	"fmt"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/psync"
	"github.com/gofio/gofio/internal/target"
	"github.com/gofio/gofio/jobfile"
)

// TestAtomicOpenFlags checks atomic=1 as fio 3.33 runs it on Linux: the
// job is direct=1 and its files open with O_DIRECT and fio's O_ATOMIC bit,
// except a trimming job's, which fio opens with neither; the job's I/O
// then runs direct.
func TestAtomicOpenFlags(t *testing.T) {
	dir := t.TempDir()
	jobs := parseJobs(t, dir, fmt.Sprintf("[a]\nioengine=psync\nrw=randwrite\nbs=4k\nsize=64k\nfilename=%s/f\natomic=1\n", dir))
	j := jobs[0]
	if !j.Direct {
		t.Fatal("atomic=1 did not set direct=1")
	}
	tg := &target.Target{Exists: true}
	if flags, direct := target.OpenFlags(j, tg, j.RW); !direct || flags&(unix.O_DIRECT|target.OAtomic) != unix.O_DIRECT|target.OAtomic {
		t.Errorf("write job: flags %#o (direct %v), want O_DIRECT|%#o", flags, direct, target.OAtomic)
	}
	if flags, _ := target.OpenFlags(j, tg, jobfile.RW("trimwrite")); flags&(unix.O_DIRECT|target.OAtomic) != 0 {
		t.Errorf("trimwrite job: flags %#o, want neither O_DIRECT nor %#o", flags, target.OAtomic)
	}
	if flags, _ := target.OpenFlags(jobs[0], tg, jobfile.RW("read")); flags&target.OAtomic == 0 {
		t.Errorf("read job: flags %#o lack %#o", flags, target.OAtomic)
	}
	var direct bool
	open := func(s engines.Setup) (engines.Engine, error) {
		fl, err := unix.FcntlInt(uintptr(s.Files[0]), unix.F_GETFL, 0)
		direct = err == nil && fl&unix.O_DIRECT != 0
		return psync.Open(s)
	}
	res := mustRun(t, jobs, Options{Engines: map[string]engines.Opener{"psync": open}}).Jobs[0]
	if !direct || res.Dirs[jobfile.DirWrite].TotalIOs != 16 {
		t.Errorf("the job's file open with O_DIRECT: %v; %d writes, want 16", direct, res.Dirs[jobfile.DirWrite].TotalIOs)
	}
}
