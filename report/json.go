package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/gofio/gofio/internal/fiostat"
	"github.com/gofio/gofio/jobfile"
)

// etaDone is the "eta" fio reports once the run is over (INT_MAX).
const etaDone = 2147483647

// WriteJSON writes r as fio 3.33's JSON output (--output-format=json), or
// json+ when plus is set (histogram "bins" next to each "percentile"
// object). Keys, order, nesting and value types are fio's. Two things are
// gofio's: "fio version" carries r.Version (for example "gofio-0.1.0"), so
// a consumer can tell the producer apart, and each job has one extra key,
// "gofio", last, holding the task-work policy, the tw wait stat, how the
// job reaped (reap: "fio" or "all") and its measured mean number of I/Os
// in flight (inflight_mean, time-averaged submitted-but-not-reaped), the CPU
// breakdown by thread kind, dropped CQEs and engine notes.
func WriteJSON(w io.Writer, r *Result, plus bool) error {
	bw := bufio.NewWriter(w)
	printJSON(bw, buildJSON(r, plus), 0)
	bw.WriteString("\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write json report: %w", err)
	}
	return nil
}

func buildJSON(r *Result, plus bool) *jsonObject {
	now := reportTime(r)
	root := &jsonObject{}
	root.addString("fio version", r.Version)
	root.addSInt("timestamp", now.Unix())
	root.addSInt("timestamp_ms", now.UnixMilli())
	root.addString("time", now.Format(ctimeLayout))
	if g := optionsObject(r.GlobalOptions, r.Release); g != nil {
		root.add("global options", g)
	}
	rep := Reported(r)
	groups := Groups(rep)
	jobs := jsonArray{}
	for _, j := range rep {
		jobs = append(jobs, jobJSON(r, j, &groups[j.GroupID], plus))
	}
	root.add("jobs", jobs)
	if len(r.Disks) > 0 {
		disks := jsonArray{}
		for _, d := range r.Disks {
			disks = append(disks, diskJSON(r.Release, d))
		}
		root.add("disk_util", disks)
	}
	if r.Run != nil {
		root.add(RunJSONKey, jsonRaw(mustMarshal("run info", r.Run)))
	}
	if r.Comparison != nil {
		root.add(CompareJSONKey, jsonRaw(mustMarshal("comparison", CompareJSON(r.Comparison))))
	}
	if r.Baseline != nil {
		root.add(BaselineJSONKey, jsonRaw(mustMarshal("baseline", r.Baseline)))
	}
	if r.History != nil {
		root.add(HistoryJSONKey, jsonRaw(mustMarshal("history", r.History)))
	}
	if r.Capacity != nil {
		root.add(CapacityJSONKey, jsonRaw(mustMarshal("capacity", r.Capacity)))
	}
	return root
}

// optionsObject returns the options as a JSON object of raw strings, with
// valueless flags dropped as fio drops empty strings; nil when none remain
// (fio then leaves the key out).
func optionsObject(opts []jobfile.Option, rel Release) *jsonObject {
	o := &jsonObject{}
	for _, op := range opts {
		if op.Value == "" && rel.since342() {
			o.add(op.Name, "") // fio 3.42 lists a flag given without a value too
			continue
		}
		o.addString(op.Name, op.Value)
	}
	if len(o.pairs) == 0 {
		return nil
	}
	return o
}

// jobOptions returns the job's own options: its Options without the
// leading global ones (jobfile counts them; a Job built by hand that does
// not has the prefix equal to the Result's GlobalOptions dropped).
func jobOptions(r *Result, j *jobfile.Job) []jobfile.Option {
	if j == nil {
		return nil
	}
	if j.NumGlobalOptions > 0 {
		return j.OwnOptions()
	}
	opts := j.Options
	if len(opts) >= len(r.GlobalOptions) {
		same := true
		for i, g := range r.GlobalOptions {
			if opts[i] != g {
				same = false
				break
			}
		}
		if same {
			opts = opts[len(r.GlobalOptions):]
		}
	}
	return opts
}

// runElapsed returns the run's elapsed seconds, rounded up, as fio's
// je->elapsed_sec.
func runElapsed(r *Result) int64 {
	e := r.Elapsed
	if e == 0 {
		for _, j := range r.Jobs {
			if j.Elapsed > e {
				e = j.Elapsed
			}
		}
	}
	ms := e.Milliseconds()
	return (ms + 999) / 1000
}

