package run

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/twthread"
	"github.com/gofio/gofio/internal/clock"
	"github.com/gofio/gofio/internal/fiorand"
	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/iolog"
	"github.com/gofio/gofio/internal/iomem"
	"github.com/gofio/gofio/internal/joberr"
	"github.com/gofio/gofio/internal/lattarget"
	"github.com/gofio/gofio/internal/placement"
	"github.com/gofio/gofio/internal/target"
	"github.com/gofio/gofio/internal/threadsleep"
	"github.com/gofio/gofio/internal/verify"
	"github.com/gofio/gofio/internal/verifylog"
	"github.com/gofio/gofio/internal/zbd"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/sched"
)

// jobRun is one job of a Run: its plan, its result and its progress.
type jobRun struct {
	index      int
	job        *jobfile.Job
	targets    []*target.Target
	opener     engines.Opener
	res        *report.JobResult
	prog       *report.Progress
	seed       uint64
	started    bool
	ver        *verify.Verifier // nil without verify=
	bufs       *iogen.Buffers   // what the job writes (fio's buf_state and its companions)
	replan     bool             // its files are made by an earlier group: plan them when its group starts
	failed     *joberr.Error    // a target planning could not examine: the job fails at its start
	closed     bool             // closeTargets ran
	flow       *flowState       // flow=: the job's flow_id, nil without
	flowIssued atomic.Int64     // flow=: the I/Os the job counted in its flow
	kill       atomic.Bool      // set by another job's exitall: issue no more
	ended      chan struct{}    // closed when the job's goroutine is done (wait_for)
	waitees    []*jobRun        // wait_for: the jobs of the group this one starts after
	snap       jobSnapshot      // --status-interval's copies of res
	hang       *hangWatch       // io_timeout's tracker; nil when off
	endOnce    sync.Once        // end
	replay     *iolog.Log       // read_iolog=: the parsed log; nil without
	// lockSection is the index of the first job of its job section,
	// whose numjobs clones share lockfile='s locks.
	lockSection int
	zones       *zbd.Job // zonemode=zbd: the job's zone state; nil without
	merged      []byte   // merge_blktrace_file=: the merged trace, until written
}

// end marks the job's goroutine done, once: from the goroutine itself, or
// from the io_timeout watcher that took a stuck job over (hung.go).
func (jr *jobRun) end(wg *sync.WaitGroup) {
	jr.endOnce.Do(func() {
		jr.leaveFlow()
		jr.snap.ended.Store(true)
		close(jr.ended)
		wg.Done()
	})
}

// endUnstarted marks done a job that failed before its goroutine started:
// it leaves its flow and releases the jobs waiting for it.
func (jr *jobRun) endUnstarted() {
	jr.leaveFlow()
	close(jr.ended)
}

// env is what every job goroutine of a Run shares.
type env struct {
	opts  *Options
	stop  *atomic.Bool // set when ctx is cancelled
	warnM *sync.Mutex  // serialises writes to opts.Warn
	ownP  bool         // the running group's jobs each have a P (reserveProcs)
	// stopped is closed when the run is cancelled (wait_for stops waiting).
	stopped <-chan struct{}
	// exitRest is set by an exitall job with exit_what=all: later groups
	// do not start.
	exitRest atomic.Bool
	// fadviseWarned: a failed fadvise_hint was reported (once per run).
	fadviseWarned atomic.Bool
	ioJobs        atomic.Int64 // jobs of the running group that do I/O and have not ended (exit_on_io_done)
	group         []*jobRun    // the running group (exitall)

	startAt  time.Time // Options.StartAt until the first group waited for it
	startErr error     // ErrStartLate: the run stopped before any I/O
	// progStart is the zero of Progress.StartNano and EndNano.
	progStart time.Time
	// locks are lockfile='s locks (lockfile.go).
	locks target.LockRegistry
}

func (e *env) warnf(format string, args ...any) {
	if e.opts.Warn == nil {
		return
	}
	e.warnM.Lock()
	fmt.Fprintf(e.opts.Warn, format, args...)
	e.warnM.Unlock()
}

// lockedWriter serialises the loops' warning lines.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// jobDepth returns the queue depth the job really runs at: iodepth, not
// rounded (unlike fio 3.33's io_uring engine).
func jobDepth(j *jobfile.Job) int {
	if j.IODepth < 1 {
		return 1
	}
	return j.IODepth
}

