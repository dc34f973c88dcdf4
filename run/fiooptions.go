package run

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gofio/gofio/jobfile"
)

// This file runs fio 3.33 options beyond the core set: flow
// control, think time and byte rates. Each hooks into the loop at one
// place: issue (flowHeld, thinkDue, rateGapFor) and drive (think).

// flowState is one flow_id shared by the jobs of a run, as fio's struct
// fio_flow: a counter of the I/Os its jobs issued (starting at 1) and the
// sum of their weights.
type flowState struct {
	counter atomic.Int64
	weight  atomic.Int64
}

// planFlows gives every job with flow= its flow_id's shared state, with the
// weights of every job of the run added in, as fio's flow_init_job does at
// job setup.
func planFlows(runs []*jobRun) {
	flows := map[int]*flowState{}
	for _, jr := range runs {
		f := jr.job.Flow
		if f.Weight == 0 {
			continue
		}
		st := flows[f.ID]
		if st == nil {
			st = &flowState{}
			st.counter.Store(1)
			flows[f.ID] = st
		}
		st.weight.Add(int64(f.Weight))
		jr.flow = st
	}
}

// flowHeld applies fio's flow_threshold_exceeded before an I/O: a job whose
// share of its flow's I/Os is above its share of the weights waits
// (flow_sleep, or 100us) and is asked again; otherwise the I/O counts.
func (l *loop) flowHeld(si uint32) bool {
	if l.flow == nil || l.flowPassed {
		// An I/O the flow admitted that then waited for its rate is not
		// counted twice: fio sleeps for the rate inside get_io_u, after
		// flow_threshold_exceeded let the I/O through.
		return false
	}
	if l.flow.admit(l.flowCount, int64(l.job.Flow.Weight)) {
		l.flowPassed = true
		return false
	}
	wait := l.job.Flow.Sleep
	if wait <= 0 {
		wait = 100 * time.Microsecond
	}
	l.rateWait(si, int64(wait))
	return true
}

// admit is fio's flow_threshold_exceeded for one job of the flow: the job,
// with weight and issued I/Os counted so far, may issue one more unless
// its share of the flow's I/Os is above its share of the weights. An
// admitted I/O is counted in issued and in the flow.
func (f *flowState) admit(issued *atomic.Int64, weight int64) bool {
	if float64(issued.Load())/float64(f.counter.Load()) > float64(weight)/float64(f.weight.Load()) {
		return false
	}
	f.counter.Add(1)
	issued.Add(1)
	return true
}

// leaveFlow takes the job's I/Os and weight out of its flow once its
// goroutine is done, after its exitall, as fio's reap_threads calls
// flow_exit_job for a thread that has exited: until then the others stay
// held back by it. A job that failed to start leaves too, so that it does
// not hold the others forever.
func (jr *jobRun) leaveFlow() {
	if jr.flow == nil {
		return
	}
	jr.flow.counter.Add(-jr.flowIssued.Load())
	jr.flow.weight.Add(-int64(jr.job.Flow.Weight))
	jr.flow = nil
}

// thinkDue reports whether thinktime is due before the next I/O, as
// fio's handle_thinktime decides: after thinktime_blocks I/Os completed
// (thinktime_blocks_type=complete) or issued (issue) since the last
// pause; with thinktime_iotime, also once thinktime_iotime plus thinktime
// has passed since the last pause began (the job's start at first), and
// then by the blocks only when thinktime_blocks is set.
func (l *loop) thinkDue() bool {
	t := &l.job.Think
	if t.Time <= 0 && l.thinker == nil {
		return false
	}
	if t.IOTime > 0 {
		if l.clock()-l.lastThinkAt >= int64(t.IOTime+t.Time) {
			return true
		}
		if !l.thinkBlocksSet {
			return false
		}
	}
	n := l.thinkDone
	if t.BlocksType == "issue" {
		n = l.thinkIssued
	}
	return n >= l.lastThink+uint64(t.Blocks)
}

