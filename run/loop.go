package run

import (
	"io"
	"math"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/engines/twthread"
	"github.com/gofio/gofio/internal/clock"
	"github.com/gofio/gofio/internal/fiorand"
	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/internal/klock/lockbpf"
	"github.com/gofio/gofio/internal/ktrace"
	"github.com/gofio/gofio/internal/lattarget"
	"github.com/gofio/gofio/internal/openloop"
	"github.com/gofio/gofio/internal/placement"
	"github.com/gofio/gofio/internal/target"
	"github.com/gofio/gofio/internal/verify"
	"github.com/gofio/gofio/internal/verifylog"
	"github.com/gofio/gofio/internal/zbd"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
	"github.com/gofio/gofio/sched"
)

// slot is the state of one I/O slot: what it is doing and its time stamps.
// A slot index is what travels to the engine as user data.
type slot struct {
	op      engines.Op
	dir     jobfile.Dir
	file    int32
	off     uint64 // offset of the current (possibly remainder) request
	length  uint32 // full length of the I/O
	done    uint32 // bytes already transferred (short I/O requeue)
	start   int64  // prepared (fio start_time)
	issue   int64  // submitted (fio issue_time)
	res     int32  // result of the harvested CQE
	zeroes  bool   // a read of a block trim verify trimmed: must be zeroes (trim_verify_zero)
	slat    int64  // accounted slat, -1 when none was taken
	ramp    bool   // issued during ramp_time: no slat
	requeue bool   // the next heavy item resubmits the remainder
	verify  bool   // a verify_backlog read: checked on completion
	retries uint8  // -EAGAIN completions resubmitted so far
	ioprio  uint16 // cmdprio's ioprio for this I/O, 0 for none
	prioIdx uint8  // index of its priority in the direction's per-priority stats
	flight  bool   // queued to the engine and its CQE not yet harvested (fio's IO_U_F_FLIGHT)
	zone    bool   // holds its zonemode=zbd zone's lock until harvested (zbd.Job.Holds)
}

// heldIO is an I/O serialize_overlap put back because it overlaps one in
// flight: fio's requeued io_u, which the next issue takes before drawing a
// new one.
type heldIO struct {
	valid bool
	dir   jobfile.Dir
	file  int
	off   uint64
	n     uint64
}

// maxEAGAINRetries bounds how often one I/O that completes with -EAGAIN
// (nowait, a busy device) is resubmitted before the error ends the job.
const maxEAGAINRetries = 64

