// Package steady is fio's steady-state detection (steadystate.c): once a
// second (fio 3.33), or once every steadystate_check_interval (fio 3.42),
// the I/O rate of a job, or of its reporting group, and with fio 3.42's
// lat criteria its mean completion latency, goes into a window of
// steadystate_duration's samples, and the job ends when the window's
// slope, or its largest deviation from its mean, falls below the limit.
//
// Window and Group are pure: the caller passes the time and the counters,
// so tests feed samples and never sleep. Their arithmetic is fio's,
// integer rates and all, so that a window of the same samples gives the
// same verdict and the same JSON figures. Units and Watch run them for a
// run group: the jobs' reporting units (CheckGroups refuses units fio
// refuses), checked on a ticker over the counters each job publishes.
package steady

import (
	"time"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// Window is one reporting unit's steady-state window (fio's
// steadystate_data): a ring of Duration samples and the running sums the
// criterion needs.
type Window struct {
	cfg        jobfile.SteadyState
	dur        int
	head, tail int
	iops, bw   []uint64
	lat        []uint64 // mean completion latency, ns (lat criteria)
	full       bool
	attained   bool

	slope, deviation, criterion float64

	sumY, sumX, sumXSq, sumXY, oldestY uint64
}

// NewWindow returns an empty window for the criterion cfg; cfg.On() must
// hold.
func NewWindow(cfg jobfile.SteadyState) *Window {
	n := cfg.Samples()
	return &Window{
		cfg:    cfg,
		dur:    n,
		iops:   make([]uint64, n),
		bw:     make([]uint64, n),
		lat:    make([]uint64, n),
		sumX:   uint64(n * (n - 1) / 2),
		sumXSq: uint64((n - 1) * n * (2*n - 1) / 6),
	}
}

// Attained reports whether steady state was reached.
func (w *Window) Attained() bool { return w.attained }

// Add takes one sample, IOPS, bytes per second and the mean completion
// latency in ns over the last period, and reports whether steady state is
// attained with it. Once attained the window takes no more samples.
func (w *Window) Add(iops, bw, lat uint64) bool {
	if w.attained {
		return true
	}
	w.iops[w.tail], w.bw[w.tail], w.lat[w.tail] = iops, bw, lat
	var ok bool
	if w.cfg.Slope {
		ok = w.addSlope()
	} else {
		ok = w.addDeviation()
	}
	if ok {
		w.attained = true
		return true
	}
	w.tail = (w.tail + 1) % w.dur
	// fio 3.42's deviation moves head when tail meets it, fio 3.33's
	// when tail is at or before it: after tail wraps, tail meets head
	// each time, so the two are one rule.
	if w.tail <= w.head {
		w.head = (w.head + 1) % w.dur
	}
	return false
}

// y returns the metric the criterion reads from sample i.
func (w *Window) y(i int) uint64 {
	switch {
	case w.cfg.IOPS:
		return w.iops[i]
	case w.cfg.Lat:
		return w.lat[i]
	}
	return w.bw[i]
}

// fullNow reports whether the sample just stored fills the window, as
// fio's test: the buffer was full before, or tail - head == dur - 1.
func (w *Window) fullNow() bool { return w.full || w.tail-w.head == w.dur-1 }

// slide keeps the window's running sums as the sample just stored
// enters it, as both of fio's criteria do: the sum of the samples, and
// with xy (the slope's) the sum of each sample times its position. It
// reports false while the window is not yet full.
func (w *Window) slide(xy bool) bool {
	if !w.fullNow() {
		return false
	}
	if !w.full {
		w.sumY = 0
		for i := 0; i < w.dur; i++ {
			w.sumY += w.y(i)
			if xy {
				w.sumXY += uint64(i) * w.y((w.head+i)%w.dur)
			}
		}
		w.full = true
	} else {
		nv := w.y(w.tail)
		w.sumY -= w.oldestY
		w.sumY += nv
		if xy {
			w.sumXY = w.sumXY - w.sumY + uint64(w.dur)*nv
		}
	}
	w.oldestY = w.y(w.head)
	return true
}

// addSlope is fio's steadystate_slope: the least-squares slope of the
// window (samples taken as equally spaced), as a percentage of the mean
// when the limit is one.
func (w *Window) addSlope() bool {
	if !w.slide(true) {
		return false
	}
	n := float64(w.dur)
	den := float64(w.sumXSq) - float64(w.sumX)*float64(w.sumX)/n
	if den == 0 || (w.cfg.Pct && w.sumY/uint64(w.dur) == 0) {
		// A one-second window has no slope, and a zero mean no
		// percentage: fio divides by zero, and its NaN or infinity is
		// never below the limit. gofio reports 0 (JSON has no NaN) and
		// does not attain, as fio.
		w.slope, w.criterion = 0, 0
		return false
	}
	w.slope = (float64(w.sumXY) - float64(w.sumX)*float64(w.sumY)/n) / den
	w.criterion = w.slope
	if w.cfg.Pct {
		w.criterion = 100 * w.slope / float64(w.sumY/uint64(w.dur))
	}
	c := w.criterion
	if c < 0 {
		c = -c
	}
	return c < w.cfg.Limit
}

// addDeviation is fio's steadystate_deviation: the largest distance of a
// sample from the window's mean, as a percentage of the mean when the
// limit is one.
func (w *Window) addDeviation() bool {
	if !w.slide(false) {
		return false
	}
	mean := float64(w.sumY) / float64(w.dur)
	w.deviation = 0
	for i := 0; i < w.dur; i++ {
		d := float64(w.y(i)) - mean
		if d < 0 {
			d = -d
		}
		w.deviation = max(w.deviation, d)
	}
	w.criterion = w.deviation
	if w.cfg.Pct {
		if mean == 0 {
			// fio's 0/0 (a window of zero samples) is NaN, never below
			// the limit: not attained, reported as 0.
			w.criterion = 0
			return false
		}
		w.criterion = 100 * w.deviation / mean
	}
	return w.criterion < w.cfg.Limit
}

// Result returns the window as fio reports it: the samples from the
// oldest, which is head when steady state was attained or the window is
// not yet full, and the one before head otherwise (fio's stat.c order).
func (w *Window) Result() *report.SteadyState {
	r := &report.SteadyState{
		IOPS: w.cfg.IOPS, Lat: w.cfg.Lat, BySlope: w.cfg.Slope, Pct: w.cfg.Pct, Limit: w.cfg.Limit,
		Duration: w.cfg.Seconds(), Attained: w.attained,
		Slope: w.slope, Deviation: w.deviation, Criterion: w.criterion,
		BW: make([]uint64, w.dur), IOPSData: make([]uint64, w.dur),
	}
	if w.cfg.Lat {
		r.LatData = make([]uint64, w.dur)
	}
	j := w.head
	if !w.attained && w.full {
		j = (w.head + w.dur - 1) % w.dur
	}
	for l := 0; l < w.dur; l++ {
		k := (j + l) % w.dur
		r.BW[l], r.IOPSData[l] = w.bw[k], w.iops[k]
		if r.LatData != nil {
			r.LatData[l] = w.lat[k]
		}
	}
	return r
}

// Counters are one job's completed I/Os and bytes (reads, writes and
// trims together) at a tick, and whether the job is running. For the lat
// criteria, ClatSum is the sum of its completion latencies (ns) as fio
// 3.42 takes it, each direction's mean times its samples, and ClatN the
// samples.
type Counters struct {
	IOs, Bytes uint64
	ClatSum    float64
	ClatN      uint64
	Running    bool
}

// member is one job's state between ticks (fio's prev_time, prev_iops,
// prev_bytes, prev_lat_sum, prev_lat_samples and FIO_SS_RAMP_OVER).
type member struct {
	epoch, prevTime    int64
	prevIOs, prevBytes uint64
	prevClatSum        float64
	prevClatN          uint64
	rampOver           bool
}

// Group is the steady-state check of one reporting unit: a job on its
// own, or, with group_reporting, every job of the group, whose rates add
// up; the last job's window holds the samples, as in fio.
type Group struct {
	win     *Window
	ramp    int64 // steadystate_ramp_time plus one check interval, ns
	members []member
}

// NewGroup returns the check of jobs with the criterion cfg, epochs[i]
// (ns) the epoch of job i: when it started, or when its ramp_time ended,
// where fio moves a job's epoch and its steady-state clock with it.
func NewGroup(cfg jobfile.SteadyState, epochs []int64) *Group {
	g := &Group{win: NewWindow(cfg), ramp: int64(cfg.Ramp + Period(cfg)), members: make([]member, len(epochs))}
	for i, e := range epochs {
		g.members[i] = member{epoch: e, prevTime: e, rampOver: cfg.Ramp == 0}
	}
	return g
}

// Window returns the group's window.
func (g *Group) Window() *Window { return g.win }

// Period returns how often the check runs: one second (fio 3.33's
// STEADYSTATE_MSEC), or fio 3.42's steadystate_check_interval.
func Period(cfg jobfile.SteadyState) time.Duration {
	if cfg.Newer() {
		return cfg.Interval
	}
	return time.Second
}

// Tick is fio's steadystate_check at now (ns) for the group's jobs, c[i]
// the counters of job i: each running job whose steadystate_ramp_time
// (plus one check period) since its epoch is over adds its IOPS and
// bandwidth since the last tick, in fio's integer arithmetic, and its
// completion latencies, and the sums go into the window, latency as their
// mean. It reports whether steady state is attained. A job that is not
// running is left out; when the last one is not running (it holds fio's
// window), no sample is taken. Counters that went down (ramp_time's
// reset) count from zero.
//
// Each rate is the bytes or I/Os since the last tick over the time since
// it, as fio 3.33 computes it; fio 3.42 multiplies by that time over the
// interval squared instead, which gives a late tick a higher rate rather
// than a lower one (jobfile/DIFFERENCES.md).
func (g *Group) Tick(now int64, c []Counters) bool {
	if g.win.attained {
		return true
	}
	var bw, iops, clatN uint64
	var clatSum float64
	over := 0
	for i := range g.members {
		m := &g.members[i]
		if !c[i].Running {
			continue
		}
		if !m.rampOver && now-m.epoch >= g.ramp {
			m.rampOver = true
		}
		ms := uint64((now - m.prevTime) / 1e6)
		m.prevTime = now
		if m.rampOver && ms > 0 {
			if c[i].Bytes < m.prevBytes || c[i].IOs < m.prevIOs || c[i].ClatN < m.prevClatN {
				m.prevBytes, m.prevIOs, m.prevClatSum, m.prevClatN = 0, 0, 0, 0
			}
			bw += 1000 * (c[i].Bytes - m.prevBytes) / ms
			iops += 1000 * (c[i].IOs - m.prevIOs) / ms
			clatSum += c[i].ClatSum - m.prevClatSum
			clatN += c[i].ClatN - m.prevClatN
			over++
		}
		m.prevIOs, m.prevBytes, m.prevClatSum, m.prevClatN = c[i].IOs, c[i].Bytes, c[i].ClatSum, c[i].ClatN
	}
	if over == 0 || !c[len(c)-1].Running {
		return false
	}
	var lat uint64
	if clatN > 0 {
		lat = uint64(clatSum / float64(clatN))
	}
	return g.win.Add(iops, bw, lat)
}
