package equivalence

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// logRows are the log options: write_hist_log with log_hist_msec
// and log_hist_coarseness, the log compression options and the log
// epochs. The histogram jobs are slowed (thinktime, or rate_iops where
// they only read: a rate-limited randrw mixes by time) so that both
// programs take the same time and log as many histogram lines.
var logRows = []Row{
	{Name: "logs/hist-randrw", Ref: "write_hist_log, log_hist_msec: fio's clat histogram log, read by fiologparser_hist.py; the bw, iops and latency logs, read by fiologparser.py",
		Args: args(psync, "--rw=randrw", "--bs=4k", "--size=2m", "--thinktime=2ms", "--write_hist_log=h", "--log_hist_msec=100",
			"--write_bw_log=l", "--write_iops_log=l", "--write_lat_log=l"),
		Exact: syncDepth, Check: checkAll(sameHistLog("h_clat_hist.1.log", 0, 100), sameLogParse("l_bw.1.log", "l_iops.1.log", "l_clat.1.log", "l_lat.1.log"))},
	{Name: "logs/hist-coarse-read", Ref: "log_hist_coarseness=3: 232 columns of 8 buckets",
		Args:  args(psync, "--rw=read", "--bs=4k", "--size=1m", "--rate_iops=500", "--write_hist_log=c", "--log_hist_msec=50", "--log_hist_coarseness=3"),
		Exact: syncDepth, Check: sameHistLog("c_clat_hist.1.log", 3, 50)},
	{Name: "logs/hist-no-msec", Ref: "write_hist_log without log_hist_msec: an empty log",
		Args:  args(psync, "--rw=write", "--bs=4k", "--size=256k", "--write_hist_log=h"),
		Exact: syncDepth, Check: sameHistLog("h_clat_hist.1.log", 0, 0)},
	{Name: "logs/store-compressed", Ref: "log_store_compressed, log_compression, log_entries: fio's zlib chunks of binary samples, read by fio --inflate-log (lat, bw, iops)",
		Args: args(psync, "--rw=randrw", "--bs=4k", "--size=12m", "--write_lat_log=l", "--write_bw_log=l", "--write_iops_log=l", "--log_offset=1", "--log_prio=1",
			"--log_store_compressed=1", "--log_compression=4k", "--log_entries=1024"),
		Exact: syncDepth, Check: sameInflated("l_clat.1.log.fz", "l_lat.1.log.fz", "l_slat.1.log.fz", "l_bw.1.log.fz", "l_iops.1.log.fz"), FioHangs: fioCompressionHang},
	{Name: "logs/hist-stored", Ref: "write_hist_log with log_store_compressed: fio stores its pointer lines in h_clat_hist.1.log.fz (fio --inflate-log prints them; jobfile/DIFFERENCES.md), gofio writes the histogram log",
		Args:  args(psync, "--rw=read", "--bs=4k", "--size=512k", "--rate_iops=1000", "--write_hist_log=h", "--log_hist_msec=50", "--log_compression=1k", "--log_store_compressed=1"),
		Exact: syncDepth, Check: histPointers("h_clat_hist.1.log"), FioHangs: fioCompressionHang},
	{Name: "logs/compression-plain", Ref: "log_compression without log_store_compressed: the same text logs",
		Args:  args(psync, "--rw=randread", "--bs=4k", "--size=8m", "--write_lat_log=l", "--log_offset=1", "--log_compression=1k", "--log_compression_cpus=0"),
		Exact: syncDepth, Check: sameIOs("l_clat.1.log"), FioHangs: fioCompressionHang},
	{Name: "logs/hist-compressed", Ref: "write_hist_log with log_compression: fio compresses its histogram pointers, gofio writes the histogram (jobfile/DIFFERENCES.md)",
		Args: args(psync, "--rw=read", "--bs=4k", "--size=1m", "--rate_iops=500", "--write_hist_log=h", "--log_hist_msec=100", "--log_compression=1k"),
		// Serial: fio 3.33 with log_compression hung once at exit in CI
		// (killed after RunTimeout) while every row ran at once on 2
		// cores; alone, and again when a run differs, it ends in 0.9 s.
		Exact: syncDepth, Check: histPointers("h_clat_hist.1.log"), Serial: true, FioHangs: fioCompressionHang},
	{Name: "logs/unix-epoch", Ref: "log_unix_epoch: every log's times count from the Unix epoch",
		Args: args(psync, "--rw=randrw", "--bs=4k", "--size=1m", "--thinktime=2ms", "--write_lat_log=l", "--write_bw_log=l",
			"--write_hist_log=h", "--log_hist_msec=100", "--log_unix_epoch=1"),
		Exact: syncDepth, Check: epochTimes(unix.CLOCK_REALTIME, "l_clat.1.log", "l_bw.1.log", "h_clat_hist.1.log")},
	{Name: "logs/alternate-epoch-monotonic", Ref: "log_alternate_epoch with log_alternate_epoch_clock_id=1: times from CLOCK_MONOTONIC's epoch",
		Args: args(psync, "--rw=read", "--bs=4k", "--size=512k", "--write_lat_log=l", "--write_iops_log=l", "--log_offset=1",
			"--log_alternate_epoch=1", "--log_alternate_epoch_clock_id=1"),
		Exact: syncDepth, Check: epochTimes(unix.CLOCK_MONOTONIC, "l_lat.1.log", "l_iops.1.log")},
}

