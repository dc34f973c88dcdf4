package run

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/gofio/gofio/engines"
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

// lateSyncEngine stands in for libaio (whose fio counterpart runs a sync
// in its queue hook) and completes each submitted read or write at once,
// but a sync only after lag more writes were submitted, as io_submit's
// fsync can outlast the writes that follow it on a loaded machine.
type lateSyncEngine struct {
	lag          int
	newSyncs     int // syncs queued since the last Submit
	queued, done []engines.Completion
	syncs        []lateSync
}

type lateSync struct {
	c     engines.Completion
	after int // writes still to be submitted before it completes
}

func (e *lateSyncEngine) Queue(slot uint32, r *engines.Request) error {
	if r.Op.IsSync() {
		e.syncs = append(e.syncs, lateSync{engines.Completion{Slot: slot}, e.lag})
		e.newSyncs++
		return nil
	}
	e.queued = append(e.queued, engines.Completion{Slot: slot, Res: int32(len(r.Buf))})
	return nil
}

func (e *lateSyncEngine) Submit() (int, error) {
	n := len(e.queued)
	accepted := n + e.newSyncs
	e.newSyncs = 0
	e.done = append(e.done, e.queued...)
	e.queued = e.queued[:0]
	for i := range e.syncs {
		e.syncs[i].after -= n
	}
	for len(e.syncs) > 0 && e.syncs[0].after <= 0 {
		e.done = append(e.done, e.syncs[0].c)
		e.syncs = e.syncs[1:]
	}
	return accepted, nil
}

func (e *lateSyncEngine) Reap(out []engines.Completion, min int) (int, error) {
	if len(e.done) == 0 && len(e.syncs) > 0 {
		// Nothing else can complete: the sync does.
		e.done = append(e.done, e.syncs[0].c)
		e.syncs = e.syncs[1:]
	}
	n := copy(out, e.done)
	e.done = e.done[:copy(e.done, e.done[n:])]
	return n, nil
}

func (e *lateSyncEngine) Close() error { return nil }

// TestFsyncAtQueueLateCompletion checks fsync= on an engine whose fio
// counterpart syncs in its queue hook (libaio), when the sync's completion
// comes after the writes' (a loaded machine): fio's td->last_was_sync was
// set when the sync ran at queue, and a write completing since clears it,
// so every 16th write is followed by a sync, 63 for 1024 writes. The
// sync's own late completion set it again, and the next multiple of
// fsync= found it set: libaio fsync=16 iodepth=4 gave 59 to 63 syncs at
// load 30, fio 63 every time.
func TestFsyncAtQueueLateCompletion(t *testing.T) {
	dir := t.TempDir()
	jobs := parseJobs(t, dir, "[x]\nioengine=libaio\nrw=write\nfsync=16\niodepth=4\nsize=4m\nfilename="+filepath.Join(dir, "f")+"\n")
	// Without the fix, a sync completing 13 writes after it gave 32.
	for lag := 0; lag <= 20; lag++ {
		open := func(engines.Setup) (engines.Engine, error) { return &lateSyncEngine{lag: lag}, nil }
		r := mustRun(t, jobs, Options{Engines: map[string]engines.Opener{"libaio": open}}).Jobs[0]
		if r.SyncIOs != 63 || r.Dirs[1].TotalIOs != 1024 {
			t.Errorf("sync completing %d writes late: syncs %d, writes %d; fio runs 63 syncs and 1024 writes", lag, r.SyncIOs, r.Dirs[1].TotalIOs)
		}
	}
}