// loop is the event loop of one job: it owns the engine, the slots and the
// task-work queue, on one goroutine locked to its OS thread.
type loop struct {
	job     *jobfile.Job
	eng     engines.Engine
	ender   ender // an engine that can end the job (net's UDP receiver), nil for most
	syncIO  bool
	fakeNow func() int64 // Options.now; nil: the TSC or clock.Nanotime (see loop.clock)
	tsc     *clock.TSC   // calibrated TSC, nil: clock.Nanotime
	lastTSC int64        // last TSC reading, which the next never goes below
	sleep   func(time.Duration)
	fadvise func(fd int, off, n int64, advice int) error // Options.fadvise
	stop    *atomic.Bool
	kill    *atomic.Bool // this job's exitall stop (jobRun.kill)
	snap    *jobSnapshot // --status-interval copies (jobRun.snap)
	hang    *hangWatch   // io_timeout (hung.go); nil when off
	// timed is the engine's timed reap under io_timeout, nil when off or
	// when the engine cannot wait with a time limit (setHang).
	timed engines.TimedReaper
	// reapLimit is the longest a blocking reap waits through timed:
	// io_timeout's hangPoll, or an open-loop wait's time to the next
	// intended I/O (openWait); 0 waits as long as it takes.
	reapLimit time.Duration
	// open is open_loop=1's timetable (openloop.go); nil when off.
	open *openloop.Timetable
	warn io.Writer
	res  *report.JobResult
	prog *report.Progress

	q       *sched.Queue
	batch   sched.Batch
	slots   []slot
	bufs    [][]byte
	files   []*target.Target
	gen     *iogen.Offsets
	zones   *zbd.Job // zonemode=zbd: the zones the generator places I/O by; nil without
	req     engines.Request
	cqes    []engines.Completion
	pending []uint32 // queued in the engine, not yet submitted, in order
	pHead   int
	pN      int

	depth    int
	inflight int // submitted and not yet harvested
	// inflightT is when inflight last changed (or the statistics
	// started): the in-flight area is counted up to it.
	inflightT int64
	// fio's accounting of an asynchronous engine, kept where the loop
	// does what fio counts (the submit, complete and IO depths maps):
	// ioQueued is fio's io_u_queued, the requests queued since the last
	// batch commit (commitQueued); trimsFlying and trimsPending count the
	// trims done at queue (trimAtQueue) that are not yet reaped and not
	// yet submitted, which fio never holds in cur_depth.
	ioQueued, trimsFlying, trimsPending int

	// The loop's state by concern, each in its own struct: the verify
	// phase and backlogs, think time, latency_target, flow= and the
	// passes over the files (fio's loops=).
	verify    loopVerify
	thinkTime loopThink
	latTarget loopLatTarget
	flow      loopFlow
	pass      loopPass

	tw    *twthread.Engine // the SQPOLL goroutine (tw_thread), nil without
	kt    *ktrace.Tracer   // kernel_stages: the job's tracer, nil when off
	klock *lockbpf.Tracer  // kernel_locks: the job's lock-contention tracer, nil when off

	// loopConfig holds what the job's options decide, built once by
	// newLoopConfig.
	loopConfig

	// Stop rules.
	stopIssue bool
	fatal     bool
	deadline  int64 // 0 = none
	budget    uint64
	issued    uint64 // bytes issued since stats start
	issuedIOs uint64
	ramping   bool
	// idleAtError: nothing was in flight when the job's error was set
	// (endReap).
	idleAtError bool
	rampEnd     int64
	rampCheckAt int64 // ramp_size: when the ramp's bytes are looked at next (once a second)

	fillRNG fiorand.RNG
	held    heldIO // serialize_overlap: the I/O waiting for an overlapping one
	// content generates what writes carry (refill_buffers, compression,
	// dedupe), as fio's fill_io_buffer.
	content *iogen.Buffers
	cmdprio iogen.Cmdprio
	// lastWasSync is fio's td->last_was_sync: set when a sync completes,
	// cleared when a read or write completes. While it is clear and the
	// writes issued are a multiple of fsync=, every new I/O is a sync,
	// so at iodepth > 1 several syncs go out per fsync= writes, as in fio.
	lastWasSync bool
	// syncedAt is when the last sync done at queue (syncAtQueue)
	// completed. fio completes what it reaps inside the reap, so a read
	// or write reaped before that sync (while the sync waited out a busy
	// engine) completed before it there, and does not clear lastWasSync
	// here when its completion item runs after the sync.
	syncedAt int64
	// sfr holds each file's writes since its last sync, which
	// sync_file_range= syncs; nil without it.
	sfr target.SyncRanges
	// locks are lockfile='s locks (lockfile.go); nil without it.
	locks                      *target.FileLocks
	nextIssue                  [jobfile.NumDirs]int64
	bytesDone, iosDone         [jobfile.NumDirs]uint64
	bw, iops                   sampler
	statsStart, started, ended int64
	rusageStart                unix.Rusage
	// reapStamp is the time stamp of the last harvest; reapFresh says
	// nothing but queue bookkeeping ran since, so the next task-work item
	// takes it as its now instead of reading the clock again.
	reapStamp    int64
	reapFresh    bool
	lastProgress int64

	minRate minRateState // rate_min, rate_iops_min
	poisson fiorand.RNG  // rate_process=poisson's gaps
	eagain  uint64       // -EAGAIN completions resubmitted

	sample func(d jobfile.Dir, slat, clat, lat int64) // Options.sample
	logs   *verifylog.JobLogger                       // nil without write_*_log

	replay *verifylog.Replay      // read_iolog=: the log replayed in place of gen; nil without
	iolog  *verifylog.IOLogWriter // write_iolog=: nil without
}

