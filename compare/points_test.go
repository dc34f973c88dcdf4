package compare

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// TestParsePoints checks that every distinct point is parsed once, in plan
// order, that repeats and --compare pairs share their parse, and that a
// failing point is named in the error.
func TestParsePoints(t *testing.T) {
	sweeps, err := ParseSweeps([]string{"iodepth=1,8"}, func(k string) (string, error) { return k, nil })
	if err != nil {
		t.Fatal(err)
	}
	points := Plan(sweeps, &DefaultAB, 2)
	var calls []string
	parsed, err := ParsePoints(points, func(sets []string) ([]*jobfile.Job, error) {
		calls = append(calls, strings.Join(sets, " "))
		return []*jobfile.Job{{Name: strings.Join(sets, " ")}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 4 { // two depths x two policies; repeats share
		t.Errorf("parsed %d times (%q), want 4", len(calls), calls)
	}
	for _, p := range points {
		jobs := parsed.Jobs(p.Sets)
		if len(jobs) != 1 || jobs[0].Name != strings.Join(p.Sets, " ") {
			t.Errorf("%s: jobs %v", p, jobs)
		}
	}
	_, err = ParsePoints(points, func(sets []string) ([]*jobfile.Job, error) {
		if strings.Contains(strings.Join(sets, " "), "iodepth=8") {
			return nil, errors.New("bad value")
		}
		return nil, nil
	})
	if err == nil || !strings.Contains(err.Error(), "iodepth=8") || !strings.Contains(err.Error(), "bad value") {
		t.Errorf("ParsePoints error = %v, want the point and the cause", err)
	}
}

// TestConcat checks the whole-plan Result: jobs in order, the first run's
// version and start, the last run's end, disks and signal.
func TestConcat(t *testing.T) {
	t0 := time.Unix(100, 0)
	var c Concat
	c.Add(&report.Result{Version: "v", Start: t0, End: t0.Add(time.Second), Jobs: []*report.JobResult{{Name: "a"}}})
	c.Add(&report.Result{Version: "v2", Start: t0.Add(time.Hour), End: t0.Add(2 * time.Hour), Signal: "interrupt",
		Jobs: []*report.JobResult{{Name: "b"}, {Name: "c"}}})
	r := c.Result()
	var names []string
	for _, j := range r.Jobs {
		names = append(names, j.Name)
	}
	if got := strings.Join(names, ","); got != "a,b,c" {
		t.Errorf("jobs %s, want a,b,c", got)
	}
	if r.Version != "v" || !r.Start.Equal(t0) || !r.End.Equal(t0.Add(2*time.Hour)) || r.Signal != "interrupt" {
		t.Errorf("result %+v", r)
	}
}
