package steady

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// Job is one running job as steady-state detection sees it: its options,
// the counters it publishes, and where the check leaves its outcome.
type Job struct {
	Job  *jobfile.Job
	Res  *report.JobResult // takes the unit's window when the group ends
	Prog *report.Progress  // the job's published counters
	// Ended says the job's result is final; Status takes the window as of
	// each check (--status-interval's copy); Kill is set to end the job
	// once steady state is attained.
	Ended  *atomic.Bool
	Status *atomic.Pointer[report.SteadyState]
	Kill   *atomic.Bool
}

// Unit is one reporting unit of steady-state detection: a job, or with
// group_reporting the jobs of its reporting group, which fio checks
// together and ends together.
type Unit struct {
	jobs  []Job
	check *Group
}

// errGroup is fio's refusal of a reporting group whose jobs differ in
// their steady-state options.
var errGroup = errors.New("job rejected: steadystate options must be consistent within reporting groups")

// CheckGroups refuses, as fio's td_steadystate_init, jobs of one
// reporting group (one group_id) whose steadystate options differ, one of
// them having none included; and as fio 3.42's fixup_options, a check
// interval that differs between two jobs of the run, or that a job's
// duration does not suit (SteadyState.Check).
func CheckGroups(jobs []*jobfile.Job) error {
	first := map[int]*jobfile.Job{}
	for _, j := range jobs {
		if msg := j.SteadyState.Check(); msg != "" {
			return &jobfile.Error{File: j.File, Line: j.Line, Option: "steadystate_check_interval", Msg: msg}
		}
		if f := jobs[0]; f.SteadyState.Interval != j.SteadyState.Interval {
			return &jobfile.Error{File: j.File, Line: j.Line, Option: "steadystate_check_interval",
				Msg: fmt.Sprintf("fio: conflicting ss_check_interval: %d and %d, must be globally equal",
					f.SteadyState.Interval.Microseconds(), j.SteadyState.Interval.Microseconds())}
		}
		f, ok := first[j.GroupID]
		if !ok {
			first[j.GroupID] = j
			continue
		}
		if key(f) != key(j) {
			return &jobfile.Error{File: j.File, Line: j.Line, Option: "steadystate", Msg: errGroup.Error()}
		}
	}
	return nil
}

// key is what fio compares of two jobs' steady-state set-ups: none at all
// when detection is off.
func key(j *jobfile.Job) jobfile.SteadyState {
	s := j.SteadyState
	if !s.On() {
		return jobfile.SteadyState{}
	}
	s.Duration = time.Duration(s.Seconds()) * time.Second
	return s
}

// Units groups the jobs of a run group that detect steady state into
// units, each with its check starting at epoch (ns).
func Units(g []Job, epoch int64) []*Unit {
	var units []*Unit
	byGroup := map[int]*Unit{}
	for _, sj := range g {
		j := sj.Job
		if !j.SteadyState.On() {
			continue
		}
		if j.GroupReporting {
			if u, ok := byGroup[j.GroupID]; ok {
				u.jobs = append(u.jobs, sj)
				continue
			}
		}
		u := &Unit{jobs: []Job{sj}}
		if j.GroupReporting {
			byGroup[j.GroupID] = u
		}
		units = append(units, u)
	}
	for _, u := range units {
		epochs := make([]int64, len(u.jobs))
		for i, sj := range u.jobs {
			// fio's epoch moves to the end of ramp_time, and
			// steadystate_ramp_time counts from there.
			epochs[i] = epoch + int64(sj.Job.RampTime)
		}
		u.check = NewGroup(u.jobs[0].Job.SteadyState, epochs)
	}
	return units
}

// tick takes one steady-state sample of the unit at now (ns since the
// group started) from its jobs' published counters, and ends every job of
// the unit once steady state is attained, as fio's steadystate_check.
func (u *Unit) tick(now int64, c []Counters) {
	c = c[:0]
	for _, sj := range u.jobs {
		var k Counters
		for d := range sj.Prog.IOs {
			k.IOs += sj.Prog.IOs[d].Load()
			k.Bytes += sj.Prog.Bytes[d].Load()
		}
		k.ClatSum, k.ClatN = math.Float64frombits(sj.Prog.ClatSum.Load()), sj.Prog.ClatN.Load()
		k.Running = !sj.Ended.Load()
		c = append(c, k)
	}
	attained := u.check.Tick(now, c)
	r := u.check.Window().Result()
	for _, sj := range u.jobs {
		sj.Status.Store(r)
		if attained {
			sj.Kill.Store(true)
		}
	}
}

// Watch runs the group's steady-state checks once a second (fio's
// STEADYSTATE_MSEC), or once every fio 3.42 steadystate_check_interval,
// which CheckGroups made the same for every job, from start until done is
// closed, then gives each job its unit's outcome.
func Watch(units []*Unit, start time.Time, done <-chan struct{}) {
	t := time.NewTicker(Period(units[0].jobs[0].Job.SteadyState))
	defer t.Stop()
	var c []Counters
	for {
		select {
		case <-done:
			for _, u := range units {
				r := u.check.Window().Result()
				for _, sj := range u.jobs {
					sj.Res.SteadyState = r
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