// prepared is what prepare set up for a job: its engine, buffers, the
// queue depth it really runs at, and its thread.
type prepared struct {
	eng    engines.Engine
	arena  *iomem.Arena
	depth  int
	syncIO bool
	tid    int
	placed placement.Placed // what placement.Place changed of the thread
	// abandoned: io_timeout left requests with the kernel, which may still
	// write into the buffers; they stay mapped (and the engine open, when
	// the job's thread never came back) until the process exits.
	abandoned bool
	// keepBufs: the job's thread closed the engine but requests it could
	// not cancel may still write into the buffers, which stay mapped.
	keepBufs bool
}

// prepare locks the goroutine to its thread, pins it, maps the buffers and
// opens the engine. It runs on the job's own goroutine.
func (jr *jobRun) prepare(e *env) (*prepared, *joberr.Error) {
	j := jr.job
	p := &prepared{tid: unix.Gettid()}
	fail := jr.failure
	if j.Zones.Mode == "strided" && j.Zones.SkipPercent > 0 && j.SubjobNumber == 0 {
		e.warnf("gofio: job %s: zoneskip=%d%% runs as in fio 3.33, which reads it as a skip of 2^64-%d bytes: each zone starts %d bytes before the end of the zone range before it\n",
			j.Name, j.Zones.SkipPercent, j.Zones.SkipPercent+1, j.Zones.SkipPercent+1)
	}
	if je := placement.Place(j, jr.index, jr.targets, jr.rw(), e.warnf, &p.placed); je != nil {
		return p, je
	}
	maxBS := verifylog.ReplayMaxBS(j, jr.replay)
	depth := replayDepth(j, jr.replay)
	ar, err := iomem.New(depth, maxBS, j)
	if err != nil {
		// fio's job error is that of the call that failed (func=mmap,
		// shmget), ENOMEM without one.
		fn := "iomem allocation"
		var ae *iomem.Error
		if errors.As(err, &ae) {
			fn = ae.Fn
		}
		return p, fail(fmt.Sprintf("mem=%s iodepth=%d", j.Mem, depth), "buffers", fn, unix.Errno(joberr.ErrnoOf(err, unix.ENOMEM)), err)
	}
	p.arena = ar
	if err := placement.MemPolicy(j.NUMAMemPolicy, ar.Mem); err != nil {
		return p, fail("numa_mem_policy="+j.NUMAMemPolicy, "numa", "mbind", unix.Errno(joberr.ErrnoOf(err, unix.EINVAL)), err)
	}
	if j.RW.HasWrite() {
		// fio's init_io_u fills every io_u buffer of a writing job.
		for _, b := range ar.Bufs {
			jr.bufs.Fill(b, j.BSMin(jobfile.DirWrite))
		}
	}
	eng, depth, je := jr.openEngine(e, p, ar, depth)
	if je != nil {
		return p, je
	}
	p.eng, p.depth = eng, depth
	return p, nil
}

// failure is the job's error where, in op, from the call fn.
func (jr *jobRun) failure(where, op, fn string, errno unix.Errno, err error) *joberr.Error {
	return &joberr.Error{Job: jr.job.Name, Where: where, Op: op, Fn: fn, Errno: errno, Err: err}
}

// openEngine opens the job's engine on its targets and buffers at depth,
// through gofio's SQPOLL stand-in where the job uses it. A synchronous
// engine at a depth above 1 is opened again at depth 1, as fio caps it.
func (jr *jobRun) openEngine(e *env, p *prepared, ar *iomem.Arena, depth int) (engines.Engine, int, *joberr.Error) {
	j := jr.job
	fail := jr.failure
	fds := make([]int, len(jr.targets))
	paths := make([]string, len(jr.targets))
	for i, t := range jr.targets {
		fds[i], paths[i] = t.FD, t.Path
	}
	engineFail := func(op string, err error) *joberr.Error {
		return fail("ioengine="+j.IOEngine, op, "engine "+op, engineErrno(err), err)
	}
	setup := engines.Setup{Job: j, Files: fds, Paths: paths, Bufs: ar.Bufs, Depth: depth, OwnP: e.ownP, Info: e.opts.Info}
	opener := jr.opener
	if twthread.Use(j, e.opts.Compare) {
		watched := e.opts.now == nil && cmp.Or(j.IOTimeout, e.opts.IOTimeout) > 0
		opener = twthread.Opener(opener, clock.Func(e.opts.now), twthread.Watch{On: watched, Grace: hangGrace, Tick: hangTick})
	}
	eng, err := opener(setup)
	if err != nil {
		return nil, 0, engineFail("init", err)
	}
	if s, ok := eng.(syncEngine); ok && s.SyncIO() {
		p.syncIO = true
		if depth > 1 {
			e.warnf("note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1\n")
			if err := eng.Close(); err != nil {
				return nil, 0, engineFail("close", err)
			}
			depth = 1
			// fio sets its engine up once, at depth 1: its lines
			// were printed by the first opening.
			setup.Bufs, setup.Depth, setup.Info = ar.Bufs[:1], 1, nil
			if eng, err = opener(setup); err != nil {
				return nil, 0, engineFail("init", err)
			}
		}
	}
	return eng, depth, nil
}

