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

// lateWriteEngine stands in for libaio: it runs a sync inside Queue and
// hands its result out through engines.QueueCompleter, as libaio does
// after fio's engine, and completes each submitted write only after lag
// more writes were submitted, or when a reap would find nothing else, as
// the writes of a loaded machine complete late.
type lateWriteEngine struct {
	lag    int
	synced engines.Completion
	sync   bool // synced holds a sync Queue ran
	queued []engines.Completion
	flying []lateWrite
	done   []engines.Completion

	// clock, when set, moves on by syncTime in each sync and by
	// writeTime in each reap that finds writes.
	clock               *fakeClock
	syncTime, writeTime int64
}

type lateWrite struct {
	c     engines.Completion
	after int // writes still to be submitted before it completes
}

func (e *lateWriteEngine) Queue(slot uint32, r *engines.Request) error {
	if r.Op.IsSync() {
		e.synced, e.sync = engines.Completion{Slot: slot}, true
		if e.clock != nil {
			e.clock.t.Add(e.syncTime)
		}
		return nil
	}
	e.queued = append(e.queued, engines.Completion{Slot: slot, Res: int32(len(r.Buf))})
	return nil
}

func (e *lateWriteEngine) CompletedAtQueue(slot uint32) (int32, bool) {
	if !e.sync || e.synced.Slot != slot {
		return 0, false
	}
	e.sync = false
	return e.synced.Res, true
}

func (e *lateWriteEngine) Submit() (int, error) {
	n := len(e.queued)
	for i := range e.flying {
		e.flying[i].after -= n
	}
	for _, c := range e.queued {
		e.flying = append(e.flying, lateWrite{c, e.lag})
	}
	e.queued = e.queued[:0]
	for len(e.flying) > 0 && e.flying[0].after <= 0 {
		e.done = append(e.done, e.flying[0].c)
		e.flying = e.flying[1:]
	}
	return n, nil
}

func (e *lateWriteEngine) Reap(out []engines.Completion, min int) (int, error) {
	for len(e.done) < min && len(e.flying) > 0 {
		// Nothing else can complete: the oldest write does.
		e.done = append(e.done, e.flying[0].c)
		e.flying = e.flying[1:]
	}
	n := copy(out, e.done)
	e.done = e.done[:copy(e.done, e.done[n:])]
	if e.clock != nil && n > 0 {
		e.clock.t.Add(e.writeTime)
	}
	return n, nil
}

func (e *lateWriteEngine) Close() error { return nil }

// TestFsyncAtQueueLateCompletion checks fsync= on an engine whose fio
// counterpart syncs in its queue hook (libaio) when the writes complete
// late (a loaded machine): fio's td->last_was_sync is set when the sync
// completes in its queue hook and cleared by the next write completed, so
// every 16th write is followed by one sync, 63 for 1024 writes, however
// the writes' completions fall; with iodepth_batch_submit=4 the sync
// first waits for the writes queued before it (fio's FIO_Q_BUSY), and
// fio's count is 63 too (fio 3.33, /dev/shm, three runs each). A sync
// whose completion was reaped after the writes queued behind it (as
// io_submit's IOCB_CMD_FSYNC once was) gave 59 to 63 at load 30, and 32
// when it completed 13 writes late.
func TestFsyncAtQueueLateCompletion(t *testing.T) {
	dir := t.TempDir()
	for _, batch := range []int{1, 4} {
		jobs := parseJobs(t, dir, fmt.Sprintf("[x]\nioengine=libaio\nrw=write\nfsync=16\niodepth=4\niodepth_batch_submit=%d\nsize=4m\nfilename=%s\n", batch, filepath.Join(dir, "f")))
		for lag := 0; lag <= 20; lag++ {
			open := func(engines.Setup) (engines.Engine, error) { return &lateWriteEngine{lag: lag}, nil }
			r := mustRun(t, jobs, Options{Engines: map[string]engines.Opener{"libaio": open}}).Jobs[0]
			if r.SyncIOs != 63 || r.Dirs[1].TotalIOs != 1024 {
				t.Errorf("iodepth_batch_submit=%d, writes completing %d writes late: syncs %d, writes %d; fio runs 63 syncs and 1024 writes", batch, lag, r.SyncIOs, r.Dirs[1].TotalIOs)
			}
		}
	}
}

