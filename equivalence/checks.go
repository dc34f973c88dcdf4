package equivalence

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
)

// LogOffsets reads the offset column (the fifth) of log name of an
// outcome, an fio log written with log_offset=1.
func LogOffsets(o *Outcome, name string) ([]uint64, error) {
	recs, err := logRecords(o, name)
	var offs []uint64
	for _, f := range recs {
		if len(f) < 5 {
			return nil, fmt.Errorf("%s: line %q has no offset column", name, strings.Join(f, ","))
		}
		o, err := strconv.ParseUint(f[4], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: offset %q: %w", name, f[4], err)
		}
		offs = append(offs, o)
	}
	return offs, err
}

// logRecords returns the lines of log name of an outcome, each split at
// its commas with every field trimmed, as far as they could be read (and
// why not all); an error alone when the outcome has no such log.
func logRecords(o *Outcome, name string) ([][]string, error) {
	data, ok := o.Logs[name]
	if !ok {
		return nil, fmt.Errorf("%s wrote no log %s", o.Program, name)
	}
	var recs [][]string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20) // a histogram log's line holds 1,856 bins
	for sc.Scan() {
		f := strings.Split(sc.Text(), ",")
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		recs = append(recs, f)
	}
	return recs, sc.Err()
}

// newSequenceEachRun returns a Check that the offset sequence in the log
// differs between the runs of each program, as it does in fio without
// randrepeat.
func newSequenceEachRun(log string) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		var diffs []string
		for _, runs := range [][]*Outcome{fio, gofio} {
			var seqs [][]uint64
			for _, o := range runs {
				offs, err := LogOffsets(o, log)
				if err != nil {
					diffs = append(diffs, fmt.Sprintf("%s: %v", o.Program, err))
					continue
				}
				seqs = append(seqs, offs)
			}
			for i := 1; i < len(seqs); i++ {
				if reflect.DeepEqual(seqs[0], seqs[i]) {
					diffs = append(diffs, fmt.Sprintf("%s: runs 0 and %d issued the same offset sequence (%d offsets)", runs[0].Program, i, len(seqs[0])))
				}
			}
		}
		return diffs
	}
}

// docExact returns a Check that compares document-level paths of every
// run exactly.
func docExact(paths ...string) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		var diffs []string
		for i := range fio {
			for _, d := range CompareJob(fio[i].Doc, gofio[i].Doc, paths, nil, false) {
				diffs = append(diffs, fmt.Sprintf("run %d: %s", i, d))
			}
		}
		return diffs
	}
}

// syncOverrun checks the documented fdatasync and sync_file_range
// difference: fio 3.33 reports sync total_ios 0 and the syncs' count as
// the short_ios of direction dir (read for fdatasync, write for
// sync_file_range); gofio reports them as sync total_ios and no short
// I/Os. Both agree with their own sync latency count.
func syncOverrun(dir string) func(fio, gofio []*Outcome) []string {
	short := dir + ".short_ios"
	return func(fio, gofio []*Outcome) []string {
		return eachFirstJob(fio, gofio, func(i int, fj, gj map[string]any) (diffs []string) {
			fN, _ := Number(fj, "sync.lat_ns.N")
			fSync, _ := Number(fj, "sync.total_ios")
			fShort, _ := Number(fj, short)
			gN, _ := Number(gj, "sync.lat_ns.N")
			gSync, _ := Number(gj, "sync.total_ios")
			gShort, _ := Number(gj, short)
			if fN == 0 || fSync != 0 || fShort != fN {
				diffs = append(diffs, fmt.Sprintf("run %d: fio no longer shows the overrun (sync N %g, total_ios %g, %s %g): update its row in docs/differences.md", i, fN, fSync, short, fShort))
			}
			if gSync != gN || gShort != 0 {
				diffs = append(diffs, fmt.Sprintf("run %d: gofio sync total_ios %g, sync N %g, %s %g; want total_ios = N and no short I/Os", i, gSync, gN, short, gShort))
			}
			return diffs
		})
	}
}

// checkAll returns a Check that runs every one of checks and gathers what
// they find.
func checkAll(checks ...func(fio, gofio []*Outcome) []string) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		var diffs []string
		for _, c := range checks {
			diffs = append(diffs, c(fio, gofio)...)
		}
		return diffs
	}
}