// release closes the engine and unmaps the buffers.
func (p *prepared) release() error {
	if p.abandoned {
		return nil
	}
	if p.keepBufs {
		p.arena = nil
	}
	var errs []error
	if p.eng != nil {
		errs = append(errs, p.eng.Close())
		p.eng = nil
	}
	errs = append(errs, p.arena.Close())
	return errors.Join(errs...)
}

// newEventLoop builds the event loop of a prepared job.
func (jr *jobRun) newEventLoop(e *env, p *prepared) (*loop, error) {
	j := jr.job
	regions := make([]iogen.Region, len(jr.targets))
	for i, t := range jr.targets {
		regions[i] = t.Region
		regions[i].Name = t.Path
	}
	var gen *iogen.Offsets
	var err error
	if jr.replay != nil {
		// The log chooses every I/O: the generator only says which
		// directions the job has.
		gen = &iogen.Offsets{RW: verifylog.ReplayRW(jr.replay), Files: regions}
	} else if gen, err = iogen.NewOffsets(j, regions, jr.seed, jr.index+1); err != nil {
		return nil, err
	} else if jr.zones != nil {
		gen.SetZones(jr.zones)
	}
	cp, err := iogen.NewCmdprio(j, jr.index+1)
	if err != nil {
		return nil, err
	}
	depth := p.depth
	l := &loop{
		content: jr.bufs,
		job:     j,
		eng:     p.eng,
		thinkTime: loopThink{thinker: engineThinker(p.eng), thinkBlocksSet: j.ThinkBlocksSet(),
			thinks: j.Think.Time > 0 || engineThinker(p.eng) != nil || j.ThinkCycles > 0},
		ender:      engineEnder(p.eng),
		syncIO:     p.syncIO,
		fakeNow:    e.opts.now,
		tsc:        clock.ProcessTSC(),
		sleep:      e.opts.sleep,
		fadvise:    e.opts.fadvise,
		stop:       e.stop,
		kill:       &jr.kill,
		snap:       &jr.snap,
		verify:     loopVerify{auxPath: e.opts.AuxPath},
		poisson:    fiorand.NewRNG(jr.seed ^ 0x9015),
		res:        jr.res,
		prog:       jr.prog,
		q:          sched.NewQueue(depth, j.Policy()),
		batch:      sched.NewBatch(),
		slots:      make([]slot, depth),
		bufs:       p.arena.Bufs[:depth],
		files:      jr.targets,
		gen:        gen,
		zones:      jr.zones,
		pending:    make([]uint32, depth),
		depth:      depth,
		latTarget:  loopLatTarget{search: lattarget.New(j, depth), idle: make([]uint32, 0, depth)},
		loopConfig: newLoopConfig(j, depth, e.opts.Compare),
		flow:       loopFlow{state: jr.flow, count: &jr.flowIssued},
		ramping:    j.RampTime > 0 || j.RampSize > 0,
		fillRNG:    fiorand.NewRNG(jr.seed ^ 0xf111),
		cmdprio:    cp,
	}
	if jr.zones != nil {
		jr.zones.SetQuiesce(l.quiesceZones, !l.syncIO)
	}
	l.setOpenLoop()
	if jr.replay != nil {
		genesis := l.clock()
		if e.opts.now == nil {
			genesis -= int64(time.Since(e.progStart))
		}
		l.replay = verifylog.NewReplay(jr.replay, genesis, l.clock, l.replaySleep)
		l.hasRead, l.hasWrite = gen.RW.HasRead(), gen.RW.HasWrite()
	}
	if l.sfrEvery > 0 {
		l.sfr = target.NewSyncRanges(len(jr.targets))
	}
	l.locks = target.NewFileLocks(jr.job, jr.targets, jr.lockSection, &e.locks)
	l.pass.passSize, l.pass.ioSize = target.PassBytes(jr.targets), target.IOSize(j, jr.targets)
	if l.pass.passSize == 0 {
		l.invalidate = false
	}
	if e.opts.Warn != nil {
		l.warn = lockedWriter{mu: e.warnM, w: e.opts.Warn}
	}
	l.sample = e.opts.sample
	if tw, ok := p.eng.(*twthread.Engine); ok {
		l.tw = tw
	}
	l.setupVerify(j, jr.ver, regions, jr.index+1)
	// A harvest (tw_reap=all) or the final reap takes every CQE: room for all of them.
	l.cqes = make([]engines.Completion, depth)
	l.pass.passNr = 1
	if !j.TimeBased && jr.replay == nil {
		l.budget = target.BytesPerPass(j, jr.targets) * l.loops
	}
	l.bw, l.iops = newSamplers(j)
	var bwLog, iopsLog verifylog.RateLog
	l.logs, bwLog, iopsLog = verifylog.NewJobLogger(j, jr.res, l.noClat, l.noLat)
	l.bw.logTo(bwLog)
	l.iops.logTo(iopsLog)
	reserveSamples(j, jr.res, gen, l.bw.avg, l.iops.avg)
	return l, nil
}

