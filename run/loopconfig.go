package run

import (
	"time"

	"github.com/gofio/gofio/engines/twthread"
	"github.com/gofio/gofio/internal/iogen"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// loopConfig is what a job's options decide about its event loop, fixed
// before the first I/O. newLoopConfig builds it from the Job alone; the
// loop embeds it next to its running state.
type loopConfig struct {
	batchSubmit int // iodepth_batch_submit, within 1..depth
	completeMin int // iodepth_batch_complete_min
	// completeMax is iodepth_batch_complete_max after fio's fixup (at
	// least completeMin): the most a fio-mode reap takes.
	completeMax int
	low         int // iodepth_low, within 1..depth
	numberIOs   uint64

	refill                     bool   // refill_buffers: every write gets fresh content
	scramble                   bool   // scramble_buffers: a reused write buffer gets its offset and time stamped in
	minWrite                   uint64 // fio's min_bs[write], the chunk bound of compressed content
	coeRead, coeWrite          bool   // continue_on_error covers reads, writes
	noSlat, noClat, noLat      bool   // latencies not measured
	fsyncEvery, fdatasyncEvery int
	sfrEvery                   int // sync_file_range's :N, 0 without it
	// syncAtQueue says the engine runs fsync, fdatasync and
	// sync_file_range inside Queue, as its fio counterpart in its queue
	// hook (libaio): the sync is done before the next I/O is chosen and
	// holds no slot (syncedAtQueue).
	syncAtQueue bool
	trimAtQueue bool // the engine trims in Queue, as its fio counterpart in its queue hook
	// commit says the engine's fio counterpart has a commit hook: run
	// synchronously (null at iodepth=1) it marks no submit or complete
	// calls (see noMarks).
	commit  bool
	noIO    bool   // fio's FIO_NOIO: I/Os count, bytes do not (cpuio)
	loops   uint64 // loops=, at least 1
	rateGap [jobfile.NumDirs]int64
	// rates says rate= or rate_iops= limits some direction, and syncs
	// that fsync=, fdatasync= or sync_file_range= is set: a job without
	// pays one inlined test per I/O for each.
	rates, syncs      bool
	hasRead, hasWrite bool
	// reapAll is tw_reap=all (Job.ReapAll): every CQE the ring holds is
	// harvested between task-work items, gofio's task-work model. Without
	// it the loop reaps as fio 3.33: only when no slot is free (or an
	// engine refuses work), completeMax CQEs at a time.
	reapAll bool
	// getEventsAll is fio's null engine rule: a reap that may wait takes
	// every completion, whatever iodepth_batch_complete_max says, and one
	// that may not takes none (jobfile's EngineInfo.GetEventsAll).
	getEventsAll bool
	// markSubmit says the engine's fio counterpart marks the submit map
	// when it commits: all but io_uring under SQPOLL, whose commit only
	// wakes the kernel's thread.
	markSubmit    bool
	progressEvery int64 // ns between Progress updates
	// invalidate=1 on buffered files drops the page cache again after
	// every pass over the job's files, as fio's do_io loop does when it
	// starts a new loop (time_based, loops=N).
	invalidate bool

	// serializeOverlap is serialize_overlap: an I/O that overlaps one in
	// flight waits for it.
	serializeOverlap bool
	// fillDevice is fill_device: ENOSPC ends the job without an error.
	fillDevice bool
}

// newLoopConfig returns the loop configuration of job j at queue depth
// depth; compare is Options.Compare.
func newLoopConfig(j *jobfile.Job, depth int, compare bool) loopConfig {
	c := loopConfig{
		batchSubmit:    j.IODepthBatchSubmit,
		completeMin:    j.IODepthBatchCompleteMin,
		low:            j.IODepthLow,
		numberIOs:      numberIOs(j),
		refill:         j.RefillBuffers,
		scramble:       j.ScrambleBuffers,
		minWrite:       j.BSMin(jobfile.DirWrite),
		noSlat:         j.DisableSlat || j.GtodReduce || j.SQThreadPoll && !twthread.Use(j, compare),
		noClat:         j.DisableClat || j.GtodReduce,
		noLat:          j.DisableLat || j.GtodReduce,
		fsyncEvery:     j.Fsync,
		fdatasyncEvery: j.Fdatasync,
		sfrEvery:       j.SyncFileRangeEvery,
		hasRead:        j.RW.HasRead(),
		hasWrite:       j.RW.HasWrite(),
		reapAll:        j.ReapAll(compare),
		markSubmit:     !j.KernelSQPoll(),
		progressEvery:  int64(10 * time.Millisecond),
		invalidate:     j.Invalidate && !j.Direct && !j.Engine().Diskless,
		loops:          max(uint64(j.Loops), 1),
	}
	c.serializeOverlap, c.fillDevice = j.SerializeOverlap, j.FillDevice
	if c.batchSubmit <= 0 || c.batchSubmit > depth {
		c.batchSubmit = depth
	}
	c.completeMax = max(j.IODepthBatchCompleteMax, c.completeMin)
	if c.low <= 0 || c.low > depth {
		c.low = depth
	}
	c.coeRead = j.ContinueOnError.Covers(jobfile.ContinueRead)
	c.coeWrite = j.ContinueOnError.Covers(jobfile.ContinueWrite)
	for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
		if r := j.RateIOPS[d]; r > 0 {
			c.rateGap[d] = int64(time.Second) / int64(r)
		}
		c.rates = c.rates || c.rateGap[d] > 0 || j.Rate[d] > 0
	}
	c.syncs = c.fsyncEvery > 0 || c.fdatasyncEvery > 0 || c.sfrEvery > 0
	if e, ok := jobfile.EngineByName(j.IOEngine); ok {
		c.syncAtQueue = e.SyncAtQueue
		c.trimAtQueue = e.TrimAtQueue
		c.commit = e.Commit
		c.noIO = e.NoIO
		c.getEventsAll = e.GetEventsAll
	}
	return c
}

