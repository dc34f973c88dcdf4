package compare

import (
	"fmt"
	"path/filepath"

	"github.com/gofio/gofio/report"
)

// JSONDirName returns the name of one sweep point's fio-shaped JSON file in
// --json-dir: "{rw}-{iodepth}-{numjobs}.json", the layout fio-plot reads.
func JSONDirName(rw string, iodepth, numjobs int) string {
	return fmt.Sprintf("%s-%d-%d.json", rw, iodepth, numjobs)
}

// JSONDirPath returns where the result of run p goes under dir. With
// --compare each side has its own subdirectory named after its value
// (dir/priority and dir/fifo for tw_priority=1,0, dir/io_uring and
// dir/libaio for ioengine=io_uring,libaio), which fio-plot takes as two
// series to compare; with several
// repeats each repeat has one below it (dir/priority/repeat-2). rw,
// iodepth and numjobs come from the first job of res.
func JSONDirPath(dir string, p Point, res *report.Result) string {
	rw, depth, numjobs := "job", 0, 1
	if job := firstJob(res); job != nil {
		rw, depth, numjobs = string(job.RW), job.IODepth, job.NumJobs
		if numjobs < 1 {
			numjobs = 1
		}
	}
	parts := []string{dir}
	if p.Name != "" {
		parts = append(parts, p.Name)
	}
	if p.Repeats > 1 {
		parts = append(parts, fmt.Sprintf("repeat-%d", p.Repeat+1))
	}
	parts = append(parts, JSONDirName(rw, depth, numjobs))
	return filepath.Join(parts...)
}