// sleepStop sleeps d in slices, returning early when the run is stopped.
func sleepStop(e *env, d time.Duration) {
	for d > 0 && !e.stop.Load() {
		s := d
		if s > 50*time.Millisecond {
			s = 50 * time.Millisecond
		}
		e.opts.sleep(s)
		d -= s
	}
}

// runIO runs the job's I/O: its passes and their verify phases, or with
// verify_only its verify alone. verifiedLast says the last pass was
// verified already (verifyPasses).
func (jr *jobRun) runIO(e *env, l *loop) (verifyOnly, verifiedLast bool) {
	j, res := jr.job, jr.res
	verifyOnly = j.VerifyOnly && l.verify.ver != nil && l.hasWrite
	if verifyOnly {
		// fio's do_dry_run stands in for do_io, which sets the latency
		// depth its report shows: there is none.
		res.LatencyDepth = 0
		jr.verifyOnly(e, l)
	} else {
		jr.saveVerifyState(e, l)
		// fio's thread_main verifies after every loop's do_io, not once
		// after all of them: with loops=N a writing job's blocks are
		// read back N times, and io_size= past size= loops while its
		// writes and reads fall short of it.
		l.pass.verifyEachPass = l.verify.wlog != nil && !j.TimeBased && (l.loops > 1 || l.pass.ioSize > l.pass.passSize)
		l.run()
		l.stopKernelStages()
		l.stopKernelLocks()
		verifiedLast = l.verifyPasses(func() bool { return jr.verifyPass(e, l) })
		if err := l.verify.vstate.Close(); err != nil {
			e.warnf("gofio: job %s: verify_state_save: %v\n", j.Name, err)
		}
	}
	return verifyOnly, verifiedLast
}

