package run

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines/twthread"
	"github.com/gofio/gofio/internal/blockdev"
	"github.com/gofio/gofio/internal/hostinfo"
	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/iolog"
	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/internal/steady"
	"github.com/gofio/gofio/internal/target"
	"github.com/gofio/gofio/internal/threadsleep"
	"github.com/gofio/gofio/internal/verifylog"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// Run runs jobs and returns their results, in job order.
//
// Jobs run in groups separated by stonewall (or a new job file): every job
// of a group runs at once, each on its own goroutine, OS thread and engine,
// and starts after a barrier that all of the group's engines have opened
// at. A group starts when the previous one has finished.
//
// Bad input (unknown engine, a directory or missing file without size=,
// O_DIRECT misalignment, a mounted device for a writing job, trim, a
// verify= that cannot be checked) is refused with an error and a nil
// Result, for every job, before any file is created or opened for
// writing. Everything that goes wrong once the run is under way ends only
// its own job, as in fio: a target that cannot be examined, opened or laid
// out (EACCES, ENOSPC, a path that went away), an engine or buffers that
// cannot be set up, an I/O error. Such a job is in Result.Jobs with
// JobResult.Error and ErrorText (fio's verror shape, "func=open(PATH),
// error=Permission denied"), a line naming job, option and path goes to
// Options.Warn, and the other jobs run; Run then returns a nil error.
//
// Cancelling ctx stops every job: no new I/O is issued after the next
// task-work item, in-flight I/O is drained and the partial Result comes
// back with Signal set to "interrupt" and a nil error.
func Run(ctx context.Context, jobs []*jobfile.Job, opts Options) (*report.Result, error) {
	if opts.Engines == nil {
		opts.Engines = DefaultEngines()
	}
	if opts.sleep == nil {
		opts.sleep = threadsleep.Sleep
	}
	if opts.CheckMountedWrite == nil {
		opts.CheckMountedWrite = blockdev.CheckMountedWrite
	}
	if opts.fadvise == nil {
		opts.fadvise = unix.Fadvise
	}
	res := &report.Result{Version: opts.Version, Release: opts.Release, Kernel: hostinfo.Kernel(), Start: time.Now(), GlobalOptions: jobfile.GlobalOptions(jobs), StartAt: opts.StartAt}
	runs, err := plan(jobs, &opts)
	if err != nil {
		return nil, err
	}
	// progStart is the zero of the Progress time stamps: the ETA line's
	// clock starts when OnProgress hands it the jobs.
	progStart := time.Now()
	if opts.OnProgress != nil {
		ps := make([]*report.Progress, len(runs))
		for i, jr := range runs {
			ps[i] = jr.prog
		}
		opts.OnProgress(ps)
	}

	var stop atomic.Bool
	e := &env{opts: &opts, stop: &stop, warnM: &sync.Mutex{}, stopped: ctx.Done(), startAt: opts.StartAt, progStart: progStart}
	done := make(chan struct{})
	watcher := make(chan struct{})
	go func() {
		defer close(watcher)
		select {
		case <-ctx.Done():
			stop.Store(true)
		case <-done:
		}
	}()
	defer func() {
		close(done)
		<-watcher
	}()

	if opts.StatusInterval > 0 && opts.OnStatus != nil {
		statusDone := make(chan struct{})
		statusExited := make(chan struct{})
		base := report.Result{Version: res.Version, Release: res.Release, Kernel: res.Kernel, Start: res.Start}
		go func() {
			defer close(statusExited)
			statusLoop(&opts, runs, base, time.Now(), statusDone)
		}()
		defer func() {
			close(statusDone)
			<-statusExited
		}()
	}
	var disks target.Disks
	for _, jr := range runs {
		disks.Add(jr.job, jr.targets)
	}
	// genesis is fio's genesis time: JSON "elapsed" counts from here, so
	// it takes in startdelay, ramp_time and the wait between groups.
	genesis := time.Now()
	for _, g := range groups(runs) {
		if stop.Load() || e.exitRest.Load() {
			break
		}
		orderGroup(g)
		e.group = g
		e.countIOJobs(g)
		runGroup(e, g)
	}
	res.Disks = disks.Stop()
	res.Elapsed = time.Since(genesis)
	if e.startErr != nil {
		return nil, e.startErr
	}
	for _, jr := range runs {
		if jr.started {
			res.Jobs = append(res.Jobs, jr.res)
		}
	}
	if stop.Load() {
		res.Signal = "interrupt"
	}
	return res, nil
}

