package run

import "github.com/gofio/gofio/internal/steady"

// steadyJobs is group g's jobs as steady-state detection sees them.
func steadyJobs(g []*jobRun) []steady.Job {
	out := make([]steady.Job, len(g))
	for i, jr := range g {
		out[i] = steady.Job{Job: jr.job, Res: jr.res, Prog: jr.prog, Ended: &jr.snap.ended, Status: &jr.snap.steady, Kill: &jr.kill}
	}
	return out
}