// fioCompressionHang is why fio 3.33 may hang on a row with
// log_compression (Row.FioHangs): it hung at exit, its compression
// workers not ending, in CI and in full suite runs under load (killed
// after 90 s; 3 times in 2026-12 sessions), where alone it ends in about a
// second.
const fioCompressionHang = "log_compression: fio 3.33's compression workers can hang it at exit"

// epochTimes returns a Check that every line of each log of both
// programs has a time (the first column, in ms) from the epoch of clock:
// within the minute before the check runs, and that both programs logged
// as many lines in each per-I/O log.
func epochTimes(clock int32, logs ...string) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		var ts unix.Timespec
		if err := unix.ClockGettime(clock, &ts); err != nil {
			return []string{err.Error()}
		}
		now := uint64(ts.Sec)*1000 + uint64(ts.Nsec)/1000000
		var diffs []string
		for i := range fio {
			for _, name := range logs {
				var n [2]int
				for k, o := range []*Outcome{fio[i], gofio[i]} {
					data, ok := o.Logs[name]
					if !ok {
						return []string{fmt.Sprintf("%s wrote no log %s", o.Program, name)}
					}
					for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
						t, err := strconv.ParseUint(strings.SplitN(l, ",", 2)[0], 10, 64)
						if err != nil || t > now || now-t > 60000 {
							diffs = append(diffs, fmt.Sprintf("%s %s: line %q: time not within the minute before %d", o.Program, name, l, now))
							break
						}
						n[k]++
					}
				}
				// A histogram log's lines follow the job's own timing
				// (sameHistLog checks them against its runtime).
				if !strings.Contains(name, "hist") && n[0] != n[1] {
					diffs = append(diffs, fmt.Sprintf("run %d: %s: %d lines from fio, %d from gofio", i, name, n[0], n[1]))
				}
			}
		}
		return diffs
	}
}

// sameInflated returns a Check that fio --inflate-log prints each of the
// stored compressed logs of both programs with as many lines and the
// same direction, bs, offset and priority columns.
func sameInflated(logs ...string) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		var diffs []string
		for i := range fio {
			for _, name := range logs {
				var cols [2][]string
				for k, o := range []*Outcome{fio[i], gofio[i]} {
					data, ok := o.Logs[name]
					if !ok {
						return []string{fmt.Sprintf("%s wrote no log %s", o.Program, name)}
					}
					if len(data) == 0 {
						continue // no samples (fio's --inflate-log says "short read")
					}
					out, err := exec.Command("fio", "--inflate-log="+filepath.Join(o.Dir, name)).Output()
					if err != nil {
						return []string{fmt.Sprintf("fio --inflate-log=%s of %s: %v: %s", name, o.Program, err, stderrOf(err))}
					}
					for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
						if f := strings.SplitN(l, ", ", 3); len(f) == 3 {
							cols[k] = append(cols[k], f[2])
						} else if l != "" {
							diffs = append(diffs, fmt.Sprintf("%s: fio --inflate-log=%s printed %q", o.Program, name, l))
						}
					}
				}
				if !slices.Equal(cols[0], cols[1]) {
					diffs = append(diffs, fmt.Sprintf("run %d: fio --inflate-log=%s: %d lines from fio's log, %d from gofio's, or their direction, bs, offset and priority differ", i, name, len(cols[0]), len(cols[1])))
				}
			}
		}
		return diffs
	}
}