// loopVerify is the loop's verify state (verify.go, trimverify.go,
// vstate.go).
type loopVerify struct {
	vstate      *verifylog.State // verify_state_save (vstate.go); nil when off
	ver         *verify.Verifier // nil without verify=
	auxPath     string           // --aux-path: where verify_dump writes
	checkReads  bool             // check every completed read against ver
	wlog        *verifylog.Log   // writes to read back in the verify phase
	verifying   bool             // the verify phase is running
	verified    bool             // the verify phase ran
	vNext       int              // next wlog entry the verify phase reads
	vBatch      int              // verify_backlog reads left in the current batch
	backlogs    bool             // verify_backlog or trim verify: the issue path looks at the write log first
	logsAtIssue bool             // a write log: the issue path counts writes in flight and may trim a listed block (issueLogged)
	// trimListed says trim verify's list holds blocks (or chosen writes
	// in flight): fio's do_io keeps issuing past size= until it is empty.
	trimListed bool
	coeVerify  bool // continue_on_error covers verify errors
}

// loopThink is the loop's think time state (think.go).
type loopThink struct {
	thinker     thinker  // the engine's own think time (cpuio), nil for most
	thinks      bool     // the job thinks: thinktime, the engine's own (thinker) or thinkcycles
	parked      []uint32 // slots waiting for the think time
	thinkDone   uint64   // I/Os completed, ramp included (thinktime_blocks_type=complete)
	thinkIssued uint64   // I/Os issued (thinktime_blocks_type=issue)
	lastThink   uint64
	// thinktime_iotime: lastThinkAt is fio's last_thinktime (the job's
	// start, then the start of each pause); thinkBlocksSet is whether
	// thinktime_blocks counts as well.
	lastThinkAt    int64
	thinkBlocksSet bool
	lastDir        jobfile.Dir // direction of the last read or write issued (fio's ddir in handle_thinktime)
}

// loopLatTarget is latency_target's state (latency.go): the depth search,
// nil when off; the slots waiting for room under its depth; a drain
// under way, with the statistics to reset at its end; the reads and
// writes completed.
type loopLatTarget struct {
	search       *lattarget.Search
	idle         []uint32
	drain, reset bool
	ios          uint64
}

// loopFlow is the job's part in flow= (flow.go).
type loopFlow struct {
	state  *flowState    // nil when the job takes no part
	count  *atomic.Int64 // I/Os counted in the flow (jobRun.flowIssued)
	passed bool          // the flow admitted the I/O now waiting for its rate
}

// loopPass is the passes over the job's files (pass.go; fio's loops=).
type loopPass struct {
	// pastRuntime is set when the runtime ended the job's I/O: fio's
	// runtime_exceeded terminates the job, which then has no verify
	// phase (a time_based job never verifies after its writes).
	pastRuntime bool
	passNr      uint64 // the loop (pass over the files) running, from 1
	passSize    uint64 // bytes in one pass over every region
	passBytes   uint64 // bytes issued in the current pass
	ioSize      uint64 // fio's o->io_size: io_size=, or sprandom's physical size (target.IOSize)
	// verifyEachPass ends each pass over the files at its end, so that
	// the verify phase runs after every loop, as fio's thread_main.
	verifyEachPass bool
}

// pushPending remembers a queued, not yet submitted slot.
func (l *loop) pushPending(s uint32) {
	i := l.pHead + l.pN // pHead and pN are below len(l.pending): no division
	if i >= len(l.pending) {
		i -= len(l.pending)
	}
	l.pending[i] = s
	l.pN++
}

// pendingAt returns the i-th pending slot, i below pN.
func (l *loop) pendingAt(i int) uint32 {
	i += l.pHead // both below len(l.pending): no division
	if i >= len(l.pending) {
		i -= len(l.pending)
	}
	return l.pending[i]
}

func (l *loop) popPending() uint32 {
	s := l.pending[l.pHead]
	l.pHead++
	if l.pHead == len(l.pending) {
		l.pHead = 0
	}
	l.pN--
	return s
}