// plan checks every job and resolves its targets without writing anything.
func plan(jobs []*jobfile.Job, opts *Options) ([]*jobRun, error) {
	fallback := uint64(time.Now().UnixNano())
	runs := make([]*jobRun, len(jobs))
	if err := verifylog.CheckReplayStdin(jobs); err != nil {
		return nil, err
	}
	// laidOut is the size each file will have once the jobs planned so
	// far have laid it out, as fio sets up every job's files in order
	// before any runs: offset=N% and offset_increment=N% of a later job
	// are percentages of it.
	laidOut := map[string]uint64{}
	for i := range jobs {
		jr, err := planJob(jobs, i, opts, laidOut, fallback)
		if err != nil {
			return nil, err
		}
		runs[i] = jr
	}
	if err := planZones(runs, opts.Warn); err != nil {
		return nil, err
	}
	if err := steady.CheckGroups(jobs); err != nil {
		return nil, err
	}
	if err := target.CheckSpace(plannedTargets(runs)); err != nil {
		return nil, err
	}
	planFlows(runs)
	planLockSections(runs)
	ws := make([]iogen.WorkingSetJob, len(runs))
	for i, jr := range runs {
		ws[i] = iogen.WorkingSetJob{Job: jr.job, Gen: jr.bufs, Size: jr.job.Size}
	}
	iogen.InitWorkingSet(ws)
	return runs, nil
}

// planJob checks job i of jobs and plans its run: its targets (or the log
// it replays), verify, engine, seeds and buffers, and its result's fixed
// fields. fallback seeds a job whose seed is left to the clock.
func planJob(jobs []*jobfile.Job, i int, opts *Options, laidOut map[string]uint64, fallback uint64) (*jobRun, error) {
	j := jobs[i]
	if j == nil {
		return nil, fmt.Errorf("job %d is nil", i)
	}
	if err := checkJob(j); err != nil {
		return nil, err
	}
	if opts.Warn != nil {
		for _, n := range j.SPRandomNotes() {
			fmt.Fprintln(opts.Warn, n) // fio's log_info, on stdout
		}
	}
	if _, err := iogen.NewCmdprio(j, i+1); err != nil {
		// fio finds these when the engine starts; gofio before
		// anything is written.
		return nil, err
	}
	if err := target.CheckDev(j); err != nil {
		return nil, err
	}
	op, ok := opts.Engines[j.IOEngine]
	if !ok {
		return nil, fmt.Errorf("%s: ioengine=%s is not available (have %s)", j.Name, j.IOEngine, engineNames(opts))
	}
	var ts []*target.Target
	var failed *joberr.Error
	var replayLog *iolog.Log
	var merged []byte
	var err error
	if j.IOLog.Read != "" {
		if j.IOLog.Write != "" && opts.Warn != nil {
			fmt.Fprintf(opts.Warn, "fio: read iolog overrides write_iolog\n")
		}
		if !verifylog.WrittenBefore(jobs[:i], verifylog.ReplayPath(j)) {
			replayLog, ts, merged, err = verifylog.PlanReplay(j, opts.Warn, opts.CheckMountedWrite)
		}
	} else {
		ts, failed, err = target.PlanJob(j, i+1, opts.CheckMountedWrite, laidOut)
	}
	replan := false
	if err != nil {
		if j.IOLog.Read != "" || j.CreateSerialize || !target.MadeByEarlier(jobs[:i], j) {
			return nil, err
		}
		// With create_serialize=0 fio sets a job's files up when the
		// job starts, so a later group may read or verify what an
		// earlier one writes (fio's surface-scan.fio); so does gofio.
		replan = true
	}
	ver, err := verifylog.NewVerifier(j, i)
	if err != nil {
		return nil, err
	}
	jr := &jobRun{
		index:   i,
		job:     j,
		targets: ts,
		opener:  op,
		prog:    &report.Progress{},
		seed:    iogen.JobSeed(j, i, fallback),
		ver:     ver,
		failed:  failed,
		replay:  replayLog,
		merged:  merged,
		bufs:    iogen.NewBuffers(j, i+1),
		replan:  replan,
		res: &report.JobResult{
			Job:          j,
			Name:         j.Name,
			GroupID:      j.GroupID,
			Members:      1,
			Pid:          os.Getpid(),
			LatencyDepth: replayDepth(j, replayLog),
			Policy:       j.Policy().String(),
			Reap:         j.ReapName(opts.Compare),
			SQThread:     sqThread(j, opts.Compare),
		},
	}
	jr.prog.State.Store('P')
	switch {
	case replayLog != nil:
		jr.prog.TotalBytes.Store(replayLog.Bytes)
	case !j.TimeBased:
		jr.prog.TotalBytes.Store(target.BytesPerPass(j, ts))
	}
	return jr, nil
}