// think runs the pause once every slot is parked and nothing is in flight
// (fio's io_u_quiesce): thinktime_spin of busy waiting, then the rest of
// thinktime asleep; then the parked slots issue again. With
// rate_ignore_thinktime the rate schedule of the last I/O's direction
// moves on by the pause, so the job does not catch up afterwards.
func (l *loop) think() {
	t := &l.job.Think
	think := t.Time
	if l.thinker != nil {
		think = l.thinker.ThinkTime() // cpuio's cycle x (100-cpuload)/cpuload
	}
	begin := l.clock()
	spin := min(t.Spin, think) // fio: thinktime_spin is at most thinktime
	if spin > 0 {
		end := l.clock() + int64(spin)
		for l.clock() < end {
		}
	}
	if rest := think - spin; rest > 0 {
		l.sleep(rest)
	}
	now := l.clock()
	if l.job.RateIgnoreThinktime {
		l.skipRate(l.lastDir, now-begin)
	}
	l.lastThink = l.thinkDone
	if t.BlocksType == "issue" {
		l.lastThink = l.thinkIssued
	}
	if t.IOTime > 0 {
		l.lastThinkAt = begin
	}
	for _, si := range l.parked {
		l.q.AddHeavy(si, now)
	}
	l.parked = l.parked[:0]
	l.reapFresh = false
}

// skipRate is rate_ignore_thinktime after a pause of paused ns in
// direction d, as fio's handle_thinktime: the schedule counts the bytes
// the rate would have moved meanwhile (in whole microseconds) as issued,
// less one block when the pause was at least one block's time, so that
// the first I/O after it goes out at once and the rest at the rate.
func (l *loop) skipRate(d jobfile.Dir, paused int64) {
	bps := l.job.Rate[d]
	bs := l.job.BSMin(d)
	if bps == 0 {
		bps = l.job.RateIOPS[d] * bs // fio's rate_bps for rate_iops
	}
	us := uint64(paused / int64(time.Microsecond))
	if bps == 0 || bs == 0 || us == 0 {
		return
	}
	missed := bps * us / 1000000
	var over uint64
	if usPerOp := bs * 1000000 / bps; usPerOp <= us {
		over = bs
	}
	skip := float64(int64(missed) - int64(over))
	l.nextIssue[d] += int64(skip * float64(time.Second) / float64(bps))
}

// rated reports whether rate= or rate_iops= limits direction d.
func (l *loop) rated(d jobfile.Dir) bool { return l.job.Rate[d] > 0 || l.rateGap[d] > 0 }

// rateGapFor returns the time between I/Os of n bytes in d that rate= and
// rate_iops= ask for (0 when neither is set).
func (l *loop) rateGapFor(d jobfile.Dir, n uint64) int64 {
	gap := l.rateGap[d]
	if r := l.job.Rate[d]; r > 0 {
		gap = int64(n) * int64(time.Second) / int64(r)
	}
	if gap > 0 && l.job.RateProcess == "poisson" {
		// fio's usec_for_io: exponential gaps with the same mean.
		u := float64(l.poisson.Next()>>11) / (1 << 53)
		gap = int64(float64(gap) * -math.Log(1-u))
	}
	return gap
}

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

// checkZonedTargets applies the zone rules fio 3.33 applies at run time,
// not at parse time (jobfile.checkZones has those): zonesize= without
// zonemode=, and zbd on a target
// that is not a zoned block device (with the reason), zbd itself, which
// gofio parses as fio does but does not run yet.
func checkZonedTargets(j *jobfile.Job) error {
	if j.Zones.SizeWithoutMode {
		return fmt.Errorf("%s: zonesize=%d without zonemode=: fio 3.33's default zonemode is none, and --zonemode=none and --zonesize are not compatible (add zonemode=strided)", j.Name, j.Zones.Size)
	}
	switch j.Zones.Mode {
	case "zbd":
		for _, f := range j.Filenames {
			if model, err := zonedModel(f); err != nil || model == "none" {
				why := "not a block device"
				if err == nil {
					why = "its queue/zoned is none"
				}
				return fmt.Errorf("%s: zonemode=zbd needs a zoned block device; %s is not one (%s)", j.Name, f, why)
			}
		}
		if len(j.Filenames) == 0 {
			return fmt.Errorf("%s: zonemode=zbd needs a zoned block device as filename=", j.Name)
		}
		return fmt.Errorf("%s: zonemode=zbd: gofio parses it as fio does but does not run zoned I/O yet", j.Name)
	}
	return nil
}

