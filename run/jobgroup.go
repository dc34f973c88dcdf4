package run

// This file holds the rules between the jobs of a group: their order,
// wait_for=, and exitall/exit_what.

// orderGroup prepares wait_for and exitall for the jobs of one run group:
// each job gets a channel closed when it ends, and the list of jobs it
// waits for (every clone of its waitee in the group; a waitee of an
// earlier group has already ended).
func orderGroup(g []*jobRun) {
	for _, jr := range g {
		jr.ended = make(chan struct{})
	}
	for _, jr := range g {
		jr.waitees = nil
		if w := jr.job.WaitFor; w != "" {
			for _, o := range g {
				if o != jr && o.job.Name == w {
					jr.waitees = append(jr.waitees, o)
				}
			}
		}
	}
}

// awaitWaitees blocks until every job jr waits for (wait_for=) has ended,
// or the run is stopped.
func (jr *jobRun) awaitWaitees(e *env) {
	for _, w := range jr.waitees {
		select {
		case <-w.ended:
		case <-e.stopped:
			return
		}
	}
}

// exitAll ends the other jobs when jr, with exitall, ends: those of its
// reporting group (exit_what=group), every running job (stonewall), or
// every job of the run, later groups included (all), as fio's
// fio_terminate_threads.
func (e *env) exitAll(jr *jobRun, group []*jobRun) {
	j := jr.job
	if j.ExitAllOnError && jr.res != nil && jr.res.Error != 0 {
		// exitall_on_error: a job that failed ends every job, later
		// groups included (fio's TERMINATE_ALL).
		e.exitRest.Store(true)
		for _, o := range group {
			o.kill.Store(true)
		}
		return
	}
	if !j.ExitAll {
		return
	}
	switch j.ExitWhat {
	case "all":
		e.exitRest.Store(true)
		fallthrough
	case "stonewall":
		for _, o := range group {
			o.kill.Store(true)
		}
	default:
		for _, o := range group {
			if o.job.GroupID == j.GroupID {
				o.kill.Store(true)
			}
		}
	}
}
