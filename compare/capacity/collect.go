package capacity

import (
	"cmp"
	"slices"

	"github.com/gofio/gofio/compare"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// Collector gathers the runs of a sweep into latency curves, one point
// per row and side, as they arrive (compare.Run's onResult).
type Collector struct {
	rows  []*row
	index map[rowKey]*row
}

type rowKey struct {
	label string
	side  compare.Side
}

// row is one row and side of the sweep over its repeats.
type row struct {
	label     string
	side      compare.Side
	depth     int
	rate      float64
	iops, avg []float64
	hist      report.Hist
	response  bool
}

// Add files one run of point pt. The kernel's SQPOLL reference of a
// --compare is no side of the capacity and is left out, as is a run cut
// short by a signal.
func (c *Collector) Add(pt compare.Point, res *report.Result) {
	if pt.Side == compare.SideKernel || res == nil || res.Signal != "" {
		return
	}
	side := pt.Side
	if side == compare.SideNone {
		side = compare.SideNew
	}
	k := rowKey{pt.Label(), side}
	if c.index == nil {
		c.index = make(map[rowKey]*row)
	}
	r := c.index[k]
	if r == nil {
		r = &row{label: k.label, side: side}
		c.index[k] = r
		c.rows = append(c.rows, r)
	}
	var iops, avg float64
	if openLoop(res) {
		iops, avg = responseLatency(res, &r.hist)
		r.response = true
	} else {
		iops, avg = compare.RunLatency(res, &r.hist)
	}
	r.iops, r.avg = append(r.iops, iops), append(r.avg, avg)
	r.depth, r.rate = runShape(res)
}

// Points returns side's curve (compare.SideNew for a plan of one side),
// ordered by iodepth, then by rate.
func (c *Collector) Points(side compare.Side) []Point {
	var pts []Point
	for _, r := range c.rows {
		if r.side != side {
			continue
		}
		p := Point{Label: r.label, IODepth: r.depth, RateIOPS: r.rate, IOPS: mean(r.iops), AvgUs: mean(r.avg), Response: r.response}
		for i, q := range PctList {
			p.Pcts[i] = compare.PercentileUs(&r.hist, q)
		}
		pts = append(pts, p)
	}
	slices.SortStableFunc(pts, func(a, b Point) int {
		return cmp.Or(cmp.Compare(a.IODepth, b.IODepth), cmp.Compare(a.RateIOPS, b.RateIOPS))
	})
	return pts
}

// openLoop reports whether a job of the run ran open-loop (open_loop=1).
func openLoop(res *report.Result) bool {
	for _, j := range res.Jobs {
		if j != nil && j.OpenLoop != nil {
			return true
		}
	}
	return false
}

// responseLatency is compare.RunLatency for an open-loop run: the IOPS as
// a comparison counts them, and the response latency, from each I/O's
// intended time, of every job and direction: its mean in µs, and its
// histogram added to h.
func responseLatency(res *report.Result, h *report.Hist) (iops, avgUs float64) {
	var scratch report.Hist
	iops, _ = compare.RunLatency(res, &scratch)
	var s report.Stat
	for _, j := range res.Jobs {
		if j == nil || j.OpenLoop == nil {
			continue
		}
		for d := range j.OpenLoop.Dirs {
			s.Merge(j.OpenLoop.Dirs[d].Response)
			h.Merge(&j.OpenLoop.Dirs[d].Hist)
		}
	}
	return iops, s.Mean / 1000
}

// runShape returns the iodepth of the run's first job and the I/Os a
// second its jobs were offered by rate_iops= (or rate=, in blocks), every
// direction they issue and every job summed; 0 when none is rated.
func runShape(res *report.Result) (depth int, rate float64) {
	for _, j := range res.Jobs {
		if j == nil || j.Job == nil {
			continue
		}
		job := j.Job
		if depth == 0 {
			depth = job.IODepth
		}
		for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
			if !issues(job, d) {
				continue
			}
			rate += float64(job.RateIOPS[d])
			if bs := job.BSMin(d); job.Rate[d] > 0 && bs > 0 {
				rate += float64(job.Rate[d]) / float64(bs)
			}
		}
	}
	return depth, rate
}

// issues reports whether job issues I/Os of direction d.
func issues(job *jobfile.Job, d jobfile.Dir) bool {
	switch d {
	case jobfile.DirRead:
		return job.RW.HasRead()
	case jobfile.DirWrite:
		return job.RW.HasWrite()
	}
	return job.RW.HasTrim()
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