func jobJSON(r *Result, j *JobResult, g *GroupStats, plus bool) *jsonObject {
	o := &jsonObject{}
	o.addString("jobname", j.Name)
	o.addSInt("groupid", int64(j.GroupID))
	if r.Release.since342() {
		o.addInt("job_start", j.JobStart)
	}
	o.addSInt("error", int64(j.Error))
	o.addSInt("eta", etaDone)
	o.addSInt("elapsed", runElapsed(r))
	if opts := optionsObject(jobOptions(r, j.Job), r.Release); opts != nil {
		o.add("job options", opts)
	}
	slatP, clatP, latP := percentileFlags(j.Job)
	plist := jobPercentiles(j.Job)
	if unifiedRW(j) == jobfile.UnifiedMixed {
		// fio writes the folded direction alone, without sync.
		o.add("mixed", dirJSON(r.Release, j, jobfile.DirRead, g, slatP, clatP, latP, plist, plus))
	} else {
		for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
			o.add(d.String(), dirJSON(r.Release, j, d, g, slatP, clatP, latP, plist, plus))
		}
		sync := &jsonObject{}
		sync.addInt("total_ios", j.SyncIOs)
		sync.add("lat_ns", statJSON(j.SyncLat, &j.SyncHist, clatP || latP, plist, plus))
		o.add("sync", sync)
	}
	if unifiedRW(j) == jobfile.UnifiedBoth {
		o.add("mixed", dirJSON(r.Release, Mixed(j), jobfile.DirRead, g, slatP, clatP, latP, plist, plus))
	}

	usr, sys := cpuPercent(j)
	o.addInt("job_runtime", uint64(j.JobRuntime.Milliseconds()))
	o.addFloat("usr_cpu", usr)
	o.addFloat("sys_cpu", sys)
	o.addInt("ctx", j.Ctx)
	o.addInt("majf", j.Majf)
	o.addInt("minf", j.Minf)
	total := totalIOs(j)
	o.add("iodepth_level", bucketsJSON([]string{"1", "2", "4", "8", "16", "32", ">=64"}, depthPercents(j.IODepth[:], total)))
	calls := []string{"0", "4", "8", "16", "32", "64", ">=64"}
	o.add("iodepth_submit", bucketsJSON(calls, depthPercents(j.Submit[:], j.SubmitCalls)))
	o.add("iodepth_complete", bucketsJSON(calls, depthPercents(j.Complete[:], j.CompleteCalls)))
	lat := []string{"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"}
	o.add("latency_ns", bucketsJSON(lat, latPercents(j.LatNs[:], total)))
	o.add("latency_us", bucketsJSON(lat, latPercents(j.LatUs[:], total)))
	o.add("latency_ms", bucketsJSON(append(lat, "2000", ">=2000"), latPercents(j.LatMs[:], total)))
	if continueOnError(j.Job) {
		o.addInt("total_err", j.TotalErr)
		o.addSInt("first_error", int64(j.FirstErr))
	}
	if j.LatencyDepth != 0 {
		lt := latencyTargetOf(j)
		o.addSInt("latency_depth", int64(j.LatencyDepth))
		o.addInt("latency_target", uint64(lt.Target.Nanoseconds()))
		if r.Release.since342() {
			o.addInt("latency_target_ns", uint64(lt.Target.Nanoseconds()))
		}
		o.addFloat("latency_percentile", lt.Percentile)
		o.addInt("latency_window", uint64(lt.Window.Microseconds()))
		if r.Release.since342() {
			o.addInt("latency_window_us", uint64(lt.Window.Microseconds()))
		}
	}
	if j.Job != nil {
		o.addString("desc", j.Job.Description)
	}
	if b := blockInfosJSON(j.Blocks, plist); b != nil {
		o.add("block", b)
	}
	if s := j.SteadyState; s != nil {
		o.add("steadystate", steadyStateJSON(s))
	}
	if r.Release.since342() && countsZoneResets(j) {
		o.addInt("zone_resets", uint64(j.ZoneResets))
	}
	o.add("gofio", extrasJSON(r, j, plist))
	return o
}

func bucketsJSON(keys []string, vals []float64) *jsonObject {
	o := &jsonObject{}
	for i, k := range keys {
		o.addFloat(k, vals[i])
	}
	return o
}

// statJSON is fio's add_ddir_lat_json: min, max, mean, stddev and N, plus
// "percentile" when asked for and there are samples, and json+ "bins".
func statJSON(s Stat, h *Hist, percentiles bool, plist []float64, plus bool) *jsonObject {
	o := &jsonObject{}
	var min, max uint64
	var mean, dev float64
	if s.N > 0 {
		min, max, mean, dev = s.Min, s.Max, s.Mean, s.Stddev()
	}
	o.addInt("min", min)
	o.addInt("max", max)
	o.addFloat("mean", mean)
	o.addFloat("stddev", dev)
	o.addInt("N", s.N)
	if percentiles && s.N > 0 && len(plist) > 0 {
		vals, _, _ := Percentiles(h, s.N, plist)
		p := &jsonObject{}
		for i, v := range vals {
			p.addInt(strconv.FormatFloat(plist[i], 'f', 6, 64), v)
		}
		o.add("percentile", p)
		if plus {
			b := &jsonObject{}
			for i, c := range h {
				if c != 0 {
					b.addInt(strconv.FormatUint(fiostat.HistValue(i), 10), c)
				}
			}
			o.add("bins", b)
		}
	}
	return o
}

