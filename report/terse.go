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
func WriteTerse(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	rep := Reported(r)
	groups := Groups(rep)
	for _, j := range rep {
		writeTerseJob(bw, r, j, &groups[j.GroupID])
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

func writeTerseDir(w *bufio.Writer, j *JobResult, d jobfile.Dir, g *GroupStats) {
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

func writeTerseJob(w *bufio.Writer, r *Result, j *JobResult, g *GroupStats) {
	fmt.Fprintf(w, "3;%s;%s;%d;%d", r.Version, j.Name, j.GroupID, j.Error)
	writeTerseDir(w, j, jobfile.DirRead, g)
	writeTerseDir(w, j, jobfile.DirWrite, g)
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
		fmt.Fprintf(w, ";%s;%d;%d;%d;%d;%d;%d;%d;%3.2f%%", d.Name, d.ReadIOs, d.WriteIOs,
			d.ReadMerges, d.WriteMerges, d.ReadTicks, d.WriteTicks, d.InQueue, d.Util)
	}
	if continueOnError(j.Job) {
		fmt.Fprintf(w, ";%d;%d", j.TotalErr, j.FirstErr)
	}
	if j.Job != nil && j.Job.Description != "" {
		fmt.Fprintf(w, ";%s", j.Job.Description)
	}
	fmt.Fprint(w, "\n")
}