// eachFirstJob runs check on the first job of each run's fio and gofio
// documents and gathers what it finds; a run without jobs is the one
// difference.
func eachFirstJob(fio, gofio []*Outcome, check func(i int, fj, gj map[string]any) []string) []string {
	var diffs []string
	for i := range fio {
		fj, gj := fio[i].Doc.Jobs(), gofio[i].Doc.Jobs()
		if len(fj) == 0 || len(gj) == 0 {
			return []string{"no jobs"}
		}
		diffs = append(diffs, check(i, fj[0], gj[0])...)
	}
	return diffs
}

// rampInFlight checks ramp_time accounting in both programs: the I/Os in
// flight when the ramp ends (0 to depth of them: how many is a matter of
// scheduling) complete after the reset and add their bytes, but not
// total_ios. gofio resets before it chooses the next I/O, so each of them
// adds its bytes and its completion latency and none a slat: clat N is
// io_bytes/bs and slat N is total_ios, exactly. fio 3.33 resets inside
// ramp_time_over, which it first calls either at a completion (then that
// completion's bytes, added just before, are zeroed: one byte count fewer)
// or at the commit of an I/O (then that I/O, counted in total_ios before,
// still takes a slat sample: slat N is total_ios + 1), and until its next
// get_io_u its run state stays TD_RAMP, so completions reaped there add
// bytes but no latency (should_account is false): fio's clat N is at most
// its io_bytes/bs and its slat N total_ios or one more (jobfile's
// DIFFERENCES.md).
func rampInFlight(depth, bs float64) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		var diffs []string
		for _, runs := range [][]*Outcome{fio, gofio} {
			for i, o := range runs {
				jobs := o.Doc.Jobs()
				if len(jobs) == 0 {
					return []string{o.Program + ": no jobs"}
				}
				ios, _ := Number(jobs[0], "read.total_ios")
				bytes, _ := Number(jobs[0], "read.io_bytes")
				clat, _ := Number(jobs[0], "read.clat_ns.N")
				slat, _ := Number(jobs[0], "read.slat_ns.N")
				extra, clatExtra, slatExtra := bytes/bs-ios, clat-ios, slat-ios
				var ok bool
				if o.Program == "gofio" {
					ok = clatExtra == extra && slatExtra == 0
				} else {
					ok = clatExtra >= 0 && clatExtra <= extra && (slatExtra == 0 || slatExtra == 1)
				}
				if !ok || extra < 0 || extra > depth {
					diffs = append(diffs, fmt.Sprintf("%s run %d: total_ios %g, io_bytes/bs %g, clat N %g, slat N %g: want 0..%g more completions than total_ios, and for gofio clat N = completions, slat N = total_ios", o.Program, i, ios, bytes/bs, clat, slat, depth))
				}
			}
		}
		return diffs
	}
}

// seqDiffs compares, for run number run, fio's sequence f of what with
// gofio's g, whose items are each an item ("I/O", "line"): a line saying
// how many each has when the counts differ, and one at the first item
// where they differ (counted from 1), if any.
func seqDiffs[T comparable](run int, what, item string, f, g []T) []string {
	var diffs []string
	if len(f) != len(g) {
		diffs = append(diffs, fmt.Sprintf("run %d: %s: fio has %d %ss, gofio %d", run, what, len(f), item, len(g)))
	}
	show := func(v T) string {
		if s, ok := any(v).(string); ok {
			return strconv.Quote(s)
		}
		return fmt.Sprint(v)
	}
	for k := 0; k < len(f) && k < len(g); k++ {
		if f[k] != g[k] {
			return append(diffs, fmt.Sprintf("run %d: %s: %s %d: fio %s, gofio %s", run, what, item, k+1, show(f[k]), show(g[k])))
		}
	}
	return diffs
}

// sameOffsets returns a Check that both programs issued the same offset
// sequence (the log's offset column), for rows where fio's generators
// and seeds make it exact.
func sameOffsets(log string) func(fio, gofio []*Outcome) []string {
	return sameSeq(log, log+" offsets", "I/O", LogOffsets)
}

// eachLog returns a Check that, for every run and each of names, parses
// that log of fio's outcome and of gofio's (a missing log parses as
// empty) and returns what compare finds between them.
func eachLog[T any](names []string, parse func([]byte) T, compare func(run int, name string, f, g T) []string) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		var diffs []string
		for i := range fio {
			for _, name := range names {
				diffs = append(diffs, compare(i, name, parse(fio[i].Logs[name]), parse(gofio[i].Logs[name]))...)
			}
		}
		return diffs
	}
}

