package jobfile

import "fmt"

// checkOpenLoop applies open_loop='s rules: its timetable is rate_iops=
// (or rate=) of every direction the job issues, and it leaves no room for
// another clock of issue: latency_target's depth search or a replayed
// log's own times.
func checkOpenLoop(j *Job) (option, msg string) {
	if !j.OpenLoop {
		return "", ""
	}
	for d := DirRead; d < NumDirs; d++ {
		does := d == DirRead && j.RW.HasRead() || d == DirWrite && j.RW.HasWrite() || d == DirTrim && j.RW.HasTrim()
		if does && j.RateIOPS[d] == 0 && j.Rate[d] == 0 {
			return "open_loop", fmt.Sprintf("open_loop=1 issues I/Os on the timetable of rate_iops= (or rate=), and rw=%s issues %ss without one: give rate_iops= for every direction", j.RW, d)
		}
	}
	switch {
	case j.LatencyTarget.On():
		return "open_loop", "open_loop=1 cannot be combined with latency_target=: the depth search closes the loop"
	case j.IOLog.Read != "":
		return "open_loop", "open_loop=1 cannot be combined with read_iolog=: the log sets its own times"
	}
	return "", ""
}
