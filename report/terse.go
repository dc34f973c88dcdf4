package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/gofio/gofio/jobfile"
)

// WriteTerse writes r in fio's terse (minimal) format, version 3: one
// ';'-separated line per reported job, fields in fio 3.33's order
// (show_thread_status_terse_all). The second field is r.Version.
func WriteTerse(w io.Writer, r *Result) error { return WriteTerseVersion(w, r, 3) }

// TerseVersions are the terse versions fio 3.33 writes (--terse-version).
var TerseVersions = []int{2, 3, 4, 5}

// WriteTerseVersion writes r in fio's terse format version ver (2 to 5), as
// fio 3.33's --terse-version: version 2 has no version field, no disk
// lines and puts the description on a line of its own; 4 and 5 add the
// trim direction; 5 adds per direction the bandwidth sample count and the
// IOPS min, max, mean, stdev and sample count.
func WriteTerseVersion(w io.Writer, r *Result, ver int) error {
	if ver < 2 || ver > 5 {
		return fmt.Errorf("bad terse version %d (fio writes 2, 3, 4 and 5)", ver)
	}
	bw := bufio.NewWriter(w)
	rep := Reported(r)
	groups := Groups(rep)
	for _, j := range rep {
		writeTerseJob(bw, r, j, &groups[j.GroupID], ver)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write terse report: %w", err)
	}
	return nil
}

// terseLat writes min;max;mean;stdev in microseconds (fio divides the
// integer ns by 1000).
func terseLat(w *bufio.Writer, s Stat) {
	if s.N == 0 {
		fmt.Fprintf(w, ";%d;%d;%f;%f", 0, 0, 0.0, 0.0)
		return
	}
	fmt.Fprintf(w, ";%d;%d;%f;%f", s.Min/1000, s.Max/1000, s.Mean/1000, s.Stddev()/1000)
}

func writeTerseDir(w *bufio.Writer, j *JobResult, d jobfile.Dir, g *GroupStats, ver int) {
	ds := &j.Dirs[d]
	var bw, iops uint64
	if rt := runtimeMs(ds); rt != 0 {
		bw = 1000 * ds.IOBytes / rt / 1024
		iops = 1000 * ds.TotalIOs / rt
	}
	fmt.Fprintf(w, ";%d;%d;%d;%d", ds.IOBytes>>10, bw, iops, runtimeMs(ds))
	terseLat(w, ds.Slat)
	terseLat(w, ds.Clat)
	_, clatP, latP := percentileFlags(j.Job)
	plist := jobPercentiles(j.Job)
	var vals []uint64
	switch {
	case latP:
		vals, _, _ = Percentiles(&ds.LatHist, ds.Lat.N, plist)
	case clatP:
		vals, _, _ = Percentiles(&ds.ClatHist, ds.Clat.N, plist)
	}
	for i := 0; i < MaxPercentiles; i++ {
		if i >= len(vals) {
			fmt.Fprint(w, ";0%=0")
			continue
		}
		fmt.Fprintf(w, ";%f%%=%d", plist[i], vals[i]/1000)
	}
	terseLat(w, ds.Lat)
	defer func() {
		if ver != 5 {
			return
		}
		fmt.Fprintf(w, ";%d", ds.BW.N)
		if ds.IOPS.N == 0 {
			fmt.Fprintf(w, ";%d;%d;%f;%f;%d", 0, 0, 0.0, 0.0, 0)
			return
		}
		fmt.Fprintf(w, ";%d;%d;%f;%f;%d", ds.IOPS.Min, ds.IOPS.Max, ds.IOPS.Mean, ds.IOPS.Stddev(), ds.IOPS.N)
	}()
	if ds.BW.N == 0 {
		fmt.Fprintf(w, ";%d;%d;%f%%;%f;%f", 0, 0, 0.0, 0.0, 0.0)
		return
	}
	mean := ds.BW.Mean
	agg := 100.0
	if g.Agg[d] != 0 {
		// fio divides by the integer agg/1024; a zero divisor gives
		// infinity, which the cap turns into 100.
		if k := g.Agg[d] / 1024; k != 0 {
			agg = mean * 100 / float64(k)
		}
		if agg > 100 {
			agg = 100
		}
	}
	fmt.Fprintf(w, ";%d;%d;%f%%;%f;%f", ds.BW.Min, ds.BW.Max, agg, mean, ds.BW.Stddev())
}

func writeTerseJob(w *bufio.Writer, r *Result, j *JobResult, g *GroupStats, ver int) {
	if ver == 2 {
		fmt.Fprintf(w, "2;%s;%d;%d", j.Name, j.GroupID, j.Error)
	} else {
		fmt.Fprintf(w, "%d;%s;%s;%d;%d", ver, r.Version, j.Name, j.GroupID, j.Error)
	}
	writeTerseDir(w, j, jobfile.DirRead, g, ver) // or mixed, folded into reads
	if unifiedRW(j) != jobfile.UnifiedMixed {
		writeTerseDir(w, j, jobfile.DirWrite, g, ver)
		if ver != 3 {
			writeTerseDir(w, j, jobfile.DirTrim, g, ver)
		}
	}
	if unifiedRW(j) == jobfile.UnifiedBoth {
		writeTerseDir(w, Mixed(j), jobfile.DirRead, g, ver)
	}
	usr, sys := cpuPercent(j)
	fmt.Fprintf(w, ";%f%%;%f%%;%d;%d;%d", usr, sys, j.Ctx, j.Majf, j.Minf)
	total := totalIOs(j)
	for _, p := range depthPercents(j.IODepth[:], total) {
		fmt.Fprintf(w, ";%3.1f%%", p)
	}
	us := latPercents(j.LatUs[:], total)
	if total != 0 {
		// Terse has no nanosecond buckets: fio folds them all into the
		// first microsecond bucket (stat_calc_lat_nu).
		var ns uint64
		for _, c := range j.LatNs {
			ns += c
		}
		us[0] += 100 * float64(ns) / float64(total)
	}
	for _, p := range us {
		fmt.Fprintf(w, ";%3.2f%%", p)
	}
	for _, p := range latPercents(j.LatMs[:], total) {
		fmt.Fprintf(w, ";%3.2f%%", p)
	}
	for _, d := range r.Disks {
		if ver < 3 {
			break
		}
		fmt.Fprintf(w, ";%s;%d;%d;%d;%d;%d;%d;%d;%3.2f%%", d.Name, d.ReadIOs, d.WriteIOs,
			d.ReadMerges, d.WriteMerges, d.ReadTicks, d.WriteTicks, d.InQueue, d.Util)
	}
	if continueOnError(j.Job) {
		fmt.Fprintf(w, ";%d;%d", j.TotalErr, j.FirstErr)
	}
	if j.Job != nil && j.Job.Description != "" {
		if ver == 2 {
			fmt.Fprint(w, "\n")
		}
		fmt.Fprintf(w, ";%s", j.Job.Description)
	}
	fmt.Fprint(w, "\n")
}