// zonedModel returns the zoned model (none, host-aware, host-managed) of
// block device path, from /sys/dev/block/MAJ:MIN/queue/zoned.
func zonedModel(path string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return "", fmt.Errorf("%s is not a block device", path)
	}
	sys := fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(uint64(st.Rdev)), unix.Minor(uint64(st.Rdev)))
	b, err := os.ReadFile(sys + "/queue/zoned")
	if err != nil {
		// A partition has its queue in the parent device's directory.
		if b, err = os.ReadFile(sys + "/../queue/zoned"); err != nil {
			return "", err
		}
	}
	return strings.TrimSpace(string(b)), nil
}

// preallocate is fallocate= for a file being laid out, as fio's
// extend_file and fallocate_file: native and posix allocate the whole
// size, keep allocates without changing the size, truncate and none
// allocate nothing here. As in fio, a failed allocation is only reported
// (native says nothing where the file system cannot allocate): the layout
// and the job go on, and a full file system shows at the first write.
func preallocate(j *jobfile.Job, t *target, fd int, need uint64, warn func(format string, args ...any)) {
	mode := -1
	switch j.Fallocate {
	case "native", "posix", "":
		mode = 0
	case "keep":
		mode = unix.FALLOC_FL_KEEP_SIZE
	}
	if mode < 0 || j.Engine().NeedsExtents {
		return
	}
	err := unix.Fallocate(fd, uint32(mode), 0, int64(need))
	if err == nil || ((j.Fallocate == "native" || j.Fallocate == "") && (errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS))) {
		return
	}
	if warn != nil {
		warn("gofio: %s: fallocate=%s of %s failed: %v\n", j.Name, j.Fallocate, t.path, err)
	}
}

// setIOPrio applies prioclass= and prio= to the calling thread (the job's),
// as fio's ioprio_set(IOPRIO_WHO_PROCESS, 0, ...) at job start.
func setIOPrio(j *jobfile.Job) error {
	if !j.PrioSet {
		return nil
	}
	const whoProcess = 1
	if _, _, e := unix.Syscall(unix.SYS_IOPRIO_SET, whoProcess, 0, uintptr(j.IOPrio())); e != 0 {
		return e
	}
	return nil
}

// numaCPUs returns the CPUs of the NUMA nodes numa_cpu_nodes= names, read
// from /sys/devices/system/node/nodeN/cpulist, or an error naming a node
// this machine does not have.
func numaCPUs(nodes []int) ([]int, error) {
	var cpus []int
	for _, n := range nodes {
		b, err := os.ReadFile(fmt.Sprintf("/sys/devices/system/node/node%d/cpulist", n))
		if err != nil {
			return nil, fmt.Errorf("numa_cpu_nodes: this machine has no NUMA node %d: %w", n, err)
		}
		list, err := jobfile.ParseCPUList(strings.TrimSpace(string(b)))
		if err != nil {
			return nil, fmt.Errorf("numa_cpu_nodes: node %d: %w", n, err)
		}
		cpus = append(cpus, list...)
	}
	return cpus, nil
}

// nonFatal reports whether errno e in direction d is one continue_on_error
// may skip: one of ignore_error='s list for the direction, or fio's
// default EIO and EILSEQ (td_non_fatal_error).
func nonFatal(j *jobfile.Job, d jobfile.Dir, e unix.Errno) bool {
	class := 0
	if d != jobfile.DirRead {
		class = 1
	}
	list := j.IgnoreError[class]
	if list == nil {
		return e == unix.EIO || e == unix.EILSEQ
	}
	for _, n := range list {
		if unix.Errno(n) == e {
			return true
		}
	}
	return false
}

// dumpError is error_dump=1: one line per I/O error, skipped ones too.
func (l *loop) dumpError(s *slot, e unix.Errno) {
	name := l.slotPath(s)
	fmt.Fprintf(l.warn, "gofio: %s: io_u error on file %s: %s: %s offset=%d, buflen=%d\n",
		l.job.Name, name, strerror(e), s.dir, s.off, s.length-s.done)
}