// histPointers returns a Check of a write_hist_log file written with
// log_compression: fio's lines hold its histogram copies' addresses as
// one value (5 columns), in name or, with log_store_compressed, stored in
// name.fz, which fio --inflate-log prints; gofio's are its histogram log,
// which fiologparser_hist.py reads.
func histPointers(name string) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		var diffs []string
		for i := range fio {
			f := fio[i]
			stored, isStored := f.Logs[name+".fz"]
			if _, ok := f.Logs[name]; !ok && isStored && len(stored) > 0 {
				out, err := exec.Command("fio", "--inflate-log="+filepath.Join(f.Dir, name+".fz")).Output()
				if err != nil {
					return []string{fmt.Sprintf("fio --inflate-log=%s.fz of fio (%d bytes): %v: %s", name, len(stored), err, stderrOf(err))}
				}
				c := *f
				c.Logs = map[string][]byte{name: out}
				f = &c
			}
			// fio 3.33 stores its windows' lines when its compression
			// workers flush them; under load it has ended with the .fz
			// empty (fio --inflate-log: "short read on reading log",
			// exit 1, in one CI run at load 11), the same job alone
			// storing 2 lines in each of 24 runs. An empty store is fio's
			// timing: there is nothing of fio's to check, gofio's log
			// still is.
			if _, ok := f.Logs[name]; ok || !isStored || len(stored) > 0 {
				lines, err := readHistLog(f, name)
				if err != nil {
					return []string{err.Error()}
				}
				if len(lines) == 0 || len(lines[0].bins) != 2 {
					diffs = append(diffs, fmt.Sprintf("fio's %s with log_compression: %d lines, not the pointer lines DIFFERENCES.md describes", name, len(lines)))
				}
			}
			g, err := readHistLog(gofio[i], name)
			if err != nil {
				return []string{err.Error()}
			}
			var total uint64
			for n, l := range g {
				if len(l.bins) != histBuckets {
					diffs = append(diffs, fmt.Sprintf("gofio %s:%d: %d bins", name, n+1, len(l.bins)))
					break
				}
				for _, b := range l.bins {
					total += b
				}
			}
			if total == 0 {
				diffs = append(diffs, fmt.Sprintf("gofio's %s holds no samples", name))
			}
			_, pd := histParser(gofio[i], name, total)
			diffs = append(diffs, pd...)
		}
		return diffs
	}
}

// stderrOf returns what a command that failed printed on its standard
// error, when err is the exec.ExitError of Output, which keeps it.
func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return strings.TrimSpace(string(ee.Stderr))
	}
	return ""
}

// histBuckets is the number of buckets of fio's latency histogram
// (FIO_IO_U_PLAT_NR).
const histBuckets = 1856

// histLine is one line of a write_hist_log file.
type histLine struct {
	msec, dir, bs uint64
	bins          []uint64
}

// readHistLog parses log name of an outcome.
func readHistLog(o *Outcome, name string) ([]histLine, error) {
	recs, err := logRecords(o, name)
	var lines []histLine
	for n, rec := range recs {
		var vals []uint64
		for _, f := range rec {
			v, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s %s:%d: %w", o.Program, name, n+1, err)
			}
			vals = append(vals, v)
		}
		if len(vals) < 4 {
			return nil, fmt.Errorf("%s %s:%d: %d columns", o.Program, name, n+1, len(vals))
		}
		lines = append(lines, histLine{msec: vals[0], dir: vals[1], bs: vals[2], bins: vals[3:]})
	}
	return lines, err
}

