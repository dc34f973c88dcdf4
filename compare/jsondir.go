package compare

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// JSONDirName returns the name of one sweep point's fio-shaped JSON file in
// --json-dir: "{rw}-{iodepth}-{numjobs}.json", the layout fio-plot reads.
func JSONDirName(rw string, iodepth, numjobs int) string {
	return fmt.Sprintf("%s-%d-%d.json", rw, iodepth, numjobs)
}

// JSONDirPath returns where the result of run p goes under dir. With
// --compare each side has its own subdirectory named after its value
// (dir/priority and dir/fifo for tw_priority=1,0, dir/io_uring and
// dir/libaio for ioengine=io_uring,libaio), which fio-plot takes as two
// series to compare; with several repeats each repeat has one below it
// (dir/priority/repeat-2), and JSONDir.Finish puts one repeat of each
// point in the side's directory itself. rw, iodepth and numjobs come from
// the first job of res.
func JSONDirPath(dir string, p Point, res *report.Result) string {
	rw, depth, numjobs := "job", 0, 1
	if job := firstJob(res); job != nil {
		rw, depth, numjobs = string(job.RW), job.IODepth, job.NumJobs
		if numjobs < 1 {
			numjobs = 1
		}
	}
	parts := []string{dir}
	if p.Name != "" {
		parts = append(parts, p.Name)
	}
	if p.Repeats > 1 {
		parts = append(parts, fmt.Sprintf("repeat-%d", p.Repeat+1))
	}
	parts = append(parts, JSONDirName(rw, depth, numjobs))
	return filepath.Join(parts...)
}

// fioPlotKeys are the job options fio-plot's import needs in every job: it
// reads the first job's "job options" merged with "global options" (the
// global values win) and skips the file unless rw, iodepth and numjobs are
// all there, their values matching its -r, -d and -n; its parser then
// reads bs from each job's merged options (jsonparsing_support.py,
// get_json_mapping) and fails without it.
var fioPlotKeys = []string{"rw", "iodepth", "numjobs", "bs"}

// ForFioPlot returns res as it is written under --json-dir: every job's
// "job options" end with the rw, iodepth, numjobs and bs the job ran with,
// whether its job file set them or not (fio leaves out what a job file
// does not set, and then fio-plot finds no file), and "global options"
// no longer hold them, so a [global] value that a sweep overrode cannot
// win over the job's. res itself is not changed.
func ForFioPlot(res *report.Result) *report.Result {
	drop := func(opts []jobfile.Option) []jobfile.Option {
		out := make([]jobfile.Option, 0, len(opts)+len(fioPlotKeys))
		for _, o := range opts {
			if !slices.Contains(fioPlotKeys, o.Name) {
				out = append(out, o)
			}
		}
		return out
	}
	cp := *res
	cp.GlobalOptions = drop(res.GlobalOptions)
	cp.Jobs = make([]*report.JobResult, len(res.Jobs))
	for i, jr := range res.Jobs {
		if jr == nil || jr.Job == nil {
			cp.Jobs[i] = jr
			continue
		}
		j := *jr.Job
		numjobs := max(j.NumJobs, 1)
		globals := drop(j.Options[:j.NumGlobalOptions])
		j.NumGlobalOptions = len(globals)
		j.Options = append(append(globals, drop(j.OwnOptions())...),
			jobfile.Option{Name: "rw", Value: string(j.RW), HasValue: true},
			jobfile.Option{Name: "iodepth", Value: strconv.Itoa(j.IODepth), HasValue: true},
			jobfile.Option{Name: "numjobs", Value: strconv.Itoa(numjobs), HasValue: true},
			jobfile.Option{Name: "bs", Value: jobBS(&j), HasValue: true})
		r := *jr
		r.Job = &j
		cp.Jobs[i] = &r
	}
	return &cp
}

// jobBS is the block size j ran with, as the comparison's title gives it:
// that of its first direction, e.g. "4k" or "4k-64k".
func jobBS(j *jobfile.Job) string {
	d := jobfile.DirRead
	switch {
	case j.RW.HasRead():
	case j.RW.HasWrite():
		d = jobfile.DirWrite
	case j.RW.HasTrim():
		d = jobfile.DirTrim
	}
	bs := FormatSize(j.BSMin(d))
	if hi := j.BSMax(d); hi != j.BSMin(d) {
		bs += "-" + FormatSize(hi)
	}
	return bs
}

// JSONDir lays the results of a plan out under Dir (--json-dir) so that
// fio-plot's documented commands read them from the directory each side
// has (Dir itself without --compare): fio-plot reads the JSON files of the
// directories it is given, not below, one file per iodepth and numjobs.
// With several repeats every repeat goes to its repeat-N subdirectory
// (JSONDirPath), and Finish copies the repeat of median IOPS of each
// point up to the side's directory: a run that happened, not an average
// fio-plot would mistake for one.
type JSONDir struct {
	Dir  string
	runs map[jsonDirKey][]jsonDirRun
	keys []jsonDirKey
}

type jsonDirKey struct {
	row  int
	side string
}

type jsonDirRun struct {
	path, top string // the repeat's file, and where its point's median goes
	iops      float64
}

// Add returns where the result of run p goes and remembers it for Finish.
func (d *JSONDir) Add(p Point, res *report.Result) string {
	path := JSONDirPath(d.Dir, p, res)
	if p.Repeats <= 1 {
		return path
	}
	top := p
	top.Repeat, top.Repeats = 0, 1
	var m measurement
	measure(res, &m)
	if d.runs == nil {
		d.runs = map[jsonDirKey][]jsonDirRun{}
	}
	k := jsonDirKey{p.Row, p.Name}
	if _, ok := d.runs[k]; !ok {
		d.keys = append(d.keys, k)
	}
	d.runs[k] = append(d.runs[k], jsonDirRun{path: path, top: JSONDirPath(d.Dir, top, res), iops: m.stats.IOPS})
	return path
}

// Finish copies each point's repeat of median IOPS (the lower of the two
// middle ones for an even count) to its side's directory.
func (d *JSONDir) Finish() error {
	for _, k := range d.keys {
		runs := slices.Clone(d.runs[k])
		slices.SortStableFunc(runs, func(a, b jsonDirRun) int { return cmp.Compare(a.iops, b.iops) })
		med := runs[(len(runs)-1)/2]
		data, err := os.ReadFile(med.path)
		if err != nil {
			return fmt.Errorf("--json-dir: %w", err)
		}
		if err := os.WriteFile(med.top, data, 0o644); err != nil {
			return fmt.Errorf("--json-dir: %w", err)
		}
	}
	return nil
}
