package run

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/iouring"
	"github.com/gofio/gofio/engines/libaio"
	"github.com/gofio/gofio/engines/psync"
)

// reqLog records every request the run core queues on an engine.
type reqLog struct {
	mu   sync.Mutex
	reqs []engines.Request
}

// recEngine is an engine that logs its requests in a reqLog.
type recEngine struct {
	engines.Engine
	log *reqLog
}

func (e recEngine) Queue(slot uint32, r *engines.Request) error {
	e.log.mu.Lock()
	e.log.reqs = append(e.log.reqs, engines.Request{Op: r.Op, File: r.File, Offset: r.Offset, SyncLen: r.SyncLen, Buf: r.Buf[:len(r.Buf):len(r.Buf)]})
	e.log.mu.Unlock()
	return e.Engine.Queue(slot, r)
}

// CompletedAtQueue hands out the logged engine's syncs run at queue.
func (e recEngine) CompletedAtQueue(slot uint32) (int32, bool) {
	if qc, ok := e.Engine.(engines.QueueCompleter); ok {
		return qc.CompletedAtQueue(slot)
	}
	return 0, false
}

// wrap returns open with its engines' requests logged.
func (l *reqLog) wrap(open engines.Opener) engines.Opener {
	return func(s engines.Setup) (engines.Engine, error) {
		e, err := open(s)
		if err != nil {
			return nil, err
		}
		return recEngine{Engine: e, log: l}, nil
	}
}

// TestSyncFileRange runs sequential writes with sync_file_range=...:4 on
// psync, libaio and io_uring at depth 1: a sync after every 4 writes but
// the last (fio's get_rw_ddir), each over exactly the 4 writes since the
// one before (fio's first_write..last_write), counted as syncs.
func TestSyncFileRange(t *testing.T) {
	for _, c := range []struct {
		engine string
		open   engines.Opener
	}{{"psync", psync.Open}, {"libaio", libaio.Open}, {"io_uring", iouring.Open}} {
		t.Run(c.engine, func(t *testing.T) {
			if c.engine == "io_uring" {
				uringOK(t)
			}
			dir := t.TempDir()
			jobs := parseJobs(t, dir, fmt.Sprintf("[w]\nioengine=%s\nrw=write\nbs=4k\nsize=64k\nfilename=%s/f\nsync_file_range=wait_before,write,wait_after:4\n", c.engine, dir))
			var log reqLog
			res := mustRun(t, jobs, Options{Engines: map[string]engines.Opener{c.engine: log.wrap(c.open)}}).Jobs[0]
			var syncs int
			var next uint64 // where the writes since the last sync start
			for i, r := range log.reqs {
				switch r.Op {
				case engines.OpWrite:
				case engines.OpSyncFileRange:
					syncs++
					if r.Offset != next || r.SyncLen != 16384 {
						t.Errorf("request %d: sync_file_range of %d bytes at %d, want 16384 at %d", i, r.SyncLen, r.Offset, next)
					}
					next += 16384
				default:
					t.Errorf("request %d: op %d", i, r.Op)
				}
			}
			if syncs != 3 || res.SyncIOs != 3 || res.SyncLat.N != 3 {
				t.Errorf("%d sync_file_range requests, SyncIOs %d, sync latencies %d; want 3 (16 writes, one per 4 but the last)", syncs, res.SyncIOs, res.SyncLat.N)
			}
		})
	}
}