func dirJSON(rel Release, j *JobResult, d jobfile.Dir, g *GroupStats, slatP, clatP, latP bool, plist []float64, plus bool) *jsonObject {
	ds := &j.Dirs[d]
	o := &jsonObject{}
	var bwBytes uint64
	var iops float64
	if rt := runtimeMs(ds); rt != 0 {
		bwBytes = 1000 * ds.IOBytes / rt
		iops = 1000.0 * float64(ds.TotalIOs) / float64(rt)
	}
	o.addInt("io_bytes", ds.IOBytes)
	o.addInt("io_kbytes", ds.IOBytes>>10)
	o.addInt("bw_bytes", bwBytes)
	o.addInt("bw", bwBytes/1024)
	o.addFloat("iops", iops)
	o.addInt("runtime", runtimeMs(ds))
	o.addInt("total_ios", ds.TotalIOs)
	o.addInt("short_ios", ds.ShortIOs)
	o.addInt("drop_ios", ds.DropIOs)
	o.add("slat_ns", statJSON(ds.Slat, &ds.SlatHist, slatP, plist, plus))
	o.add("clat_ns", statJSON(ds.Clat, &ds.ClatHist, clatP, plist, plus))
	o.add("lat_ns", statJSON(ds.Lat, &ds.LatHist, latP, plist, plus))
	responseJSON(o, j, d, plist, plus)
	if ds.PriosShown() {
		name := "clat_ns"
		if latP {
			name = "lat_ns"
		}
		var prios jsonArray
		for i := range ds.Prios {
			p := &ds.Prios[i]
			if p.Lat.N == 0 {
				continue
			}
			po := &jsonObject{}
			po.addInt("prioclass", uint64(p.IOPrio>>13))
			po.addInt("prio", uint64(p.IOPrio&7))
			if rel.since342() {
				po.addInt("priohint", uint64(ioprioHint(p.IOPrio)))
			}
			po.add(name, statJSON(p.Lat, &p.Hist, clatP || latP, plist, plus))
			prios = append(prios, po)
		}
		o.add("prios", prios)
	}
	var min, max uint64
	var agg, mean, dev float64
	if ds.BW.N > 0 {
		min, max, mean, dev = ds.BW.Min, ds.BW.Max, ds.BW.Mean, ds.BW.Stddev()
		agg = aggPercent(g, d, mean)
	}
	o.addInt("bw_min", min)
	o.addInt("bw_max", max)
	o.addFloat("bw_agg", agg)
	o.addFloat("bw_mean", mean)
	o.addFloat("bw_dev", dev)
	o.addInt("bw_samples", ds.BW.N)
	min, max, mean, dev = 0, 0, 0, 0
	if ds.IOPS.N > 0 {
		min, max, mean, dev = ds.IOPS.Min, ds.IOPS.Max, ds.IOPS.Mean, ds.IOPS.Stddev()
	}
	o.addInt("iops_min", min)
	o.addInt("iops_max", max)
	o.addFloat("iops_mean", mean)
	o.addFloat("iops_stddev", dev)
	o.addInt("iops_samples", ds.IOPS.N)
	return o
}

