package report

import "github.com/gofio/gofio/jobfile"

// unifiedRW is the job's unified_rw_reporting (jobfile.UnifiedNone when the
// result has no job).
func unifiedRW(j *JobResult) int {
	if j == nil || j.Job == nil {
		return jobfile.UnifiedNone
	}
	return j.Job.UnifiedRW
}

// Mixed returns a copy of r whose reads, writes and trims are folded into
// one direction, Dirs[0], as fio 3.33's sum_thread_stats does for
// unified_rw_reporting=mixed: latency stats merge, bw and iops sample stats
// are summed, histograms and counters are added, and the runtime is the
// longest of the directions'. Everything that is not per direction is
// kept. The writers print Dirs[0] of such a copy as "mixed".
func Mixed(r *JobResult) *JobResult {
	m := *r
	m.Dirs = [jobfile.NumDirs]DirStats{} // the raw log samples stay in r
	md := &m.Dirs[0]
	for d := range r.Dirs {
		md.add(&r.Dirs[d])
	}
	return &m
}

// dirName is the name a report gives direction d of j: "mixed" for the
// folded direction of a unified_rw_reporting=mixed job, else fio's.
func dirName(j *JobResult, d jobfile.Dir) string {
	if unifiedRW(j) == jobfile.UnifiedMixed {
		return "mixed"
	}
	return d.String()
}
