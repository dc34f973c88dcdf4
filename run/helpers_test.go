package run

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// testJob returns a job with fio's defaults, as the parser would produce
// it, on file name in dir.
func testJob(dir, name string, rw jobfile.RW, engine string) *jobfile.Job {
	return &jobfile.Job{
		Name:                    name,
		Filenames:               []string{filepath.Join(dir, name+".dat")},
		NrFiles:                 1,
		Size:                    64 << 10,
		IOEngine:                engine,
		IODepth:                 1,
		IODepthBatchSubmit:      1,
		IODepthBatchCompleteMin: 1,
		IODepthBatchCompleteMax: 1,
		IODepthLow:              1,
		RW:                      rw,
		RWMixRead:               50,
		BS:                      [jobfile.NumDirs]uint64{4096, 4096, 4096},
		RandRepeat:              true,
		Loops:                   1,
		KBBase:                  1024,
		BWAvgTime:               500,
		IOPSAvgTime:             500,
		TWPriority:              true,
		SQThreadPollCPU:         -1,
		NonVectored:             -1,
		Stats:                   true,
		ClatPercentiles:         true,
	}
}

// setDepth sets iodepth and the batch values fio derives from it.
func setDepth(j *jobfile.Job, d int) {
	j.IODepth = d
	j.IODepthLow = d
}

func mustRun(t *testing.T, jobs []*jobfile.Job, opts Options) *report.Result {
	t.Helper()
	res, err := Run(context.Background(), jobs, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	for _, jr := range res.Jobs {
		if jr.Error != 0 {
			t.Fatalf("job %s: err=%d (%s)", jr.Name, jr.Error, jr.ErrorText)
		}
	}
	return res
}

func runOnce(j *jobfile.Job) (*report.Result, error) {
	return Run(context.Background(), []*jobfile.Job{j}, Options{})
}
