package steady

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// TestCheckGroups checks fio's refusals: jobs of one reporting group
// whose steady-state set-ups differ (one without any included), and fio
// 3.42 intervals that differ between jobs; jobs of other groups may
// differ, and durations that truncate to the same seconds are the same.
func TestCheckGroups(t *testing.T) {
	iops := cfg(true, false, false, 10, 5)
	bw := cfg(false, false, false, 10, 5)
	longer := iops
	longer.Duration += 300 * time.Millisecond
	job := func(group int, s jobfile.SteadyState) *jobfile.Job {
		s.Interval = time.Second
		return &jobfile.Job{GroupID: group, SteadyState: s}
	}
	for _, c := range []struct {
		name string
		jobs []*jobfile.Job
		bad  bool
	}{
		{"same", []*jobfile.Job{job(0, iops), job(0, iops)}, false},
		{"truncated", []*jobfile.Job{job(0, iops), job(0, longer)}, false},
		{"other groups", []*jobfile.Job{job(0, iops), job(1, bw), job(2, jobfile.SteadyState{})}, false},
		{"criteria", []*jobfile.Job{job(0, iops), job(0, bw)}, true},
		{"one off", []*jobfile.Job{job(0, iops), job(0, jobfile.SteadyState{})}, true},
	} {
		err := CheckGroups(c.jobs)
		var je *jobfile.Error
		if got := err != nil; got != c.bad || (c.bad && (!errors.As(err, &je) || je.Msg != errGroup.Error())) {
			t.Errorf("%s: %v, want refused %v", c.name, err, c.bad)
		}
	}
	a, b := job(0, iops), job(1, iops)
	b.SteadyState.Interval = 2 * time.Second
	if err := CheckGroups([]*jobfile.Job{a, b}); err == nil {
		t.Errorf("intervals 1s and 2s: accepted")
	}
}

// TestUnits checks the reporting units: a job alone, or with
// group_reporting every job of its group in one unit; jobs without
// steady state have none.
func TestUnits(t *testing.T) {
	s := cfg(true, false, false, 10, 5)
	var jobs []Job
	for _, j := range []*jobfile.Job{
		{Name: "a", SteadyState: s},
		{Name: "b", SteadyState: s, GroupReporting: true, GroupID: 1},
		{Name: "c"},
		{Name: "d", SteadyState: s, GroupReporting: true, GroupID: 1},
		{Name: "e", SteadyState: s, GroupID: 1},
	} {
		jobs = append(jobs, Job{Job: j, Res: &report.JobResult{}, Prog: &report.Progress{}})
	}
	var got [][]string
	for _, u := range Units(jobs, 0) {
		var names []string
		for _, sj := range u.jobs {
			names = append(names, sj.Job.Name)
		}
		got = append(got, names)
	}
	if want := [][]string{{"a"}, {"b", "d"}, {"e"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("units %v, want %v", got, want)
	}
}