// execute runs a prepared job to its end and fills its result.
func (jr *jobRun) execute(e *env, p *prepared) {
	j := jr.job
	res := jr.res
	defer threadsleep.Precise()() // the job's waits on its locked thread
	if j.StartDelay > 0 {
		sleepStop(e, j.StartDelay)
	}
	res.Start = time.Now()
	jr.started = true
	blocks, je := target.BlockInfos(j, jr.targets)
	if je != nil {
		failJob(e, jr, je)
		return
	}
	res.Blocks = blocks
	l, err := jr.newEventLoop(e, p)
	if err != nil {
		// plan checked the offset rules already (iogen.CheckOffsets).
		failJob(e, jr, &joberr.Error{Job: j.Name, Op: "offsets", Fn: "setup", Errno: unix.EINVAL, Err: err})
		return
	}
	if je := jr.startKernelStages(e, p, l); je != nil {
		failJob(e, jr, je)
		return
	}
	if je := jr.startKernelLocks(e, p, l); je != nil {
		failJob(e, jr, je)
		return
	}
	pinned, err := placement.PinMemory(j, e.opts.Info)
	if err != nil {
		// fio's thread_main skips the job's I/O without an error (and
		// without the latency depth its I/O loop sets).
		e.warnf("gofio: job %s: %v: the job does no I/O, as in fio\n", j.Name, err)
		res.LatencyDepth = 0
		return
	}
	defer placement.UnpinMemory(pinned)
	if j.ExecPrerun != "" {
		if err := execString(e, j, j.ExecPrerun, "prerun"); err != nil {
			// fio's thread_main skips the job's I/O without an error (and
			// without the latency depth its I/O loop sets).
			e.warnf("gofio: job %s: %v: the job does no I/O, as in fio\n", j.Name, err)
			res.LatencyDepth = 0
			return
		}
	}
	if j.PreRead {
		if je := target.PreRead(j, jr.targets); je != nil {
			failJob(e, jr, je)
			return
		}
	}
	res.FirstIO = time.Now()
	// The ETA line's planned span: a job with runtime= ends at its start
	// plus ramp_time and runtime (time_based jobs have no byte total).
	start := time.Since(e.progStart)
	jr.prog.StartNano.Store(int64(start))
	if j.Runtime > 0 {
		jr.prog.EndNano.Store(int64(start + j.RampTime + j.Runtime))
	}
	if jr.hang != nil {
		l.setHang(jr.hang)
	}
	if je := jr.openIOLog(l); je != nil {
		failJob(e, jr, je)
		return
	}
	verifyOnly, verifiedLast := jr.runIO(e, l)
	if !l.fatal && !verifyOnly {
		jr.endSync(l)
	}
	if !verifyOnly && !verifiedLast {
		jr.verifyPass(e, l)
	}
	if err := l.closeIOLog(); err != nil {
		e.warnf("gofio: job %s: write_iolog=%s: %v\n", j.Name, j.IOLog.Write, err)
	}
	jr.finish(e, p, l, true)
	if j.ExecPostrun != "" {
		if err := execString(e, j, j.ExecPostrun, "postrun"); err != nil {
			e.warnf("gofio: job %s: %v\n", j.Name, err)
		}
	}
}

// verifyPass runs the verify phase of a writing job with verify= after a
// pass over its files, unless the job failed or the run stopped, and
// reports whether the job may go on.
func (jr *jobRun) verifyPass(e *env, l *loop) bool {
	res := jr.res
	if l.verify.wlog == nil || l.fatal || res.Error != 0 || e.stop.Load() || l.pass.pastRuntime {
		return false
	}
	if hook := e.opts.beforeVerify; hook != nil {
		if err := hook(jr.job); err != nil {
			l.setError(joberr.ErrnoOf(err, unix.EIO), "verify setup", err)
		}
	}
	if res.Error == 0 {
		l.runVerify()
	}
	return !l.fatal && res.Error == 0 && !e.stop.Load()
}

