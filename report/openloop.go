package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/gofio/gofio/internal/openloop"
	"github.com/gofio/gofio/jobfile"
)

// This file writes what an open-loop job (open_loop=1, internal/openloop)
// measured beside fio's figures: its response latency, from each I/O's
// intended time to its completion, and its late I/Os. fio's own lat_ns
// stays the service latency, from the I/O's start.

// responsePercentiles are the response-latency percentiles the normal
// output prints: the figures an objective names.
var responsePercentiles = []float64{50, 90, 99, 99.9, 99.99}

// responseJSON adds direction d's response latency to its JSON object o,
// after lat_ns: response_lat_ns, in lat_ns's shape with percentiles (and
// its bins under json+), and late_ios. Nothing for a closed-loop job or a
// direction that did no I/O.
func responseJSON(o *jsonObject, j *JobResult, d jobfile.Dir, plist []float64, plus bool) {
	if j.OpenLoop == nil {
		return
	}
	r := &j.OpenLoop.Dirs[d]
	if r.Response.N == 0 && j.Dirs[d].TotalIOs == 0 {
		return
	}
	o.add("response_lat_ns", statJSON(r.Response, &r.Hist, true, plist, plus))
	o.addInt("late_ios", r.Late)
}

// writeResponseNormal writes an open-loop job's lines in its gofio group
// (gofioLine's rule), per direction that did I/O: the response latency
// as fio's lat line, its percentiles, and the late I/Os.
func writeResponseNormal(w io.Writer, j *JobResult) {
	if j.OpenLoop == nil {
		return
	}
	for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
		r := &j.OpenLoop.Dirs[d]
		if r.Response.N == 0 {
			continue
		}
		unit, min, max, mean, dev := latScale(r.Response)
		gofioLine(w, "response", "%s: lat (%s): min=%s, max=%s, avg=%5.02f, stdev=%5.02f, from each I/O's intended time (fio's lat: from its start)",
			d, unit, Num2Str(min, 6, 1, false, UnitNone), Num2Str(max, 6, 1, false, UnitNone), mean, dev)
		vals, _, _ := Percentiles(&r.Hist, r.Response.N, responsePercentiles)
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = fmt.Sprintf("p%g=%s", responsePercentiles[i], usecText(v))
		}
		gofioLine(w, "response", "%s: %s", d, strings.Join(parts, ", "))
		issued := j.Dirs[d].TotalIOs
		pct := 0.0
		if issued > 0 {
			pct = 100 * float64(r.Late) / float64(issued)
		}
		late := ""
		if r.Late > 0 {
			late = fmt.Sprintf(", %s late on average", usecText(uint64(r.LateBy.Mean)))
		}
		gofioLine(w, "response", "%s: late=%d of %d I/Os (%.2f%%): issued after their intended time with every slot busy%s",
			d, r.Late, issued, pct, late)
	}
}

// usecText writes ns in the unit that keeps it readable: "850ns",
// "12.3us", "4.56ms", "1.20s".
func usecText(ns uint64) string {
	switch {
	case ns < 1000:
		return fmt.Sprintf("%dns", ns)
	case ns < 1000000:
		return fmt.Sprintf("%.1fus", float64(ns)/1e3)
	case ns < 1000000000:
		return fmt.Sprintf("%.2fms", float64(ns)/1e6)
	}
	return fmt.Sprintf("%.2fs", float64(ns)/1e9)
}

// OpenLoopState is an open-loop job's figures in its exact state
// (JobState), per direction, for gofio merge.
type OpenLoopState struct {
	Dirs [jobfile.NumDirs]OpenLoopDirState `json:"dirs"`
}

// OpenLoopDirState is one direction of an OpenLoopState.
type OpenLoopDirState struct {
	Response StatState `json:"response"`
	Late     uint64    `json:"late"`
	LateBy   Stat      `json:"late_by"`
}

// openLoopState returns s's exact state; nil for a closed-loop job.
func openLoopState(s *openloop.Stats) *OpenLoopState {
	if s == nil {
		return nil
	}
	st := &OpenLoopState{}
	for d := range s.Dirs {
		sd := &s.Dirs[d]
		st.Dirs[d] = OpenLoopDirState{Response: statState(sd.Response, &sd.Hist), Late: sd.Late, LateBy: sd.LateBy}
	}
	return st
}

// apply rebuilds the figures the state holds; nil for none.
func (st *OpenLoopState) apply() (*openloop.Stats, error) {
	if st == nil {
		return nil, nil
	}
	s := &openloop.Stats{}
	for d := range s.Dirs {
		sd, od := &st.Dirs[d], &s.Dirs[d]
		if err := sd.Response.apply(&od.Response, &od.Hist); err != nil {
			return nil, fmt.Errorf("%s response: %w", jobfile.Dir(d), err)
		}
		od.Late, od.LateBy = sd.Late, sd.LateBy
	}
	return s, nil
}
