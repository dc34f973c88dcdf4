package run

import (
	"testing"
	"time"

	"github.com/gofio/gofio/jobfile"
)

// TestNewLoopConfig checks the loop configuration a job's options give:
// batch and low-water depths clamped to the queue depth, continue_on_error
// spread over directions, loops=0 running once, rate_iops as a gap.
func TestNewLoopConfig(t *testing.T) {
	j := testJob("", "c", jobfile.RWRandRW, "psync")
	j.IODepthBatchSubmit, j.IODepthLow, j.Loops = 0, 64, 0
	j.ContinueOnError = jobfile.ContinueIO
	j.RateIOPS[jobfile.DirWrite] = 1000
	j.GtodReduce = true
	c := newLoopConfig(j, 8, false)
	if c.batchSubmit != 8 || c.low != 8 {
		t.Errorf("batchSubmit %d, low %d; want both clamped to depth 8", c.batchSubmit, c.low)
	}
	if !c.coeRead || !c.coeWrite {
		t.Errorf("continue_on_error=IO: coeRead %v, coeWrite %v; want both", c.coeRead, c.coeWrite)
	}
	if c.loops != 1 {
		t.Errorf("loops %d, want 1", c.loops)
	}
	if c.rateGap[jobfile.DirWrite] != int64(time.Millisecond) || c.rateGap[jobfile.DirRead] != 0 {
		t.Errorf("rate gaps %v, want 1ms for writes only", c.rateGap)
	}
	if !c.noSlat || !c.noClat || !c.noLat || !c.hasRead || !c.hasWrite {
		t.Errorf("gtod_reduce randrw: %+v", c)
	}
	j.IODepthBatchSubmit, j.IODepthLow, j.Loops = 4, 2, 3
	if c := newLoopConfig(j, 8, false); c.batchSubmit != 4 || c.low != 2 || c.loops != 3 {
		t.Errorf("in range: batchSubmit %d, low %d, loops %d; want 4, 2, 3", c.batchSubmit, c.low, c.loops)
	}
}