// sameHistLog returns a Check of a write_hist_log file written with
// log_hist_coarseness=coarse and log_hist_msec=msec: every line of both
// programs has fio's columns (time, direction, bs and 1856>>coarse bins),
// each direction's lines are in time order (fio's drift correction lets
// a line follow a late one at once) and number about the job's runtime
// over msec (at most one more, at least half), the bins of a direction
// add up to no more than its completions, each line's bins to at least
// one, and fio's fiologparser_hist.py reads both logs into tables of the same
// columns, a row per second up to the log's last line (one more or fewer;
// how many seconds each program ran is its own timing, which on a loaded
// machine differs more than a second between them).
func sameHistLog(name string, coarse int, msec uint64) func(fio, gofio []*Outcome) []string {
	cols := histBuckets >> coarse
	return func(fio, gofio []*Outcome) []string {
		var diffs []string
		for i := range fio {
			for _, o := range []*Outcome{fio[i], gofio[i]} {
				lines, err := readHistLog(o, name)
				if err != nil {
					return []string{err.Error()}
				}
				if msec == 0 && len(lines) > 0 {
					diffs = append(diffs, fmt.Sprintf("%s: %d lines in %s without log_hist_msec", o.Program, len(lines), name))
				}
				var last [3]uint64
				var sums, count [3]uint64
				var end uint64
				for n, l := range lines {
					if len(l.bins) != cols || l.dir > 2 || l.bs != 4096 {
						diffs = append(diffs, fmt.Sprintf("%s %s:%d: dir %d bs %d and %d bins, want bs 4096 and %d bins", o.Program, name, n+1, l.dir, l.bs, len(l.bins), cols))
						continue
					}
					if count[l.dir] > 0 && l.msec < last[l.dir] {
						diffs = append(diffs, fmt.Sprintf("%s %s:%d: %d ms, before the direction's last line at %d", o.Program, name, n+1, l.msec, last[l.dir]))
					}
					last[l.dir] = l.msec
					end = max(end, l.msec)
					count[l.dir]++
					var sum uint64
					for _, b := range l.bins {
						sum += b
					}
					// fio writes a line at a completion, once
					// log_hist_msec has passed since the last, with
					// the bins counted since: the completion that
					// wrote it is among them. The completions after
					// the last line are in no line, in fio's log as
					// in gofio's, and how many they are is timing: a
					// rate_iops job that caught up after a stall
					// completes a burst in its last window (fio's
					// bins added up to 92 and 127 of 256 at load 4.5
					// and 29), so the sum has no lower bound but the
					// lines'.
					if sum == 0 {
						diffs = append(diffs, fmt.Sprintf("%s %s:%d: no completion in the line's bins", o.Program, name, n+1))
					}
					sums[l.dir] += sum
				}
				job := o.Doc.Jobs()[0]
				runtime, _ := Number(job, "job_runtime")
				for d, dir := range []string{"read", "write", "trim"} {
					total, _ := Number(job, dir+".total_ios")
					if float64(sums[d]) > total {
						diffs = append(diffs, fmt.Sprintf("%s: the %s bins of %s add up to %d, the job completed %v", o.Program, dir, name, sums[d], total))
					}
					if msec == 0 || total == 0 {
						continue
					}
					if want := runtime / float64(msec); float64(count[d]) > want+1 || float64(count[d]) < want/2-1 {
						diffs = append(diffs, fmt.Sprintf("%s: %d %s lines in %s, the job ran %v ms with a line every %d ms", o.Program, count[d], dir, name, runtime, msec))
					}
				}
				rows, pd := histParser(o, name, sums[0]+sums[1]+sums[2])
				diffs = append(diffs, pd...)
				if want := int((end + 999) / 1000); rows > 0 && (rows < want-1 || rows > want+1) {
					diffs = append(diffs, fmt.Sprintf("run %d: fiologparser_hist.py printed %d rows for %s's %s, whose last line is at %d ms", i, rows, o.Program, name, end))
				}
			}
		}
		return diffs
	}
}

// histParser runs fio's tools/hist/fiologparser_hist.py, as Debian's fio
// package ships it, on the log name of o (total: the samples in its
// bins), with a python3 that has pandas (.ci/run installs
// python3-pandas), and checks its table: fio's header, nine columns a
// row, end times increasing. It returns the table's rows. Without the
// script or pandas it returns nothing; the structure checks of
// sameHistLog still run.
func histParser(o *Outcome, name string, total uint64) (int, []string) {
	if total == 0 {
		return 0, nil // the parser refuses a log without lines
	}
	python := pandasPython()
	gz, err := os.ReadFile("/usr/share/doc/fio/fiologparser_hist.py.gz")
	if python == "" || err != nil {
		return 0, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return 0, []string{fmt.Sprintf("fiologparser_hist.py.gz: %v", err)}
	}
	src, err := io.ReadAll(zr)
	if err != nil {
		return 0, []string{fmt.Sprintf("fiologparser_hist.py.gz: %v", err)}
	}
	script := filepath.Join(o.Dir, "fiologparser_hist.py")
	if err := os.WriteFile(script, src, 0o644); err != nil {
		return 0, []string{err.Error()}
	}
	out, err := exec.Command(python, script, filepath.Join(o.Dir, name)).CombinedOutput()
	if err != nil {
		return 0, []string{fmt.Sprintf("%s: fiologparser_hist.py %s: %v\n%s", o.Program, name, err, out)}
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if lines[0] != "end-time, samples, min, avg, median, 90%, 95%, 99%, max" || len(lines) < 2 {
		return 0, []string{fmt.Sprintf("%s: fiologparser_hist.py printed %q", o.Program, out)}
	}
	prev := -1.0
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		end, err := strconv.ParseFloat(strings.TrimSpace(f[0]), 64)
		if err != nil || len(f) != 9 || end <= prev {
			return 0, []string{fmt.Sprintf("%s: fiologparser_hist.py line %q", o.Program, l)}
		}
		prev = end
	}
	return len(lines) - 1, nil
}

