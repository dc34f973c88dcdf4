package run

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gofio/gofio/internal/steady"
	"github.com/gofio/gofio/jobfile"
)

// steadyUnit is one reporting unit of steady-state detection: a job, or
// with group_reporting the jobs of its reporting group, which fio checks
// together and ends together.
type steadyUnit struct {
	jobs  []*jobRun
	check *steady.Group
}

// errSteadyGroup is fio's refusal of a reporting group whose jobs differ
// in their steady-state options.
var errSteadyGroup = errors.New("job rejected: steadystate options must be consistent within reporting groups")

// checkSteadyGroups refuses, as fio's td_steadystate_init, jobs of one
// reporting group (one group_id) whose steadystate options differ, one of
// them having none included; and as fio 3.42's fixup_options, a check
// interval that differs between two jobs of the run, or that a job's
// duration does not suit (SteadyState.Check).
func checkSteadyGroups(runs []*jobRun) error {
	first := map[int]*jobfile.Job{}
	for _, jr := range runs {
		j := jr.job
		if msg := j.SteadyState.Check(); msg != "" {
			return &jobfile.Error{File: j.File, Line: j.Line, Option: "steadystate_check_interval", Msg: msg}
		}
		if f := runs[0].job; f.SteadyState.Interval != j.SteadyState.Interval {
			return &jobfile.Error{File: j.File, Line: j.Line, Option: "steadystate_check_interval",
				Msg: fmt.Sprintf("fio: conflicting ss_check_interval: %d and %d, must be globally equal",
					f.SteadyState.Interval.Microseconds(), j.SteadyState.Interval.Microseconds())}
		}
		f, ok := first[j.GroupID]
		if !ok {
			first[j.GroupID] = j
			continue
		}
		if steadyKey(f) != steadyKey(j) {
			return &jobfile.Error{File: j.File, Line: j.Line, Option: "steadystate", Msg: errSteadyGroup.Error()}
		}
	}
	return nil
}

// steadyKey is what fio compares of two jobs' steady-state set-ups: none
// at all when detection is off.
func steadyKey(j *jobfile.Job) jobfile.SteadyState {
	s := j.SteadyState
	if !s.On() {
		return jobfile.SteadyState{}
	}
	s.Duration = time.Duration(s.Seconds()) * time.Second
	return s
}

// steadyUnits groups the jobs of a run group that detect steady state into
// units, each with its check starting at epoch (ns).
func steadyUnits(g []*jobRun, epoch int64) []*steadyUnit {
	var units []*steadyUnit
	byGroup := map[int]*steadyUnit{}
	for _, jr := range g {
		j := jr.job
		if !j.SteadyState.On() {
			continue
		}
		if j.GroupReporting {
			if u, ok := byGroup[j.GroupID]; ok {
				u.jobs = append(u.jobs, jr)
				continue
			}
		}
		u := &steadyUnit{jobs: []*jobRun{jr}}
		if j.GroupReporting {
			byGroup[j.GroupID] = u
		}
		units = append(units, u)
	}
	for _, u := range units {
		epochs := make([]int64, len(u.jobs))
		for i, jr := range u.jobs {
			// fio's epoch moves to the end of ramp_time, and
			// steadystate_ramp_time counts from there.
			epochs[i] = epoch + int64(jr.job.RampTime)
		}
		u.check = steady.NewGroup(u.jobs[0].job.SteadyState, epochs)
	}
	return units
}

// tick takes one steady-state sample of the unit at now (ns since the
// group started) from its jobs' published counters, and ends every job of
// the unit once steady state is attained, as fio's steadystate_check.
func (u *steadyUnit) tick(now int64, c []steady.Counters) {
	c = c[:0]
	for _, jr := range u.jobs {
		var k steady.Counters
		for d := range jr.prog.IOs {
			k.IOs += jr.prog.IOs[d].Load()
			k.Bytes += jr.prog.Bytes[d].Load()
		}
		k.ClatSum, k.ClatN = math.Float64frombits(jr.prog.ClatSum.Load()), jr.prog.ClatN.Load()
		k.Running = !jr.snap.ended.Load()
		c = append(c, k)
	}
	attained := u.check.Tick(now, c)
	r := u.check.Window().Result()
	for _, jr := range u.jobs {
		jr.snap.steady.Store(r)
		if attained {
			jr.kill.Store(true)
		}
	}
}

// watchSteady runs the group's steady-state checks once a second (fio's
// STEADYSTATE_MSEC), or once every fio 3.42 steadystate_check_interval,
// which checkSteadyGroups made the same for every job, from start until
// done is closed, then gives each job its unit's outcome.
func watchSteady(units []*steadyUnit, start time.Time, done <-chan struct{}) {
	t := time.NewTicker(steady.Period(units[0].jobs[0].job.SteadyState))
	defer t.Stop()
	var c []steady.Counters
	for {
		select {
		case <-done:
			for _, u := range units {
				r := u.check.Window().Result()
				for _, jr := range u.jobs {
					jr.res.SteadyState = r
				}
			}
			return
		case now := <-t.C:
			for _, u := range units {
				u.tick(int64(now.Sub(start)), c)
			}
		}
	}
}