// run is the task-work loop: take the next item from the queue (completion
// items first under the priority policy), run it, and harvest new CQEs
// between heavy items as an interrupt would; when nothing is runnable,
// submit what is queued and wait for completions.
func (l *loop) run() {
	now := l.clock()
	l.started = now
	l.statsStart = now
	l.inflightT = now
	l.thinkTime.lastThinkAt = now
	l.initPrios()
	if l.ramping {
		l.rampEnd = now + int64(l.job.RampTime)
		if l.job.RampSize > 0 {
			l.rampEnd = math.MaxInt64 // ramp_size: ends by bytes (rampSizeDone)
			l.rampCheckAt = now + int64(time.Second)
		}
	}
	if l.job.Runtime > 0 {
		l.deadline = now + int64(l.job.RampTime) + int64(l.job.Runtime)
	}
	for d := range l.nextIssue {
		l.nextIssue[d] = now
	}
	placement.GetrusageThread(&l.rusageStart)
	l.setLogEpoch()
	l.bw.reset(now, &l.bytesDone)
	l.iops.reset(now, &l.iosDone)
	l.setState()
	if l.latTarget.search != nil {
		l.latTarget.search.Init(now, 0)
	}
	if l.open != nil {
		l.open.Start()
	}
	for i := 0; i < l.depth; i++ {
		l.q.AddHeavy(uint32(i), now)
	}
	l.drive()
	l.endReap()
	if l.zones != nil {
		l.zones.ReleaseAll()
		l.res.ZoneResets = l.zones.Resets
	}
	if l.latTarget.search != nil {
		l.res.LatencyDepth = l.latTarget.search.QD
	}
	l.ended = l.clock()
}

// drive runs task-work items until no slot has work left or the job
// failed. It runs once per pass or phase, never per I/O: kept out of its
// callers, so that profile-guided inlining spends its budget on the
// per-I/O calls inside it (complete) rather than on drive itself.
//
//go:noinline
func (l *loop) drive() {
	l.reapFresh = false
	for !l.fatal {
		if l.q.Len() == 0 {
			// Nothing to run, so no clock reading: a stamp left from an
			// earlier harvest is stale once the loop waits or thinks.
			l.reapFresh = false
			if l.pN == 0 && l.inflight == 0 {
				if len(l.thinkTime.parked) > 0 {
					l.think()
					continue
				}
				break
			}
			l.wait()
			continue
		}
		now := l.itemNow()
		it, _ := l.q.Next(now)
		si := it.Slot
		if it.Kind == sched.Completion {
			if !l.complete(it, now) {
				continue
			}
			if l.q.Len() != 0 {
				l.q.AddHeavy(si, now)
				continue
			}
			// The slot's heavy item would be the only one queued, so
			// the next turn would take it at once: run it as that turn
			// would, without the push and pop (nothing reads a heavy
			// item's time in the queue).
			now = l.itemNow()
		}
		l.issue(si, now)
		if l.reapAll && l.inflight > 0 {
			l.reap(0)
		}
	}
}

// itemNow is the time drive gives the next task-work item: the stamp of a
// harvest that just ran, when nothing but queue bookkeeping ran since (one
// clock reading serves both; under the priority policy the item is the
// first completion of that harvest, so its tw wait is 0), else a clock
// reading.
func (l *loop) itemNow() int64 {
	if l.reapFresh {
		l.reapFresh = false
		return l.reapStamp
	}
	return l.clock()
}

// setState publishes fio's run-state character to the progress view.
func (l *loop) setState() {
	if l.prog == nil {
		return
	}
	var c int32
	switch {
	case l.ramping:
		c = '/'
	case l.hasRead && l.hasWrite:
		c = 'M'
	case l.hasWrite:
		c = 'W'
	case l.hasRead:
		c = 'R'
	default:
		c = 'D' // trim
	}
	if l.job.RW.IsRandom() && c != '/' {
		c += 'a' - 'A'
	}
	l.prog.State.Store(c)
}

// publish copies the counters into the progress view.
func (l *loop) publish() {
	l.snapshot()
	if l.prog == nil {
		return
	}
	var clatSum float64
	var clatN uint64
	for d := 0; d < 3; d++ {
		l.prog.Bytes[d].Store(l.bytesDone[d])
		l.prog.IOs[d].Store(l.iosDone[d])
		c := &l.res.Dirs[d].Clat
		clatSum += c.Mean * float64(c.N)
		clatN += c.N
	}
	l.prog.ClatSum.Store(math.Float64bits(clatSum))
	l.prog.ClatN.Store(clatN)
}
