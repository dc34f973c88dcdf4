package run

import "github.com/gofio/gofio/jobfile"

// doesIO reports whether job j's engine moves data: every engine but
// fio's FIO_NOIO ones (cpuio).
func doesIO(j *jobfile.Job) bool {
	e, ok := jobfile.EngineByName(j.IOEngine)
	return !ok || !e.NoIO
}

// countIOJobs records how many jobs of group g do I/O, and ends the
// exit_on_io_done jobs at once when none does, as fio's cpuio finds no
// I/O thread running at its first request.
func (e *env) countIOJobs(g []*jobRun) {
	n := int64(0)
	for _, jr := range g {
		if doesIO(jr.job) {
			n++
		}
	}
	e.ioJobs.Store(n)
	if n == 0 {
		endOnIODone(g)
	}
}

// ioJobDone counts jr's end; when it was the group's last job doing I/O,
// the cpuio jobs with exit_on_io_done stop, as fio's cpuio does when
// fio_running_or_pending_io_threads finds none left.
func (e *env) ioJobDone(jr *jobRun, g []*jobRun) {
	if doesIO(jr.job) && e.ioJobs.Add(-1) == 0 {
		endOnIODone(g)
	}
}

func endOnIODone(g []*jobRun) {
	for _, jr := range g {
		if jr.job.ExitOnIODone {
			jr.kill.Store(true)
		}
	}
}