// TestFsyncAtQueueBusy checks fsync=1 at iodepth 4 on an engine that
// syncs at queue (libaio), where fio's count depends on the order of
// completions and syncs: each write reaped clears td->last_was_sync, so a
// sync follows it. With iodepth_batch_submit above 1 a sync finds writes
// queued and waits for them (FIO_Q_BUSY); fio completes the writes that
// wait reaps before the sync runs, so they do not clear the sync's
// last_was_sync, and it issues one sync fewer. fio 3.33 on /dev/shm, where
// writes complete at submission: 253, 252 and 252 syncs for
// iodepth_batch_submit=1, 2 and 4, the same in each of three runs
// (`fio --name=x --ioengine=libaio --direct=1 --rw=write --bs=4k
// --size=1m --iodepth=4 --iodepth_batch_submit=B --fsync=1`). gofio's
// completion items of the writes that wait reaped run after the sync, and
// counted as completed after it they gave 253.
func TestFsyncAtQueueBusy(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ batch, syncs int }{{1, 253}, {2, 252}, {4, 252}} {
		jobs := parseJobs(t, dir, fmt.Sprintf("[x]\nioengine=libaio\nrw=write\nfsync=1\niodepth=4\niodepth_batch_submit=%d\nsize=1m\nfilename=%s\n", c.batch, filepath.Join(dir, "f")))
		for lag := 0; lag <= 5; lag++ {
			open := func(engines.Setup) (engines.Engine, error) { return &lateWriteEngine{lag: lag}, nil }
			r := mustRun(t, jobs, Options{Engines: map[string]engines.Opener{"libaio": open}}).Jobs[0]
			if r.SyncIOs != uint64(c.syncs) || r.Dirs[1].TotalIOs != 256 {
				t.Errorf("iodepth_batch_submit=%d, writes completing %d writes late: syncs %d, writes %d; fio runs %d syncs and 256 writes", c.batch, lag, r.SyncIOs, r.Dirs[1].TotalIOs, c.syncs)
			}
		}
	}
}

// TestFsyncAtQueueLatency checks the latency of a sync done at queue
// (libaio) against fio's: fio's libaio stamps an io_u's issue time in its
// commit hook, which a sync run in the queue hook never reaches, so the
// sync's latency runs from the issue of the write its io_u carried last.
// At iodepth 1 that is the write just completed: the sync's latency is the
// write's (writeTime here) plus the sync's own (syncTime), a few clock
// ticks more, never the sync's alone.
func TestFsyncAtQueueLatency(t *testing.T) {
	dir := t.TempDir()
	jobs := parseJobs(t, dir, "[x]\nioengine=libaio\nrw=write\nfsync=1\nsize=64k\nfilename="+filepath.Join(dir, "f")+"\n")
	const writeTime, syncTime = 1_000_000, 2_000_000
	clock := &fakeClock{step: 1}
	open := func(engines.Setup) (engines.Engine, error) {
		return &lateWriteEngine{clock: clock, writeTime: writeTime, syncTime: syncTime}, nil
	}
	o := clock.opts()
	o.Engines = map[string]engines.Opener{"libaio": open}
	r := mustRun(t, jobs, o).Jobs[0]
	if r.SyncIOs != 15 || r.SyncLat.N != 15 {
		t.Fatalf("syncs %d, sync latencies %d; want 15 (16 writes, a sync after each but the last)", r.SyncIOs, r.SyncLat.N)
	}
	if lo, hi := uint64(writeTime+syncTime), uint64(writeTime+syncTime+100); r.SyncLat.Min < lo || r.SyncLat.Max > hi {
		t.Errorf("sync latency %d to %d ns; want the write's and the sync's together, %d to %d", r.SyncLat.Min, r.SyncLat.Max, lo, hi)
	}
	// At iodepth 2 the first sync takes a slot no I/O used yet, whose io_u
	// fio never stamped: its latency runs from fio's clock's start (or
	// the boot). gofio's runs from the job's start (docs/differences.md).
	jobs = parseJobs(t, dir, "[x]\nioengine=libaio\nrw=write\nfsync=1\niodepth=2\nsize=64k\nfilename="+filepath.Join(dir, "f")+"\n")
	clock = &fakeClock{step: 1}
	clock.t.Store(1 << 50)
	o = clock.opts()
	o.Engines = map[string]engines.Opener{"libaio": open}
	if r = mustRun(t, jobs, o).Jobs[0]; r.SyncLat.N == 0 || r.SyncLat.Max > 1<<40 {
		t.Errorf("iodepth=2: %d syncs, longest %d ns; want none timed from before the job's start", r.SyncLat.N, r.SyncLat.Max)
	}
}
