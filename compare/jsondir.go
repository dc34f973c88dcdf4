package compare

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/gofio/gofio/jobfile"
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

// fioPlotKeys are the job options fio-plot's import keeps a file by: it
// reads the first job's "job options" merged with "global options" (the
// global values win) and skips the file unless rw, iodepth and numjobs are
// all there, their values matching its -r, -d and -n.
var fioPlotKeys = []string{"rw", "iodepth", "numjobs"}

// ForFioPlot returns res as it is written under --json-dir: every job's
// "job options" end with the rw, iodepth and numjobs the job ran with,
// whether its job file set them or not (fio leaves out what a job file
// does not set, and then fio-plot finds no file), and "global options"
// no longer hold them, so a [global] value that a sweep overrode cannot
// win over the job's. res itself is not changed.
func ForFioPlot(res *report.Result) *report.Result {
	drop := func(opts []jobfile.Option) []jobfile.Option {
		out := make([]jobfile.Option, 0, len(opts)+len(fioPlotKeys))
		for _, o := range opts {
			if !slices.Contains(fioPlotKeys, o.Name) {
				out = append(out, o)
			}
		}
		return out
	}
	cp := *res
	cp.GlobalOptions = drop(res.GlobalOptions)
	cp.Jobs = make([]*report.JobResult, len(res.Jobs))
	for i, jr := range res.Jobs {
		if jr == nil || jr.Job == nil {
			cp.Jobs[i] = jr
			continue
		}
		j := *jr.Job
		numjobs := max(j.NumJobs, 1)
		globals := drop(j.Options[:j.NumGlobalOptions])
		j.NumGlobalOptions = len(globals)
		j.Options = append(append(globals, drop(j.OwnOptions())...),
			jobfile.Option{Name: "rw", Value: string(j.RW), HasValue: true},
			jobfile.Option{Name: "iodepth", Value: strconv.Itoa(j.IODepth), HasValue: true},
			jobfile.Option{Name: "numjobs", Value: strconv.Itoa(numjobs), HasValue: true})
		r := *jr
		r.Job = &j
		cp.Jobs[i] = &r
	}
	return &cp
}