// minRateState is what rate_min and rate_iops_min compare against: the
// bytes and I/Os at the last check, per direction, and when it was.
type minRateState struct {
	at          [jobfile.NumDirs]int64
	bytes, blks [jobfile.NumDirs]uint64
	sampled     [jobfile.NumDirs]bool
}

// checkMinRate is fio's check_min_rate: after a 2 s settling period, every
// rate_cycle the job must have done at least rate_min bytes/s (or
// rate_iops_min I/Os/s) in each direction since the last check, or it ends
// with EIO ("check_min_rate"), as in fio.
func (l *loop) checkMinRate(now int64) {
	j := l.job
	for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
		minB, minI := j.RateMin[d], j.RateIOPSMin[d]
		if (minB == 0 && minI == 0) || l.ramping || now-l.started < int64(2*time.Second) || l.bytesDone[d] == 0 {
			continue // fio checks only the directions that moved data
		}
		st := &l.minRate
		bytes, ios := l.bytesDone[d], l.iosDone[d]
		if st.sampled[d] {
			spent := (now - st.at[d]) / int64(time.Millisecond)
			if spent < int64(j.RateCycle) {
				continue
			}
			var msg string
			if minB > 0 {
				rate := uint64(0)
				if spent > 0 {
					rate = (bytes - st.bytes[d]) * 1000 / uint64(spent)
				}
				if bytes < st.bytes[d] || rate < minB || bytes-st.bytes[d] < minB {
					msg = fmt.Sprintf("rate_min=%dB/s not met, got %dB/s", minB, rate)
				}
			} else {
				rate := uint64(0)
				if spent > 0 {
					rate = (ios - st.blks[d]) * 1000 / uint64(spent)
				}
				if rate < minI || ios-st.blks[d] < minI {
					msg = fmt.Sprintf("rate_iops_min=%d not met, got %d IOPS", minI, rate)
				}
			}
			if msg != "" {
				if l.warn != nil {
					fmt.Fprintf(l.warn, "gofio: %s: %s\n", j.Name, msg)
				}
				l.setError(int(unix.EIO), "check_min_rate", errors.New(msg))
				l.stopIssue = true
				return
			}
		}
		st.sampled[d], st.at[d], st.bytes[d], st.blks[d] = true, now, bytes, ios
	}
}

// memPolicy applies numa_mem_policy=MODE[:NODES] to mem (the job's
// buffers) with mbind, moving pages already there, as fio's
// numa_set_membind and friends do for the job's memory. Each node must
// exist on this machine.
func memPolicy(spec string, mem []byte) error {
	if spec == "" || len(mem) == 0 {
		return nil
	}
	modeName, nodeList, _ := strings.Cut(spec, ":")
	modes := map[string]uintptr{"default": 0, "prefer": 1, "bind": 2, "interleave": 3, "local": 4}
	mode, ok := modes[modeName]
	if !ok {
		return fmt.Errorf("numa_mem_policy: unknown mode %q", modeName)
	}
	var mask [16]uint64 // 1024 nodes
	var maskp, maxnode uintptr
	if nodeList != "" {
		nodes, err := jobfile.ParseCPUList(nodeList)
		if err != nil {
			return fmt.Errorf("numa_mem_policy: %w", err)
		}
		for _, n := range nodes {
			if n >= len(mask)*64 {
				return fmt.Errorf("numa_mem_policy: node %d is out of range", n)
			}
			if _, err := os.Stat(fmt.Sprintf("/sys/devices/system/node/node%d", n)); err != nil {
				return fmt.Errorf("numa_mem_policy: this machine has no NUMA node %d", n)
			}
			mask[n/64] |= 1 << (n % 64)
		}
		maskp, maxnode = uintptr(unsafe.Pointer(&mask[0])), uintptr(len(mask)*64+1)
	}
	const mpolMFMove = 2
	_, _, e := unix.Syscall6(unix.SYS_MBIND, uintptr(unsafe.Pointer(&mem[0])), uintptr(len(mem)), mode, maskp, maxnode, mpolMFMove)
	if e != 0 {
		return fmt.Errorf("numa_mem_policy=%s: mbind: %w", spec, e)
	}
	return nil
}