// extrasJSON is the job's "gofio" object.
func extrasJSON(r *Result, j *JobResult, plist []float64) *jsonObject {
	o := &jsonObject{}
	o.addString("policy", policyName(j))
	if !j.FirstIO.IsZero() {
		// Wall-clock nanoseconds: with --start-at, first_io_ns - start_at_ns
		// is this job's start skew.
		o.addSInt("first_io_ns", j.FirstIO.UnixNano())
		if !r.StartAt.IsZero() {
			o.addSInt("start_at_ns", r.StartAt.UnixNano())
			o.addSInt("start_skew_ns", j.FirstIO.Sub(r.StartAt).Nanoseconds())
		}
	}
	o.add("tw_wait_ns", statJSON(j.TWWait, &j.TWWaitHist, true, plist, false))
	o.addString("reap", j.Reap)
	o.addFloat("inflight_mean", finite(j.InFlightMean()))
	cpu := &jsonObject{}
	for _, s := range CPUBreakdown(j) {
		c := &jsonObject{}
		c.addInt("threads", uint64(s.Threads))
		c.addInt("usr_usec", uint64(s.Usr/time.Microsecond))
		c.addInt("sys_usec", uint64(s.Sys/time.Microsecond))
		c.addFloat("usr_cpu", finite(s.UsrPct))
		c.addFloat("sys_cpu", finite(s.SysPct))
		cpu.add(s.Kind, c)
	}
	o.add("cpu", cpu)
	threads := jsonArray{}
	for _, t := range j.Threads {
		th := &jsonObject{}
		th.addString("kind", t.Kind)
		th.addSInt("tid", int64(t.TID))
		th.addString("name", t.Name)
		th.addInt("usr_usec", uint64(t.Usr/time.Microsecond))
		th.addInt("sys_usec", uint64(t.Sys/time.Microsecond))
		threads = append(threads, th)
	}
	o.add("threads", threads)
	o.addInt("dropped_cqes", j.DroppedCQEs)
	notes := jsonArray{}
	for _, n := range j.EngineNotes {
		notes = append(notes, n)
	}
	o.add("engine_notes", notes)
	if j.KernelStages != nil {
		o.add(KernelStagesJSONKey, kernelStagesJSON(j.KernelStages, plist))
	}
	if j.KernelLocks != nil {
		o.add(KernelLocksJSONKey, kernelLocksJSON(j.KernelLocks))
	}
	o.add(StateJSONKey, jsonCompact(mustMarshal("job state", StateOf(j))))
	return o
}

func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// diskJSON is one "disk_util" entry.
func diskJSON(rel Release, d DiskStats) *jsonObject {
	o := &jsonObject{}
	o.addString("name", d.Name)
	o.addInt("read_ios", d.ReadIOs)
	o.addInt("write_ios", d.WriteIOs)
	if rel.since342() {
		o.addInt("read_sectors", d.ReadSectors)
		o.addInt("write_sectors", d.WriteSectors)
	}
	o.addInt("read_merges", d.ReadMerges)
	o.addInt("write_merges", d.WriteMerges)
	o.addInt("read_ticks", d.ReadTicks)
	o.addInt("write_ticks", d.WriteTicks)
	o.addInt("in_queue", d.InQueue)
	o.addFloat("util", d.Util)
	return o
}

// latencyTargetOf returns the job's latency_target options; fio's defaults
// for a result without a job, or a job built in code that left them zero.
func latencyTargetOf(j *JobResult) jobfile.LatencyTarget {
	if j.Job == nil || j.Job.LatencyTarget == (jobfile.LatencyTarget{}) {
		return jobfile.LatencyTarget{Percentile: 100}
	}
	return j.Job.LatencyTarget
}

// steadyStateJSON is fio's "steadystate" object: the criterion and limit
// as C floats, the window's samples and their means, with fio 3.42's lat
// criteria the latency samples' mean and the samples (ns).
func steadyStateJSON(s *SteadyState) *jsonObject {
	o := &jsonObject{}
	o.addString("ss", fmt.Sprintf("%s:%f%s", steadyName(s, "_slope", ""), float32(s.Limit), pctSign(s.Pct)))
	o.addSInt("duration", int64(s.Duration))
	o.addSInt("attained", boolInt(s.Attained))
	o.addString("criterion", fmt.Sprintf("%f%s", float32(s.Criterion), pctSign(s.Pct)))
	o.addFloat("max_deviation", s.Deviation)
	o.addFloat("slope", s.Slope)
	data := &jsonObject{}
	data.addInt("bw_mean", s.BWMean())
	data.addInt("iops_mean", s.IOPSMean())
	if s.Lat {
		lat := make(jsonArray, len(s.LatData))
		for i, v := range s.LatData {
			lat[i] = v
		}
		data.addInt("lat_mean", s.LatMean())
		data.add("lat_ns", lat)
	}
	iops, bw := make(jsonArray, len(s.IOPSData)), make(jsonArray, len(s.BW))
	for i, v := range s.IOPSData {
		iops[i] = v
	}
	for i, v := range s.BW {
		bw[i] = v
	}
	data.add("iops", iops)
	data.add("bw", bw)
	o.add("data", data)
	return o
}

// steadyName names the criterion: its metric with slope appended for a
// slope criterion, dev for a deviation one ("_slope" and "" in JSON,
// " slope" and " mean dev" in the normal output).
func steadyName(s *SteadyState, slope, dev string) string {
	n := jobfile.SteadyState{IOPS: s.IOPS, Lat: s.Lat}.Metric()
	if s.BySlope {
		return n + slope
	}
	return n + dev
}

func pctSign(pct bool) string {
	if pct {
		return "%"
	}
	return ""
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
