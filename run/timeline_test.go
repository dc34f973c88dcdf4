package run

import (
	"fmt"
	"testing"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// timeline sums up, for a run on a clock that ticks once per reading,
// what depends on every clock reading and on the order items run in: the
// tw wait, slat, clat and lat statistics and the submit, complete and IO
// depths maps.
func timeline(r *report.JobResult) string {
	st := func(s report.Stat) string { return fmt.Sprintf("%d/%d/%d/%.9g/%.9g", s.N, s.Min, s.Max, s.Mean, s.S) }
	d := r.Dirs[jobfile.DirRead]
	return fmt.Sprintf("tw %s slat %s clat %s lat %s depth %v submit %v complete %v",
		st(r.TWWait), st(d.Slat), st(d.Clat), st(d.Lat), r.IODepth, r.Submit, r.Complete)
}

// TestTaskWorkTimeline holds the task-work model's timeline on the null
// engine to what the loop gave before drive ran a slot's heavy item
// without queueing it (when the queue was empty, so it would run next) and
// before the queue held a completion added to an empty queue off its lists
// (gofio 47c2588): with one tick per clock reading, every tw wait, slat,
// clat and lat sample and every map count is as it was, at depths 1, 2 and
// 8, under both policies and both reap modes.
func TestTaskWorkTimeline(t *testing.T) {
	want := map[string]string{
		"qd1/priority=true/tw_reap=fio":  "tw 2000/0/0/0/0 slat 0/0/0/0/0 clat 2000/1/1/1/0 lat 2000/2/2/2/0 depth [2000 0 0 0 0 0 0] submit [0 0 0 0 0 0 0] complete [0 0 0 0 0 0 0]",
		"qd1/priority=true/tw_reap=all":  "tw 2000/0/0/0/0 slat 0/0/0/0/0 clat 2000/1/1/1/0 lat 2000/2/2/2/0 depth [2000 0 0 0 0 0 0] submit [0 0 0 0 0 0 0] complete [0 0 0 0 0 0 0]",
		"qd1/priority=false/tw_reap=fio": "tw 2000/0/0/0/0 slat 0/0/0/0/0 clat 2000/1/1/1/0 lat 2000/2/2/2/0 depth [2000 0 0 0 0 0 0] submit [0 0 0 0 0 0 0] complete [0 0 0 0 0 0 0]",
		"qd1/priority=false/tw_reap=all": "tw 2000/0/0/0/0 slat 0/0/0/0/0 clat 2000/1/1/1/0 lat 2000/2/2/2/0 depth [2000 0 0 0 0 0 0] submit [0 0 0 0 0 0 0] complete [0 0 0 0 0 0 0]",
		"qd2/priority=true/tw_reap=fio":  "tw 2000/0/0/0/0 slat 2000/1/2/1.9995/0.9995 clat 2000/2/2/2/0 lat 2000/3/4/3.9995/0.9995 depth [2000 0 0 0 0 0 0] submit [0 2000 0 0 0 0 0] complete [0 2000 0 0 0 0 0]",
		"qd2/priority=true/tw_reap=all":  "tw 2000/0/0/0/0 slat 2000/1/1/1/0 clat 2000/1/1/1/0 lat 2000/2/2/2/0 depth [2000 0 0 0 0 0 0] submit [0 2000 0 0 0 0 0] complete [0 2000 0 0 0 0 0]",
		"qd2/priority=false/tw_reap=fio": "tw 2000/0/0/0/0 slat 2000/1/2/1.9995/0.9995 clat 2000/2/2/2/0 lat 2000/3/4/3.9995/0.9995 depth [2000 0 0 0 0 0 0] submit [0 2000 0 0 0 0 0] complete [0 2000 0 0 0 0 0]",
		"qd2/priority=false/tw_reap=all": "tw 2000/1/2/1.5/500 slat 2000/1/1/1/0 clat 2000/2/3/2.5/500 lat 2000/3/4/3.5/500 depth [2000 0 0 0 0 0 0] submit [0 2000 0 0 0 0 0] complete [0 2000 0 0 0 0 0]",
		"qd8/priority=true/tw_reap=fio":  "tw 2000/0/0/0/0 slat 2000/1/2/1.9995/0.9995 clat 2000/2/8/2.003/35.982 lat 2000/3/10/4.0025/36.9875 depth [2000 0 0 0 0 0 0] submit [0 2000 0 0 0 0 0] complete [0 2000 0 0 0 0 0]",
		"qd8/priority=true/tw_reap=all":  "tw 2000/0/0/0/0 slat 2000/1/1/1/0 clat 2000/1/1/1/0 lat 2000/2/2/2/0 depth [2000 0 0 0 0 0 0] submit [0 2000 0 0 0 0 0] complete [0 2000 0 0 0 0 0]",
		"qd8/priority=false/tw_reap=fio": "tw 2000/0/12/9.8495/6623.6995 slat 2000/1/3/2.856/248.528 clat 2000/8/20/11.8525/27037.4875 lat 2000/11/23/14.7085/26627.0555 depth [2000 0 0 0 0 0 0] submit [0 2000 0 0 0 0 0] complete [0 2000 0 0 0 0 0]",
		"qd8/priority=false/tw_reap=all": "tw 2000/7/14/10.5/10500 slat 2000/1/1/1/0 clat 2000/8/15/11.5/10500 lat 2000/9/16/12.5/10500 depth [2000 0 0 0 0 0 0] submit [0 2000 0 0 0 0 0] complete [0 2000 0 0 0 0 0]",
	}
	for _, depth := range []int{1, 2, 8} {
		for _, prio := range []bool{true, false} {
			for _, reap := range []string{"fio", "all"} {
				name := fmt.Sprintf("qd%d/priority=%v/tw_reap=%s", depth, prio, reap)
				j := nullJob(t, 2000, depth, prio)
				j.TWReap = reap
				clock := &fakeClock{step: 1}
				r := mustRun(t, []*jobfile.Job{j}, clock.opts()).Jobs[0]
				got := timeline(r)
				if w := want[name]; got != w {
					t.Errorf("%s:\n got %s\nwant %s", name, got, w)
				}
			}
		}
	}
}