func engineNames(opts *Options) string {
	var names []string
	for n := range opts.Engines {
		names = append(names, n)
	}
	sort.Strings(names)
	return fmt.Sprint(names)
}

// checkJob refuses what the run core does not do.
func checkJob(j *jobfile.Job) error {
	if err := j.UnrunError(); err != nil {
		return err
	}
	if err := target.CheckZoned(j); err != nil {
		return err
	}
	switch {
	case !j.RW.HasRead() && !j.RW.HasWrite() && !j.RW.HasTrim():
		return fmt.Errorf("%s: rw=%q is not a known pattern", j.Name, j.RW)
	case j.MaxBS() == 0:
		return fmt.Errorf("%s: bs=0", j.Name)
	case j.FillDevice && j.RW.HasRead():
		return fmt.Errorf("%s: fill_device with rw=%s: gofio fills only with jobs that write and do not read", j.Name, j.RW)
	case j.FillDevice && j.RW.IsRandom() && j.Size == 0 && j.SizePercent == 0 && j.FileSizeMin == 0:
		// fio 3.33 draws the offsets over 2^64 bytes and fails with EINVAL.
		return fmt.Errorf("%s: fill_device with rw=%s needs size= to draw random offsets from (fio 3.33 fails with EINVAL)", j.Name, j.RW)
	}
	return target.CheckUnlinkEachLoop(j)
}

// replanTargets plans the targets of job jr at the start of its group,
// after the earlier groups made its files; a failure fails the job.
func replanTargets(e *env, jr *jobRun) {
	j := jr.job
	ts, failed, err := target.PlanJob(j, jr.index+1, e.opts.CheckMountedWrite, nil)
	switch {
	case err != nil:
		jr.failed = &joberr.Error{Job: j.Name, Op: "set up files", Fn: "setup_files", Errno: unix.ENOENT, Err: err}
	case failed != nil:
		jr.failed = failed
	default:
		jr.targets = ts
		if !j.TimeBased {
			jr.prog.TotalBytes.Store(target.BytesPerPass(j, ts))
		}
	}
}

// groups splits the jobs where one waits for the previous ones: stonewall
// on a job's first clone, or the start of a new job file.
func groups(runs []*jobRun) [][]*jobRun {
	var out [][]*jobRun
	for i, jr := range runs {
		j := jr.job
		brk := i == 0 ||
			(j.Stonewall && j.SubjobNumber == 0) ||
			j.JobFileIndex != runs[i-1].job.JobFileIndex
		if brk {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], jr)
	}
	return out
}

// openGroup readies group g's jobs: each one's targets laid out and
// opened (added to *opened, which the caller closes), its replay log
// loaded; it returns those that run, having ended the others (failed,
// stopped during layout, or create_only).
func openGroup(e *env, g []*jobRun, opened *[]*jobRun) []*jobRun {
	fill := make([]byte, 1<<20)
	var runnable []*jobRun
	for _, jr := range g {
		if jr.replan {
			replanTargets(e, jr)
		}
		if jr.failed != nil {
			failJob(e, jr, jr.failed)
			jr.endUnstarted()
			continue
		}
		if je := jr.loadReplay(e.opts.Warn, e.opts.CheckMountedWrite); je != nil {
			failJob(e, jr, je)
			jr.endUnstarted()
			continue
		}
		if je := jr.writeMerged(); je != nil {
			failJob(e, jr, je)
			jr.endUnstarted()
			continue
		}
		*opened = append(*opened, jr)
		stopped, je := openJobTargets(e, jr, fill)
		if je != nil {
			failJob(e, jr, je)
			jr.endUnstarted()
			continue
		}
		if stopped {
			// As fio's job whose layout a terminate cut short, it is
			// reported without I/O and without an error.
			jr.started = true
			jr.prog.State.Store('E')
			closeTargets(e, jr)
			jr.endUnstarted()
			continue
		}
		if jr.job.CreateOnly {
			// fio's setup_files marks a create_only job done once its
			// files are laid out: it reports no I/O.
			jr.started = true
			jr.prog.State.Store('E')
			closeTargets(e, jr)
			jr.endUnstarted()
			continue
		}
		runnable = append(runnable, jr)
	}
	return runnable
}