// sameLogParse returns a Check that fio's tools/fiologparser.py, as
// Debian's fio package ships it, reads the logs of both programs alike.
// fio 3.33's lines have five columns (time, value, direction, bs,
// priority) where the script unpacks four, so on both programs' logs it
// fails with the same error. On the logs cut to their first four columns
// (cut -d, -f1-4), its default mode (the mean) and -f (each interval, a
// column a log; -s and -a add -f's columns up) print lines of the same
// columns for both programs; how many, and the figures, follow the runs'
// timing. (-A fails on any log under python3: its median indexes a list
// with a float.) Without the script it checks nothing.
func sameLogParse(logs ...string) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		gz, err := os.ReadFile("/usr/share/doc/fio/fiologparser.py.gz")
		if err != nil {
			return nil
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			return []string{fmt.Sprintf("fiologparser.py.gz: %v", err)}
		}
		src, err := io.ReadAll(zr)
		if err != nil {
			return []string{fmt.Sprintf("fiologparser.py.gz: %v", err)}
		}
		var diffs []string
		for i := range fio {
			var got [2][]string
			for k, o := range []*Outcome{fio[i], gofio[i]} {
				script := filepath.Join(o.Dir, "fiologparser.py")
				if err := os.WriteFile(script, src, 0o644); err != nil {
					return []string{err.Error()}
				}
				var plain, cut []string
				for _, name := range logs {
					data, ok := o.Logs[name]
					if !ok {
						return []string{fmt.Sprintf("%s wrote no log %s", o.Program, name)}
					}
					var b strings.Builder
					for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
						f := strings.Split(l, ", ")
						b.WriteString(strings.Join(f[:min(len(f), 4)], ", ") + "\n")
					}
					c := filepath.Join(o.Dir, "cut-"+name)
					if err := os.WriteFile(c, []byte(b.String()), 0o644); err != nil {
						return []string{err.Error()}
					}
					plain, cut = append(plain, filepath.Join(o.Dir, name)), append(cut, c)
				}
				got[k] = append(got[k], "logs as written: "+logParserShape(script, "", plain))
				for _, mode := range []string{"", "-f"} {
					got[k] = append(got[k], "logs cut, mode "+mode+": "+logParserShape(script, mode, cut))
				}
			}
			for m := range got[0] {
				if got[0][m] != got[1][m] {
					diffs = append(diffs, fmt.Sprintf("run %d: fiologparser.py on fio's %s; on gofio's %s", i, got[0][m], got[1][m]))
				}
			}
		}
		return diffs
	}
}

// logParserShape runs fiologparser.py (at script) in mode on files and
// says what it printed: "exit STATUS: LAST STDERR LINE" when it fails,
// else the distinct shapes of its lines, each run of digits written as 9.
func logParserShape(script, mode string, files []string) string {
	args := []string{script}
	if mode != "" {
		args = append(args, mode)
	}
	cmd := exec.Command("python3", append(args, files...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		return fmt.Sprintf("exit %v: %s", err, lines[len(lines)-1])
	}
	digits := regexp.MustCompile(`[0-9]+`)
	var shapes []string
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if s := digits.ReplaceAllString(l, "9"); !slices.Contains(shapes, s) {
			shapes = append(shapes, s)
		}
	}
	slices.Sort(shapes)
	return "lines shaped " + strings.Join(shapes, " | ")
}

// pandasPython returns a python3 that imports pandas and numpy, the
// modules fiologparser_hist.py needs, or "" when there is none; it looks
// once per test binary.
var pandasPython = sync.OnceValue(func() string {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import pandas, numpy").Run() == nil {
			return p
		}
	}
	return ""
})
