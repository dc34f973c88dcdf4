package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
	"syscall"
	"time"

	"github.com/gofio/gofio/jobfile"
)

// ctimeLayout is C's ctime(3) format, without the trailing newline.
const ctimeLayout = "Mon Jan _2 15:04:05 2006"

// reportTime is the wall clock fio would print for the report.
func reportTime(r *Result) time.Time {
	if !r.End.IsZero() {
		return r.End
	}
	return r.Start
}

// WriteNormal writes fio's normal (human) report of r: one block per
// reported job (or group with group_reporting), the "Run status group"
// lines and the disk stats, line for line as fio 3.33's
// show_thread_status_normal. gofio's own lines come last in each job block
// and start with "  gofio ", so tools reading fio's lines never see them
// inside fio's.
func WriteNormal(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	rep := Reported(r)
	groups := Groups(rep)
	fmt.Fprint(bw, "\n")
	for _, j := range rep {
		writeJobNormal(bw, r, j, &groups[j.GroupID])
	}
	for i := range groups {
		writeGroupNormal(bw, &groups[i])
	}
	if len(r.Disks) > 0 {
		fmt.Fprint(bw, "\nDisk stats (read/write):\n")
		for _, d := range r.Disks {
			fmt.Fprintf(bw, "  %s: ios=%d/%d, ", d.Name, d.ReadIOs, d.WriteIOs)
			if r.Release.since342() {
				fmt.Fprintf(bw, "sectors=%d/%d, ", d.ReadSectors, d.WriteSectors)
			}
			fmt.Fprintf(bw, "merge=%d/%d, ticks=%d/%d, in_queue=%d, util=%3.2f%%\n",
				d.ReadMerges, d.WriteMerges, d.ReadTicks, d.WriteTicks, d.InQueue, d.Util)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write normal report: %w", err)
	}
	return nil
}

// totalIOs is fio's ddir_rw_sum(total_io_u): reads, writes and trims.
func totalIOs(j *JobResult) uint64 {
	var n uint64
	for d := range j.Dirs {
		n += j.Dirs[d].TotalIOs
	}
	return n
}

func totalBytes(j *JobResult) uint64 {
	var n uint64
	for d := range j.Dirs {
		n += j.Dirs[d].IOBytes
	}
	return n
}

// cpuPercent returns usr and sys CPU as a percentage of the job's run time.
func cpuPercent(j *JobResult) (usr, sys float64) {
	if j.JobRuntime <= 0 {
		return 0, 0
	}
	rt := float64(j.JobRuntime)
	return float64(j.UsrCPU) * 100 / rt, float64(j.SysCPU) * 100 / rt
}

// strerror returns glibc's strerror text for errno n.
func strerror(n int) string {
	if n == 0 {
		return "Success"
	}
	s := syscall.Errno(n).Error()
	if s == "" {
		return fmt.Sprintf("Unknown error %d", n)
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func writeJobNormal(w *bufio.Writer, r *Result, j *JobResult, g *GroupStats) {
	if totalBytes(j) == 0 && totalIOs(j) == 0 {
		return
	}
	when := reportTime(r).Format(ctimeLayout)
	if j.Error == 0 {
		fmt.Fprintf(w, "%s: (groupid=%d, jobs=%d): err=%2d: pid=%d: %s\n",
			j.Name, j.GroupID, members(j), j.Error, j.Pid, when)
	} else {
		fmt.Fprintf(w, "%s: (groupid=%d, jobs=%d): err=%2d (%s): pid=%d: %s\n",
			j.Name, j.GroupID, members(j), j.Error, j.ErrorText, j.Pid, when)
	}
	if j.Job != nil && j.Job.Description != "" {
		fmt.Fprintf(w, "  Description  : [%s]\n", j.Job.Description)
	}
	for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
		if j.Dirs[d].IOBytes != 0 {
			writeDirNormal(w, r.Release, j, d, g, dirName(j, d))
		}
	}
	if unifiedRW(j) == jobfile.UnifiedBoth {
		writeDirNormal(w, r.Release, Mixed(j), jobfile.DirRead, g, "mixed")
	}
	total := totalIOs(j)
	writeLatDist(w, "nsec", latPercents(j.LatNs[:], total))
	writeLatDist(w, "usec", latPercents(j.LatUs[:], total))
	writeLatDist(w, "msec", latPercents(j.LatMs[:], total))
	if j.SyncLat.N > 0 {
		fmt.Fprintf(w, "  %s:\n", "fsync/fdatasync/sync_file_range")
		displayLat(w, "sync", j.SyncLat)
		writePercentilesNormal(w, "sync", &j.SyncHist, j.SyncLat.N, j.Job)
	}
	usr, sys := cpuPercent(j)
	fmt.Fprintf(w, "  cpu          : usr=%3.2f%%, sys=%3.2f%%, ctx=%d, majf=%d, minf=%d\n",
		usr, sys, j.Ctx, j.Majf, j.Minf)
	d := depthPercents(j.IODepth[:], total)
	fmt.Fprintf(w, "  IO depths    : 1=%3.1f%%, 2=%3.1f%%, 4=%3.1f%%, 8=%3.1f%%, 16=%3.1f%%, 32=%3.1f%%, >=64=%3.1f%%\n",
		d[0], d[1], d[2], d[3], d[4], d[5], d[6])
	d = depthPercents(j.Submit[:], j.SubmitCalls)
	fmt.Fprintf(w, "     submit    : 0=%3.1f%%, 4=%3.1f%%, 8=%3.1f%%, 16=%3.1f%%, 32=%3.1f%%, 64=%3.1f%%, >=64=%3.1f%%\n",
		d[0], d[1], d[2], d[3], d[4], d[5], d[6])
	d = depthPercents(j.Complete[:], j.CompleteCalls)
	fmt.Fprintf(w, "     complete  : 0=%3.1f%%, 4=%3.1f%%, 8=%3.1f%%, 16=%3.1f%%, 32=%3.1f%%, 64=%3.1f%%, >=64=%3.1f%%\n",
		d[0], d[1], d[2], d[3], d[4], d[5], d[6])
	fmt.Fprintf(w, "     issued rwts: total=%d,%d,%d,%d short=%d,%d,%d,0 dropped=%d,%d,%d,0\n",
		j.Dirs[0].TotalIOs, j.Dirs[1].TotalIOs, j.Dirs[2].TotalIOs, j.SyncIOs,
		j.Dirs[0].ShortIOs, j.Dirs[1].ShortIOs, j.Dirs[2].ShortIOs,
		j.Dirs[0].DropIOs, j.Dirs[1].DropIOs, j.Dirs[2].DropIOs)
	if continueOnError(j.Job) {
		fmt.Fprintf(w, "     errors    : total=%d, first_error=%d/<%s>\n", j.TotalErr, j.FirstErr, strerror(j.FirstErr))
	}
	if j.LatencyDepth != 0 {
		lt := latencyTargetOf(j)
		if r.Release.since342() {
			target, tu := scaleDownNs(uint64(lt.Target.Nanoseconds()))
			window, wu := scaleDownNs(uint64(lt.Window.Microseconds()) * 1000)
			fmt.Fprintf(w, "     latency   : target=%.2f%s, window=%.2f%s, percentile=%.2f%%, depth=%d\n",
				target, tu, window, wu, lt.Percentile, j.LatencyDepth)
		} else {
			fmt.Fprintf(w, "     latency   : target=%d, window=%d, percentile=%.2f%%, depth=%d\n",
				lt.Target.Nanoseconds(), lt.Window.Microseconds(), lt.Percentile, j.LatencyDepth)
		}
	}
	writeBlockInfosNormal(w, j.Blocks, jobPercentiles(j.Job)) // before steadystate, as fio's show_thread_status_normal
	if s := j.SteadyState; s != nil {
		writeSteadyStateNormal(w, j, s)
	}
	writeExtrasNormal(w, j)
}

// writeDirNormal writes direction d of j under the given name, as fio's
// show_ddir_status.
func writeDirNormal(w *bufio.Writer, rel Release, j *JobResult, d jobfile.Dir, g *GroupStats, name string) {
	ds := &j.Dirs[d]
	rt := runtimeMs(ds)
	if rt == 0 {
		return
	}
	i2p := isPow2(g.KBBase)
	figs := sigFigs(j.Job)
	bw := 1000 * ds.IOBytes / rt
	iops := 1000 * ds.TotalIOs / rt
	post := ""
	if rel.zoneResetsShown(j, d) {
		post = fmt.Sprintf("; %d zone resets", j.ZoneResets)
	}
	fmt.Fprintf(w, "  %s: IOPS=%s, BW=%s (%s)(%s/%dmsec)%s\n", name,
		Num2Str(iops, figs, 1, false, UnitNone),
		Num2Str(bw, figs, 1, i2p, bwUnit(unitBase(j.Job))),
		Num2Str(bw, figs, 1, !i2p, bwUnit(unitBase(j.Job))),
		Num2Str(ds.IOBytes, figs, 1, i2p, UnitByte), rt, post)
	if ds.Slat.N > 0 {
		displayLat(w, "slat", ds.Slat)
	}
	if ds.Clat.N > 0 {
		displayLat(w, "clat", ds.Clat)
	}
	if ds.Lat.N > 0 {
		displayLat(w, " lat", ds.Lat)
	}
	slatP, clatP, latP := percentileFlags(j.Job)
	prioType := "clat"
	if latP {
		prioType = "lat"
	}
	if ds.PriosShown() {
		for i := range ds.Prios {
			if p := &ds.Prios[i]; p.Lat.N > 0 {
				displayLat(w, rel.prioLabel(prioType, p.IOPrio), p.Lat)
			}
		}
	}
	if slatP && ds.Slat.N > 0 {
		writePercentilesNormal(w, "slat", &ds.SlatHist, ds.Slat.N, j.Job)
	}
	if clatP && ds.Clat.N > 0 {
		writePercentilesNormal(w, "clat", &ds.ClatHist, ds.Clat.N, j.Job)
	}
	if latP && ds.Lat.N > 0 {
		writePercentilesNormal(w, "lat", &ds.LatHist, ds.Lat.N, j.Job)
	}
	if (clatP || latP) && ds.PriosShown() {
		n := ds.Clat.N
		if latP {
			n = ds.Lat.N
		}
		for i := range ds.Prios {
			if p := &ds.Prios[i]; p.Lat.N > 0 {
				name := fmt.Sprintf("%s (%.2f%% of IOs)", rel.prioLabel(prioType, p.IOPrio), 100*float64(p.Lat.N)/float64(n))
				writePercentilesNormal(w, name, &p.Hist, p.Lat.N, j.Job)
			}
		}
	}
	if ds.BW.N > 0 {
		min, max, mean, dev := ds.BW.Min, ds.BW.Max, ds.BW.Mean, ds.BW.Stddev()
		unit := "KiB"
		switch {
		case g.UnitBase == 1 && i2p:
			unit = "Kibit"
		case g.UnitBase == 1:
			unit = "kbit"
		case !i2p:
			unit = "kB"
		}
		per := aggPercent(g, d, mean)
		fmin, fmax := float64(min), float64(max)
		if g.UnitBase == 1 {
			fmin, fmax, mean, dev = fmin*8, fmax*8, mean*8, dev*8
		}
		kb := float64(g.KBBase)
		if mean > kb*kb {
			fmin, fmax, mean, dev = fmin/kb, fmax/kb, mean/kb, dev/kb
			unit = "MiB"
			if g.UnitBase == 1 {
				unit = "Mibit"
			}
		}
		fmt.Fprintf(w, "   bw (%5s/s): min=%5d, max=%5d, per=%3.2f%%, avg=%5.02f, stdev=%5.02f, samples=%d\n",
			unit, uint64(fmin), uint64(fmax), per, mean, dev, ds.BW.N)
	}
	if ds.IOPS.N > 0 {
		fmt.Fprintf(w, "   iops        : min=%5d, max=%5d, avg=%5.02f, stdev=%5.02f, samples=%d\n",
			ds.IOPS.Min, ds.IOPS.Max, ds.IOPS.Mean, ds.IOPS.Stddev(), ds.IOPS.N)
	}
}

// aggPercent is fio's convert_agg_kbytes_percent: the share of the group's
// aggregate bandwidth one job's mean bw sample stands for, with the mean
// truncated to an integer as fio passes it.
func aggPercent(g *GroupStats, d jobfile.Dir, mean float64) float64 {
	p := 100.0
	if g != nil && g.Agg[d] > 1024 {
		p = float64(int64(mean)) * 100.0 / (float64(g.Agg[d]) / 1024.0)
		if p > 100 {
			p = 100
		}
	}
	return p
}

func isPow2(v int) bool { return v > 0 && v&(v-1) == 0 }

// percentileFlags returns slat_percentiles, clat_percentiles and
// lat_percentiles, with fio's defaults when there is no job.
func percentileFlags(j *jobfile.Job) (slat, clat, lat bool) {
	if j == nil {
		j = fioDefaults
	}
	return j.SlatPercentiles, j.ClatPercentiles, j.LatPercentiles
}

// precision is the number of decimals percentiles are printed with.
func precision(j *jobfile.Job) int {
	if j == nil || j.PercentilePrecision <= 0 {
		return fioDefaults.PercentilePrecision
	}
	return j.PercentilePrecision
}

func jobPercentiles(j *jobfile.Job) []float64 {
	if j == nil {
		return percentileList(nil)
	}
	return percentileList(j.PercentileList)
}

// latScale applies fio's nsec_to_msec / nsec_to_usec unit choice to a
// stat's min, max, mean and stdev.
func latScale(s Stat) (unit string, min, max uint64, mean, dev float64) {
	min, max, mean, dev = s.Min, s.Max, s.Mean, s.Stddev()
	switch {
	case min > 2000000 && max > 99999999 && dev > 1000000.0:
		return "msec", min / 1000000, max / 1000000, mean / 1000000.0, dev / 1000000.0
	case min > 2000 && max > 99999 && dev > 1000.0:
		return "usec", min / 1000, max / 1000, mean / 1000.0, dev / 1000.0
	}
	return "nsec", min, max, mean, dev
}

// displayLat writes one slat/clat/lat line (fio's display_lat).
func displayLat(w *bufio.Writer, name string, s Stat) {
	unit, min, max, mean, dev := latScale(s)
	fmt.Fprintf(w, "    %s (%s): min=%s, max=%s, avg=%5.02f, stdev=%5.02f\n", name, unit,
		Num2Str(min, 6, 1, false, UnitNone), Num2Str(max, 6, 1, false, UnitNone), mean, dev)
}

// writePercentilesNormal writes a percentile block as fio's
// show_clat_percentiles.
func writePercentilesNormal(w *bufio.Writer, pre string, h *Hist, n uint64, j *jobfile.Job) {
	plist := jobPercentiles(j)
	if len(plist) == 0 {
		return
	}
	vals, minv, maxv := Percentiles(h, n, plist)
	scale, divisor, unit := 0, uint64(1), "nsec"
	switch {
	case minv > 2000000 && maxv > 99999999:
		scale, divisor, unit = 2, 1000000, "msec"
	case minv > 2000 && maxv > 99999:
		scale, divisor, unit = 1, 1000, "usec"
	}
	fmt.Fprintf(w, "    %s percentiles (%s):\n     |", pre, unit)
	prec := precision(j)
	width := 5
	if q := maxv / divisor; q > 0 {
		if lw := int(math.Log10(float64(q))) + 1; lw > width {
			width = lw
		}
	}
	perLine := (80 - 7) / (prec + 10 + width)
	for i, v := range vals {
		if i != 0 && i%perLine == 0 {
			fmt.Fprint(w, "     |")
		}
		for k := 0; k < scale; k++ {
			v = (v + 999) / 1000
		}
		last := i == len(vals)-1
		end := byte(',')
		if last {
			end = '\n'
		}
		fmt.Fprintf(w, " %*.*fth=[%*d]%c", prec+3, prec, plist[i], width, v, end)
		if last {
			break
		}
		if i%perLine == perLine-1 {
			fmt.Fprint(w, "\n")
		}
	}
}

// latPercents is fio's stat_calc_lat: each bucket as a percentage of all
// data I/Os, with non-zero values below 0.01 shown as 0.01.
func latPercents(counts []uint64, total uint64) []float64 { return percents(counts, total, 0.01) }

// depthPercents is fio's stat_calc_dist: non-zero values below 0.1 are
// shown as 0.1.
func depthPercents(counts []uint64, total uint64) []float64 { return percents(counts, total, 0.1) }

// percents returns each count as a percentage of total, raising non-zero
// values below floor to floor.
func percents(counts []uint64, total uint64, floor float64) []float64 {
	out := make([]float64, len(counts))
	if total == 0 {
		return out
	}
	for i, c := range counts {
		out[i] = float64(c) / float64(total) * 100
		if out[i] < floor && c != 0 {
			out[i] = floor
		}
	}
	return out
}

var (
	latLabels   = []string{"2=", "4=", "10=", "20=", "50=", "100=", "250=", "500=", "750=", "1000="}
	latLabelsMs = []string{"2=", "4=", "10=", "20=", "50=", "100=", "250=", "500=", "750=", "1000=", "2000=", ">=2000="}
)

// writeLatDist writes the lat (nsec/usec/msec) distribution lines, five
// non-zero buckets per line, as fio's show_lat.
func writeLatDist(w *bufio.Writer, unit string, pct []float64) {
	labels := latLabels
	if len(pct) == len(latLabelsMs) {
		labels = latLabelsMs
	}
	onLine, shown := 0, false
	for i, p := range pct {
		if p <= 0 {
			continue
		}
		if onLine == 0 {
			if shown {
				fmt.Fprint(w, "\n")
			}
			fmt.Fprintf(w, "  lat (%s)   : ", unit)
		} else {
			fmt.Fprint(w, ", ")
		}
		shown = true
		fmt.Fprintf(w, "%s%3.2f%%", labels[i], p)
		onLine++
		if onLine == 5 {
			onLine = 0
		}
	}
	if shown {
		fmt.Fprint(w, "\n")
	}
}

func writeGroupNormal(w *bufio.Writer, g *GroupStats) {
	fmt.Fprintf(w, "\nRun status group %d (all jobs):\n", g.ID)
	labels := [...]string{"   READ", "  WRITE", "   TRIM"}
	for d := range labels {
		if g.MaxRun[d] == 0 {
			continue
		}
		label := labels[d]
		if g.UnifiedRW == jobfile.UnifiedMixed {
			label = "  MIXED"
		}
		writeGroupLine(w, g, label, g.Agg[d], g.MinBW[d], g.MaxBW[d], g.IOBytes[d], g.MinRun[d], g.MaxRun[d])
	}
	if g.UnifiedRW == jobfile.UnifiedBoth {
		writeMixedGroupNormal(w, g)
	}
}

// writeMixedGroupNormal writes the MIXED line of unified_rw_reporting=both
// as fio's show_mixed_group_stats: the directions' bytes and aggregate
// bandwidths summed, the smallest and largest member bandwidths and
// runtimes over all directions.
func writeMixedGroupNormal(w *bufio.Writer, g *GroupStats) {
	var io, agg, maxBW, maxRun uint64
	minBW, minRun := ^uint64(0), ^uint64(0)
	for d := range g.MaxRun {
		if g.MaxRun[d] == 0 {
			continue
		}
		io += g.IOBytes[d]
		agg += g.Agg[d]
		minBW = min(minBW, g.MinBW[d])
		maxBW = max(maxBW, g.MaxBW[d])
		minRun = min(minRun, g.MinRun[d])
		maxRun = max(maxRun, g.MaxRun[d])
	}
	writeGroupLine(w, g, "  MIXED", agg, minBW, maxBW, io, minRun, maxRun)
}

// writeGroupLine writes one direction line of a "Run status group" block.
func writeGroupLine(w *bufio.Writer, g *GroupStats, label string, agg, minBW, maxBW, io, minRun, maxRun uint64) {
	i2p := isPow2(g.KBBase)
	u := bwUnit(g.UnitBase)
	f := g.SigFigs
	fmt.Fprintf(w, "%s: bw=%s (%s), %s-%s (%s-%s), io=%s (%s), run=%d-%dmsec\n", label,
		Num2Str(agg, f, 1, i2p, u), Num2Str(agg, f, 1, !i2p, u),
		Num2Str(minBW, f, 1, i2p, u), Num2Str(maxBW, f, 1, i2p, u),
		Num2Str(minBW, f, 1, !i2p, u), Num2Str(maxBW, f, 1, !i2p, u),
		Num2Str(io, f, 1, i2p, UnitByte), Num2Str(io, f, 1, !i2p, UnitByte),
		minRun, maxRun)
}

// writeSteadyStateNormal writes fio's steadystate line (show_ss_normal):
// whether it was attained, the window's mean bandwidth and IOPS, with fio
// 3.42's lat criteria its mean latency, and the last criterion value.
func writeSteadyStateNormal(w *bufio.Writer, j *JobResult, s *SteadyState) {
	kb := uint64(kbBase(j.Job))
	i2p := isPow2(int(kb))
	figs := sigFigs(j.Job)
	unit := bwUnit(unitBase(j.Job))
	attained := "no"
	if s.Attained {
		attained = "yes"
	}
	lat := ""
	if s.Lat {
		// fio 3.42 scales the mean as a latency with no deviation, which
		// nsec_to_msec and nsec_to_usec never scale: nsec it stays.
		u, _, _, mean, _ := latScale(Stat{Min: s.LatMean(), Max: s.LatMean(), Mean: float64(s.LatMean())})
		lat = ", lat=" + Num2Str(uint64(mean), figs, 1, false, UnitNone) + u
	}
	fmt.Fprintf(w, "  steadystate  : attained=%s, bw=%s (%s), iops=%s%s, %s=%.3f%s\n", attained,
		Num2Str(s.BWMean()/kb, figs, int(kb), i2p, unit), Num2Str(s.BWMean()/kb, figs, int(kb), !i2p, unit),
		Num2Str(s.IOPSMean(), figs, 1, false, UnitNone), lat, steadyName(s, " slope", " mean dev"), s.Criterion, pctSign(s.Pct))
}
