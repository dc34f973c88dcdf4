package equivalence

import (
	"fmt"
	"strings"
)

// iologJob writes an iolog (job w, write_iolog=w.log, with the options
// writer) and then replays the log at replayPath (job r, read_iolog=),
// with the engine options of engine.
func iologJob(engine, writer, replayPath string) string {
	return "[global]\n" + engine + "bs=4k\n" +
		"[w]\nrw=randrw\nsize=256k\nrandrepeat=1\n" + writer + "filename=data\nwrite_iolog=w.log\n" +
		"[r]\nstonewall\nread_iolog=" + replayPath + "\n"
}

// iologRows are the write_iolog and read_iolog rows: the written
// log is fio's line for line (times apart), and a replay issues what
// fio's replay issues.
var iologRows = []Row{
	{Name: "options/iolog-write-replay", Ref: "write_iolog, then read_iolog of that log",
		JobFile: iologJob("ioengine=psync\n", "fsync=4\n", "w.log"), Exact: append([]string{"sync.total_ios"}, syncDepth...), Check: sameIolog("w.log")},
	{Name: "options/iolog-replay-fio-log", Ref: "read_iolog of the log fio wrote (gofio replays fio's own w.log)",
		// The suite runs fio first, in the sibling directory fio-0: both
		// programs replay the log fio wrote there.
		JobFile: iologJob("ioengine=psync\n", "fsync=4\n", "../fio-0/w.log"), Exact: append([]string{"sync.total_ios"}, syncDepth...)},
	{Name: "options/iolog-replay-uring", Ref: "read_iolog at iodepth=8: the depth and total_ios of fio's replay",
		JobFile:    iologJob("ioengine=io_uring\niodepth=8\n", "", "w.log"),
		Documented: []string{"read.io_bytes", "write.io_bytes"},
		Check:      replayBytes(1),
	},
}

// iologBody drops the time stamp of every line of a version 3 iolog.
func iologBody(log []byte) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(string(log), "\n"), "\n") {
		if _, rest, ok := strings.Cut(l, " "); ok && !strings.HasPrefix(l, "fio version") {
			l = rest
		}
		out = append(out, l)
	}
	return out
}

// sameIolog returns a Check that both programs wrote the same iolog name,
// line by line, times apart.
func sameIolog(name string) func(fio, gofio []*Outcome) []string {
	return eachLog([]string{name}, iologBody, func(run int, name string, f, g []string) []string {
		var diffs []string
		if len(f) < 3 {
			diffs = append(diffs, fmt.Sprintf("run %d: fio's %s has %d lines", run, name, len(f)))
		}
		return append(diffs, seqDiffs(run, name, "line", f, g)...)
	})
}

// replayBytes returns the Check of the documented difference of a replay
// at iodepth > 1 (job index job): fio stops reaping when the log runs out
// and loses the bytes of the I/Os still in flight, so its io_bytes is at
// most the log's; gofio's is every byte of the log (total_ios x 4k here).
func replayBytes(job int) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		var diffs []string
		for i := range fio {
			fj, gj := fio[i].Doc.Jobs(), gofio[i].Doc.Jobs()
			if len(fj) <= job || len(gj) <= job {
				return []string{fmt.Sprintf("run %d: no job %d", i, job)}
			}
			for _, d := range []string{"read", "write"} {
				ios, _ := Number(gj[job], d+".total_ios")
				g, _ := Number(gj[job], d+".io_bytes")
				f, _ := Number(fj[job], d+".io_bytes")
				if g != ios*4096 {
					diffs = append(diffs, fmt.Sprintf("run %d: gofio %s.io_bytes %v, want every I/O of the log: %v", i, d, g, ios*4096))
				}
				if f > g {
					diffs = append(diffs, fmt.Sprintf("run %d: fio %s.io_bytes %v is more than the log's %v", i, d, f, g))
				}
			}
		}
		return diffs
	}
}
