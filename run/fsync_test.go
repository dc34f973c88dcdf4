package run

import (
	"fmt"
	"testing"
)

// TestFsyncCountNull checks the syncs of fsync=8 on the null engine, where
// fio's count does not depend on timing. At iodepth=1 fio issues one sync
// per 8 writes: 127 for 1024 writes, none after the last, where the job
// ends. At iodepth 4 and 8 it issues two: the first sync is committed,
// the next get_io_u finds no sync completed yet (td->last_was_sync is set
// at completion) and chooses another, which the null engine refuses as
// busy while the first is unreaped; fio requeues it, reaps the first and
// then issues the requeued one as it was, 254 in all. These are the
// figures of `fio --name=x --ioengine=null --rw=write --fsync=8
// --iodepth=D --size=4m`.
func TestFsyncCountNull(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ depth, syncs int }{{1, 127}, {4, 254}, {8, 254}} {
		t.Run(fmt.Sprintf("iodepth=%d", c.depth), func(t *testing.T) {
			jobs := parseJobs(t, dir, fmt.Sprintf("[x]\nioengine=null\nrw=write\nfsync=8\niodepth=%d\nsize=4m\n", c.depth))
			r := mustRun(t, jobs, Options{}).Jobs[0]
			if r.SyncIOs != uint64(c.syncs) || r.Dirs[1].TotalIOs != 1024 {
				t.Errorf("syncs %d, writes %d; fio issues %d syncs and 1024 writes", r.SyncIOs, r.Dirs[1].TotalIOs, c.syncs)
			}
		})
	}
}
