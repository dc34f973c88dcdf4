package run

import (
	"testing"

	"github.com/gofio/gofio/report"
)

// TestFioAcctMatchesFio replays fio 3.33's submit, complete and IO depth
// accounting for 4096 I/Os (size=16m, bs=4k) and compares the maps with
// what fio 3.33 printed for the same jobs (fio's JSON
// percentages converted back to counts).
func TestFioAcctMatchesFio(t *testing.T) {
	tests := []struct {
		name                       string
		engine                     string
		sqpoll                     bool
		depth, batch, cmin, cmax   int
		depthMap, submit, complete [7]uint64
	}{
		// --ioengine=io_uring --iodepth=16 --iodepth_batch_submit=8
		// --iodepth_batch_complete_min=4: IO depths 8=0.2% 16=99.8%,
		// submit 4=99.8% 8=0.2%, complete 4=99.9% (1021) 16=0.1% (1).
		{"io_uring batched", "io_uring", false, 16, 8, 4, 4,
			[7]uint64{3: 8, 4: 4088}, [7]uint64{1: 1020, 2: 2}, [7]uint64{1: 1021, 3: 1}},
		// The same with sqthread_poll=1: fio's commit marks no submit.
		{"io_uring sqpoll batched", "io_uring", true, 16, 8, 4, 4,
			[7]uint64{3: 8, 4: 4088}, [7]uint64{}, [7]uint64{1: 1021, 3: 1}},
		// fio's defaults at iodepth=16: 1, 2, 4, 8 once each while the
		// queue fills, then 16.
		{"io_uring defaults", "io_uring", false, 16, 1, 1, 1,
			[7]uint64{0: 1, 1: 2, 2: 4, 3: 8, 4: 4081}, [7]uint64{1: 4096}, [7]uint64{1: 4081, 3: 1}},
		// --ioengine=null, batched: 8=100% everywhere (null returns every
		// committed event and refuses to queue while they are pending).
		{"null batched", "null", false, 16, 8, 4, 4,
			[7]uint64{3: 4096}, [7]uint64{2: 512}, [7]uint64{2: 512}},
		// --ioengine=null at iodepth=16: one I/O at a time, depth 1.
		{"null defaults", "null", false, 16, 1, 1, 1,
			[7]uint64{0: 4096}, [7]uint64{1: 4096}, [7]uint64{1: 4096}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &report.JobResult{}
			a := newFioAcct(res, tt.depth, tt.batch, tt.cmin, tt.cmax, tt.depth, tt.engine, tt.sqpoll)
			for i := 0; i < 4096; i++ {
				a.queuedOne()
				a.harvested(1)
			}
			a.finish()
			if res.IODepth != tt.depthMap {
				t.Errorf("IO depths %v, want %v", res.IODepth, tt.depthMap)
			}
			if res.Submit != tt.submit {
				t.Errorf("submit %v, want %v", res.Submit, tt.submit)
			}
			if res.Complete != tt.complete {
				t.Errorf("complete %v, want %v", res.Complete, tt.complete)
			}
		})
	}
}