// finish fills the job's result once its loop has ended: on the job's own
// thread (onThread), or on the io_timeout watcher's goroutine for a job
// whose thread is stuck in the kernel, which then has no thread CPU time
// or engine counters to read.
func (jr *jobRun) finish(e *env, p *prepared, l *loop, onThread bool) {
	j := jr.job
	res := jr.res
	l.stopKernelStages()
	l.stopKernelLocks()
	if l.tw != nil {
		res.EngineNotes = append(res.EngineNotes, l.tw.Note())
	}
	if n := l.gen.AbsOverflows; n > 0 {
		// fio logs "fio: zoned_abs sizes exceed file size" at each such
		// draw; gofio says it once, with the count.
		e.warnf("gofio: job %s: zoned_abs sizes exceed file size (%d draws past the end ended the file's loop)\n", j.Name, n)
	}
	if l.eagain > 0 {
		note := fmt.Sprintf("%d I/Os completed with EAGAIN and were resubmitted", l.eagain)
		res.EngineNotes = append(res.EngineNotes, note)
		e.warnf("%s: %s\n", j.Name, note)
	}
	if onThread {
		var ru unix.Rusage
		placement.GetrusageThread(&ru)
		placement.ThreadUsage(res, p.tid, &l.rusageStart, &ru)
	}
	res.Threads = append(res.Threads, placement.IOThreads(p.tid)...)
	if sr, ok := p.eng.(engines.StatsReporter); ok && onThread {
		st := sr.Stats()
		res.DroppedCQEs = st.DroppedCQEs
		res.EngineNotes = append(res.EngineNotes, st.Warnings...)
		if len(st.SetupFlags) > 0 {
			res.EngineNotes = append(res.EngineNotes, "setup flags: "+strings.Join(st.SetupFlags, "|"))
		}
		res.TaskRun = report.TaskRunOf(st.SetupFlags, res.SQThread)
		for _, w := range st.Warnings {
			e.warnf("%s: %s\n", j.Name, w)
		}
	}
	l.publish()
	if l.logs != nil {
		l.logs.Finish(uint64((l.ended - l.statsStart) / int64(time.Millisecond)))
	}
	res.Elapsed = time.Duration(l.ended - l.started)
	run := runtimeMsec(l.ended - l.statsStart)
	res.JobRuntime = run
	for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
		// fio updates a direction's runtime only when it moved bytes,
		// so a FIO_NOIO engine's (cpuio's) stays 0, and so its bw and
		// IOPS.
		if (l.gen.Uses(d) || (d == jobfile.DirRead && l.verify.verified)) && !l.noIO {
			res.Dirs[d].Runtime = run
		}
	}
	if jr.prog != nil {
		switch {
		case res.Error != 0:
			jr.prog.State.Store('X')
		case e.stop.Load():
			jr.prog.State.Store('K')
		default:
			jr.prog.State.Store('E')
		}
	}
}

// runtimeMsec rounds a run time up to whole milliseconds, as fio's
// update_runtime does (a 1 s run shows 1001msec).
func runtimeMsec(ns int64) time.Duration {
	us := (ns + 999) / 1000
	ms := (us + 999) / 1000
	return time.Duration(ms) * time.Millisecond
}

// goroutine is the body of a job's goroutine: one OS thread, locked before
// the engine opens, for the life of the engine. It signals ready once the
// engine is open (or failed to open, which ends only this job) and runs
// the job when start is closed. The job's files are closed when it ends,
// as fio closes them, so that the status line's f= drops.
func (jr *jobRun) goroutine(e *env, ready chan<- struct{}, start <-chan struct{}, wg *sync.WaitGroup) {
	defer jr.end(wg)
	runtime.LockOSThread()
	p, je := jr.prepare(e)
	// A thread whose affinity, nice value or credentials changed is not handed back to
	// the Go scheduler: the goroutine exits locked and the runtime ends it.
	if pl := &p.placed; !pl.Pinned && !pl.Niced && !pl.CredsSet && !pl.CgroupSet {
		defer runtime.UnlockOSThread()
	}
	if je != nil {
		failJob(e, jr, je)
	} else if e.opts.now == nil {
		jr.hang = newHangWatch(cmp.Or(jr.job.IOTimeout, e.opts.IOTimeout), p.depth)
		if jr.hang != nil {
			// Ask for a --status-interval copy at the first engine call,
			// in case the job sticks in the kernel before it is asked.
			jr.snap.want.Store(true)
		}
	}
	ready <- struct{}{}
	<-start
	jr.awaitWaitees(e)
	if je == nil && e.startErr == nil {
		if jr.hang != nil {
			jr.hang.jr, jr.hang.p, jr.hang.wg = jr, p, wg
		}
		jr.execute(e, p)
	}
	e.exitAll(jr, e.group)
	e.ioJobDone(jr, e.group)
	p.placed.Cgroup.Leave()
	if err := p.release(); err != nil {
		e.warnf("gofio: job %s: ioengine=%s: close: %v\n", jr.job.Name, jr.job.IOEngine, err)
	}
	closeTargets(e, jr)
	if p.placed.OldName != "" {
		if err := placement.NameThread(p.placed.OldName); err != nil {
			e.warnf("gofio: job %s: comm: %v\n", jr.job.Name, err)
		}
	}
}

// engineEnder returns the engine as an ender, or nil.
func engineEnder(e engines.Engine) ender {
	if t, ok := e.(ender); ok {
		return t
	}
	return nil
}

// engineThinker returns the engine as a thinker, or nil.
func engineThinker(e engines.Engine) thinker {
	if t, ok := e.(thinker); ok {
		return t
	}
	return nil
}
