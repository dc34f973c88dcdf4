package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/gofio/gofio/jobfile"
)

// WriteHeader writes the lines fio prints before a run: one description
// line per job (clones after the first show once as "..."), the version
// line and "Starting N process(es)", each line fio's, byte for byte, and
// nothing else: gofio's lines come after each job's block (gofioLine). A
// job whose engine moves no data (cpuio, exec: fio's FIO_NOIO) has no job
// line, as in fio.
func WriteHeader(w io.Writer, jobs []*jobfile.Job, version string) error {
	bw := bufio.NewWriter(w)
	threads, procs := 0, 0
	for _, j := range jobs {
		if j.Thread {
			threads++
		} else {
			procs++
		}
		switch j.SubjobNumber {
		case 0:
			if !j.Engine().NoIO {
				jobLine(bw, j)
			}
		case 1:
			fmt.Fprint(bw, "...\n")
		}
	}
	fmt.Fprintf(bw, "%s\n", version)
	fmt.Fprint(bw, "Starting ")
	if threads > 0 {
		fmt.Fprintf(bw, "%d thread%s", threads, plural(threads, "s"))
	}
	if procs > 0 {
		if threads > 0 {
			fmt.Fprint(bw, " and ")
		}
		fmt.Fprintf(bw, "%d process%s", procs, plural(procs, "es"))
	}
	fmt.Fprint(bw, "\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write header: %w", err)
	}
	return nil
}

// WriteJobLines writes what fio prints when --merge-blktrace-only parses
// the jobs: the job line of each job that is not a clone and whose engine
// moves data, and nothing else (no "..." for clones, which fio never
// makes on that path, no version or "Starting" line).
func WriteJobLines(w io.Writer, jobs []*jobfile.Job) error {
	bw := bufio.NewWriter(w)
	for _, j := range jobs {
		if j.SubjobNumber == 0 && !j.Engine().NoIO {
			jobLine(bw, j)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write job lines: %w", err)
	}
	return nil
}

// jobLine writes fio's line describing job j, byte for byte:
// "name: (g=N): rw=..., bs=(R) lo-hi, (W) lo-hi, (T) lo-hi, ioengine=..., iodepth=N".
func jobLine(bw *bufio.Writer, j *jobfile.Job) {
	i2p := isPow2(kbBase(j))
	figs := sigFigs(j)
	var bs [jobfile.NumDirs][2]string
	for d := jobfile.DirRead; d < jobfile.NumDirs; d++ {
		lo, hi := j.BSMin(d), j.BSMax(d)
		bs[d] = [2]string{Num2Str(lo, figs, 1, i2p, UnitByte), Num2Str(hi, figs, 1, i2p, UnitByte)}
	}
	fmt.Fprintf(bw, "%s: (g=%d): rw=%s, bs=(R) %s-%s, (W) %s-%s, (T) %s-%s, ioengine=%s, iodepth=%d\n",
		j.Name, j.GroupID, j.RW, bs[0][0], bs[0][1], bs[1][0], bs[1][1], bs[2][0], bs[2][1],
		j.IOEngine, j.IODepth)
}

func plural(n int, s string) string {
	if n > 1 {
		return s
	}
	return ""
}
