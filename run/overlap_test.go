package run

import (
	"testing"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/null"
	"github.com/gofio/gofio/jobfile"
)

// overlapEngine is the null engine with a recorder: it keeps the range
// of every request from Queue until its completion is reaped and counts
// the requests queued while an overlapping one was in flight.
type overlapEngine struct {
	engines.Engine
	inFlight map[uint32][2]uint64
	overlaps int
	queued   int
}

func (e *overlapEngine) Queue(slot uint32, r *engines.Request) error {
	lo, hi := r.Offset, r.Offset+uint64(len(r.Buf))
	for _, f := range e.inFlight {
		if lo < f[1] && f[0] < hi {
			e.overlaps++
			break
		}
	}
	e.inFlight[slot] = [2]uint64{lo, hi}
	e.queued++
	return e.Engine.Queue(slot, r)
}

func (e *overlapEngine) Reap(out []engines.Completion, min int) (int, error) {
	n, err := e.Engine.Reap(out, min)
	for _, c := range out[:n] {
		delete(e.inFlight, c.Slot)
	}
	return n, err
}

// TestSerializeOverlap runs random writes over 16 blocks at iodepth 8,
// submitted 8 at a time so that many are in flight together: without
// serialize_overlap overlapping writes are in flight at once; with it
// none is, and the job still issues all of its I/Os.
func TestSerializeOverlap(t *testing.T) {
	for _, serialize := range []bool{false, true} {
		var eng *overlapEngine
		engs := map[string]engines.Opener{"ovl": func(s engines.Setup) (engines.Engine, error) {
			e, err := null.Open(s)
			eng = &overlapEngine{Engine: e, inFlight: map[uint32][2]uint64{}}
			return eng, err
		}}
		j := testJob(t.TempDir(), "ovl", jobfile.RWRandWrite, "ovl")
		j.Size, j.Loops, j.NoRandomMap = 64<<10, 64, true
		setDepth(j, 8)
		j.IODepthBatchSubmit = 8
		j.SerializeOverlap = serialize
		res := mustRun(t, []*jobfile.Job{j}, Options{Engines: engs})
		ios := res.Jobs[0].Dirs[jobfile.DirWrite].TotalIOs
		t.Logf("serialize_overlap=%v: %d writes, %d queued over an in-flight one", serialize, ios, eng.overlaps)
		if ios != 16*64 || eng.queued != 16*64 {
			t.Errorf("serialize_overlap=%v: %d writes counted, %d queued, want %d", serialize, ios, eng.queued, 16*64)
		}
		switch {
		case serialize && eng.overlaps != 0:
			t.Errorf("serialize_overlap=1: %d writes queued over an overlapping one in flight", eng.overlaps)
		case !serialize && eng.overlaps == 0:
			t.Errorf("serialize_overlap=0: no overlap in flight: the test does not exercise the option")
		}
	}
}