// sameSeq returns a Check that, in every run, read finds the same
// sequence of items (what, each an item) in log of fio's outcome and of
// gofio's: a read error ends the check with it.
func sameSeq[T comparable](log, what, item string, read func(*Outcome, string) ([]T, error)) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		var diffs []string
		for i := range fio {
			f, err := read(fio[i], log)
			if err != nil {
				return []string{err.Error()}
			}
			g, err := read(gofio[i], log)
			if err != nil {
				return []string{err.Error()}
			}
			diffs = append(diffs, seqDiffs(i, what, item, f, g)...)
		}
		return diffs
	}
}

// sameOffsetsEach returns a Check that each of logs holds the same
// offsets, in order, in fio's run and gofio's (one log per job).
func sameOffsetsEach(logs ...string) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		var diffs []string
		for _, l := range logs {
			for _, d := range sameOffsets(l)(fio, gofio) {
				diffs = append(diffs, l+": "+d)
			}
		}
		return diffs
	}
}

// samePrios returns a Check that each direction's "prios" array (fio's
// per-priority latency stats) lists the same priorities, in the same
// order, with the same sample counts in fio's run and gofio's.
func samePrios(dirs ...string) func(fio, gofio []*Outcome) []string {
	prios := func(job map[string]any, dir string) string {
		d, _ := job[dir].(map[string]any)
		arr, _ := d["prios"].([]any)
		var b strings.Builder
		for _, e := range arr {
			m, _ := e.(map[string]any)
			class, _ := Number(m, "prioclass")
			level, _ := Number(m, "prio")
			n, ok := Number(m, "clat_ns.N")
			if !ok {
				n, _ = Number(m, "lat_ns.N")
			}
			fmt.Fprintf(&b, "%g/%g:%g ", class, level, n)
		}
		return b.String()
	}
	return func(fio, gofio []*Outcome) []string {
		return eachFirstJob(fio, gofio, func(i int, fj, gj map[string]any) (diffs []string) {
			for _, d := range dirs {
				f, g := prios(fj, d), prios(gj, d)
				if f == "" || f != g {
					diffs = append(diffs, fmt.Sprintf("run %d: %s prios (class/level:N) fio [%s] gofio [%s]", i, d, f, g))
				}
			}
			return diffs
		})
	}
}

// rateNear returns a Check for rated jobs: for each path and its target,
// gofio's value must be within rel of the target in every run where
// fio's is (a machine too busy for fio to keep the rate says nothing).
func rateNear(targets map[string]float64, rel float64) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		return eachFirstJob(fio, gofio, func(i int, fj, gj map[string]any) (diffs []string) {
			for path, want := range targets {
				f, _ := Number(fj, path)
				g, _ := Number(gj, path)
				tol := Tol{Path: path, Rel: rel}
				if tol.Within(want, f) && !tol.Within(want, g) {
					diffs = append(diffs, fmt.Sprintf("run %d: %s: fio %g, gofio %g, rate %g (within %g%%)", i, path, f, g, want, rel*100))
				}
			}
			return diffs
		})
	}
}

// sameData is a Check for jobs whose written bytes are deterministic
// (buffer_compress_*, dedupe_*, refill_buffers): every data file gofio
// wrote holds fio's bytes.
func sameData(fio, gofio []*Outcome) []string {
	var diffs []string
	for i := range fio {
		for name := range fio[i].Files {
			f, err := os.ReadFile(filepath.Join(fio[i].Dir, name))
			if err != nil {
				return []string{err.Error()}
			}
			g, err := os.ReadFile(filepath.Join(gofio[i].Dir, name))
			if err != nil {
				return []string{err.Error()}
			}
			if len(f) != len(g) {
				diffs = append(diffs, fmt.Sprintf("run %d: %s is %d bytes from fio, %d from gofio", i, name, len(f), len(g)))
				continue
			}
			for k := range f {
				if f[k] != g[k] {
					diffs = append(diffs, fmt.Sprintf("run %d: %s differs first at byte %d", i, name, k))
					break
				}
			}
		}
	}
	return diffs
}