// runGroup lays out and opens the group's files, starts one goroutine per
// job, releases them together once every engine is open, and waits. A job
// whose targets or engine cannot be set up ends with its error; the others
// run.
func runGroup(e *env, g []*jobRun) {
	var opened []*jobRun
	defer func() {
		for _, jr := range opened {
			closeTargets(e, jr)
		}
	}()
	runnable := openGroup(e, g, &opened)
	if len(runnable) == 0 {
		return
	}
	threads := len(runnable)
	for _, jr := range runnable {
		if jr.job.KernelSQPoll() {
			// Its SQPOLL goroutine (twthread) or the io_uring engine's
			// stand-in for a refused SQPOLL needs a P too, while the
			// job's thread spins in its reaps.
			threads++
		}
	}
	e.ownP = reserveProcs(threads)
	ready := make(chan struct{}, len(runnable))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, jr := range runnable {
		wg.Add(1)
		go jr.goroutine(e, ready, start, &wg)
	}
	for range runnable {
		<-ready
	}
	waitStart(e)
	var watched []*jobRun
	for _, jr := range runnable {
		if jr.hang != nil {
			watched = append(watched, jr)
		}
	}
	if len(watched) > 0 {
		done := make(chan struct{})
		defer close(done)
		go watchHangs(e, watched, done)
	}
	if units := steady.Units(steadyJobs(runnable), 0); len(units) > 0 {
		done, exited := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(exited)
			steady.Watch(units, time.Now(), done)
		}()
		defer func() {
			close(done)
			<-exited
		}()
	}
	close(start)
	wg.Wait()
}

// maxReservedProcs bounds the GOMAXPROCS reserveProcs sets.
const maxReservedProcs = 1024

// reserveProcs raises GOMAXPROCS, never lowering it, so that each of n job
// goroutines (each locked to its thread, like fio's job threads) can hold a
// P of its own, with one to spare for the rest of the program: the signal
// handler, the status line, the group's wait. It reports whether it could;
// only then may the jobs' engines wait without handing their P back
// (engines.Setup.OwnP). Past maxReservedProcs jobs it leaves GOMAXPROCS as
// it is and the engines keep the runtime's hand-off.
func reserveProcs(n int) bool {
	want := n + 1
	if want > maxReservedProcs {
		return false
	}
	// Set it even when it is already large enough: an explicit setting
	// also stops the runtime from lowering it later to follow a changed
	// cgroup CPU limit.
	runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), want))
	return true
}

// openJobTargets lays out and opens a job's files, counting them in the
// job's Progress.OpenFiles (the f= of the status line; the null engine's
// files count too, as in fio). stopped says the run was stopped during
// the layout: nothing is opened then.
func openJobTargets(e *env, jr *jobRun, fill []byte) (stopped bool, je *joberr.Error) {
	if jr.replay == nil {
		// fio neither sizes nor lays out a replay's files.
		lo := target.Layout{Job: jr.job, Targets: jr.targets, Fill: fill, Bufs: jr.bufs, Stop: e.stop,
			Info: e.opts.Info, Warnf: e.warnf, Notes: &jr.res.EngineNotes}
		if stopped, je := lo.Run(); stopped || je != nil {
			return stopped, je
		}
	}
	for _, t := range jr.targets {
		if je := target.Open(jr.job, t, jr.rw(), e.opts.fadvise, e.fadviseHintFailed); je != nil {
			je.InIO = true // fio opens the file for the job's first I/O
			return false, je
		}
		jr.prog.OpenFiles.Add(1)
	}
	return false, nil
}

// closeTargets closes a job's files, takes them off its Progress.OpenFiles
// and unlinks, with unlink=1, those that gofio created. It runs when the
// job ends, and again, doing nothing, when its group ends.
func closeTargets(e *env, jr *jobRun) {
	if jr.closed {
		return
	}
	jr.closed = true
	target.Close(jr.job, jr.targets, e.warnf)
	jr.prog.OpenFiles.Store(0)
}

// sqThread names what plays the SQ thread of j for report.JobResult:
// report.SQGoroutine where twthread.Use says so, report.SQKernel for
// another io_uring job with sqthread_poll=1, report.SQNone otherwise.
func sqThread(j *jobfile.Job, compare bool) string {
	switch {
	case twthread.Use(j, compare):
		return report.SQGoroutine
	case j.KernelSQPoll():
		return report.SQKernel
	}
	return report.SQNone
}