// newSamplers returns the job's bandwidth and IOPS window samplers
// (bwavgtime, iopsavgtime).
func newSamplers(j *jobfile.Job) (bw, iops sampler) {
	kb := uint64(j.KBBase)
	if kb == 0 {
		kb = 1024
	}
	bw = sampler{avg: int64(j.BWAvgTime) * int64(time.Millisecond), isBW: true, kbBase: kb}
	iops = sampler{avg: int64(j.IOPSAvgTime) * int64(time.Millisecond)}
	return bw, iops
}

// reserveSamples sizes the bw and iops sample lists of the directions the
// job issues for the whole run up front, so that the hot path does not
// grow them (bwAvg, iopsAvg: the sampler windows in ns).
func reserveSamples(j *jobfile.Job, res *report.JobResult, gen *iogen.Offsets, bwAvg, iopsAvg int64) {
	d := j.Runtime + j.RampTime
	if d <= 0 {
		return
	}
	for dd := jobfile.DirRead; dd < jobfile.NumDirs; dd++ {
		if !gen.Uses(dd) {
			continue
		}
		if bwAvg > 0 {
			res.Dirs[dd].BWSamples = make([]report.LogSample, 0, int(d/time.Duration(bwAvg))+2)
		}
		if iopsAvg > 0 {
			res.Dirs[dd].IOPSSamples = make([]report.LogSample, 0, int(d/time.Duration(iopsAvg))+2)
		}
	}
}

// numberIOs is the job's number_ios limit over the whole job, as fio's
// exceeds_number_ios: number_ios times loops= (fio's first pass runs on
// to that many I/Os), doubled for trimwrite and randtrimwrite, whose
// every block is trimmed and then written, as fio's do_io does. A
// time_based job has none: fio's do_io runs it until its runtime, past
// number_ios as past size=.
func numberIOs(j *jobfile.Job) uint64 {
	if j.TimeBased {
		return 0
	}
	n := j.NumberIOs * uint64(max(j.Loops, 1))
	if j.RW.HasTrim() && j.RW.HasWrite() {
		return n * 2
	}
	return n
}