// magicAt returns a Check that every bs-byte block of every data file both
// programs wrote carries fio's verify header magic (0xacca, little endian)
// at byte off, as verify_offset=off puts it, and not at its start.
func magicAt(bs, off int) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		var diffs []string
		for _, o := range append(append([]*Outcome(nil), fio...), gofio...) {
			for name := range o.Files {
				data, err := os.ReadFile(filepath.Join(o.Dir, name))
				if err != nil {
					return []string{err.Error()}
				}
				for b := 0; b+bs <= len(data); b += bs {
					if data[b+off] != 0xca || data[b+off+1] != 0xac || data[b] == 0xca && data[b+1] == 0xac {
						diffs = append(diffs, fmt.Sprintf("%s: %s block at %d: no verify header magic at byte %d alone", o.Program, name, b, off))
						break
					}
				}
			}
		}
		return diffs
	}
}

// fsyncBound checks fio's bound on the syncs of fsync=every at iodepth
// depth when the writes complete at submission (tmpfs): each multiple of
// every writes issued, but the last, where the job ends, gets syncs in the
// slots free at that point, at most depth of them, and fio reaps no sync
// before the queue is full. Both programs must stay within it and issue
// some.
func fsyncBound(depth, every float64) func(fio, gofio []*Outcome) []string {
	return func(fio, gofio []*Outcome) []string {
		return eachFirstJob(fio, gofio, func(i int, fj, gj map[string]any) (diffs []string) {
			for _, p := range []struct {
				name string
				job  map[string]any
			}{{"fio", fj}, {"gofio", gj}} {
				w, _ := Number(p.job, "write.total_ios")
				s, _ := Number(p.job, "sync.total_ios")
				if limit := depth * (w/every - 1); s <= 0 || s > limit {
					diffs = append(diffs, fmt.Sprintf("run %d: %s issued %g syncs for %g writes; want 1 to %g", i, p.name, s, w, limit))
				}
			}
			return diffs
		})
	}
}

// syncsInFioSpread checks each gofio run's sync count (sync.total_ios)
// against the spread of fio's runs of the row: within their least and
// greatest, since fio's count depends on how its reaps fall.
func syncsInFioSpread(fio, gofio []*Outcome) []string {
	lo, hi := math.Inf(1), math.Inf(-1)
	eachFirstJob(fio, gofio, func(_ int, fj, _ map[string]any) []string {
		s, _ := Number(fj, "sync.total_ios")
		lo, hi = math.Min(lo, s), math.Max(hi, s)
		return nil
	})
	return eachFirstJob(fio, gofio, func(i int, _, gj map[string]any) []string {
		if s, _ := Number(gj, "sync.total_ios"); s < lo || s > hi || s == 0 {
			return []string{fmt.Sprintf("run %d: gofio issued %g syncs; fio's runs %g to %g", i, s, lo, hi)}
		}
		return nil
	})
}

// uringCmdRefused checks the documented io_uring_cmd difference: both
// programs print fio's message for a target that is not an NVMe
// character device and create no file for it; fio's JSON keeps the
// job's error 0, gofio's says EINVAL (22).
func uringCmdRefused(fio, gofio []*Outcome) []string {
	const msg = "ioengine io_uring_cmd only works with nvme ns generic char devices (/dev/ngXnY)"
	var diffs []string
	for i := range fio {
		for _, o := range []*Outcome{fio[i], gofio[i]} {
			if !strings.Contains(string(o.Stderr), msg) {
				diffs = append(diffs, fmt.Sprintf("run %d: %s's stderr lacks %q", i, o.Program, msg))
			}
			if _, ok := o.Files["ng.dat"]; ok {
				diffs = append(diffs, fmt.Sprintf("run %d: %s made the io_uring_cmd job's file", i, o.Program))
			}
		}
	}
	return append(diffs, eachFirstJob(fio, gofio, func(i int, fj, gj map[string]any) (diffs []string) {
		if e, _ := Number(fj, "error"); e != 0 {
			diffs = append(diffs, fmt.Sprintf("run %d: fio's error %g, no longer 0: update its row in jobfile/DIFFERENCES.md", i, e))
		}
		if e, _ := Number(gj, "error"); e != 22 {
			diffs = append(diffs, fmt.Sprintf("run %d: gofio's error %g, want 22 (EINVAL)", i, e))
		}
		return diffs
	})...)
}
