package compare

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gofio/gofio/fleet"
	"github.com/gofio/gofio/internal/fingerprint"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// DescribeJobs returns the resolved jobs as RunInfo lists them, fio's
// options apart from gofio's own, and the SHA-256 over all of them (job
// names and every option, in order), which gofio diff compares.
func DescribeJobs(jobs []*jobfile.Job) ([]report.RunJob, string) {
	h := sha256.New()
	out := make([]report.RunJob, 0, len(jobs))
	for _, j := range jobs {
		rj := report.RunJob{Name: j.Name, FioOptions: []string{}, GofioOptions: []string{}}
		fmt.Fprintf(h, "[%s]\n", j.Name)
		for _, o := range j.Options {
			kv := o.Name
			if o.HasValue {
				kv += "=" + o.Value
			}
			fmt.Fprintf(h, "%s\n", kv)
			if spec, ok := jobfile.Lookup(o.Name); ok && spec.Gofio {
				rj.GofioOptions = append(rj.GofioOptions, kv)
			} else {
				rj.FioOptions = append(rj.FioOptions, kv)
			}
		}
		out = append(out, rj)
	}
	return out, hex.EncodeToString(h.Sum(nil))
}

// Saved is a run read back from its JSON output (or the run just made):
// what it was and what it measured.
type Saved struct {
	Path       string // the file it came from, or a description
	Info       *report.RunInfo
	Comparison *report.Comparison
	// Time is when the run was made (its JSON's timestamp_ms), zero when
	// the file does not say.
	Time time.Time
}

// ReadSaved reads a run saved with --output-format=json (the first JSON
// object in the file, so text before it, such as a table, is skipped):
// the comparison (report.CompareJSONKey) that every run with --compare,
// --sweep, --repeat or --baseline writes, or else, for a plain run, its
// jobs as one repeat (PlainRun); RunInfo (report.RunJSONKey) is read when
// present.
func ReadSaved(path string) (*Saved, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read saved run: %w", err)
	}
	start := bytes.IndexByte(data, '{')
	if start < 0 {
		return nil, fmt.Errorf("%s: no JSON object in it; save runs with --output-format=json", path)
	}
	var doc struct {
		TimestampMs int64                  `json:"timestamp_ms"`
		Run         *report.RunInfo        `json:"gofio_run"`
		Compare     *report.ComparisonJSON `json:"gofio_compare"`
	}
	if err := json.NewDecoder(bytes.NewReader(data[start:])).Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if doc.Compare == nil {
		// A plain run: its jobs, with their exact state, are one repeat.
		h, ferr := fleet.Read(path, bytes.NewReader(data[start:]))
		if ferr != nil {
			return nil, fmt.Errorf("%s: no %q in it, and not a plain gofio run either (%w): save runs with gofio's --output-format=json",
				path, report.CompareJSONKey, ferr)
		}
		if doc.Run != nil {
			h.Result.Kernel = doc.Run.Kernel
		}
		return &Saved{Path: path, Info: doc.Run, Comparison: PlainRun(h.Result), Time: savedTime(doc.TimestampMs)}, nil
	}
	return &Saved{Path: path, Info: doc.Run, Comparison: doc.Compare.Comparison(), Time: savedTime(doc.TimestampMs)}, nil
}

// savedTime is the time of a JSON timestamp_ms, zero for none.
func savedTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// PlainRun folds the result of a plain run (no --compare, --sweep or
// --repeat) into a comparison of one side, one row (the job's iodepth) and
// one repeat, as --repeat 1 would have: what gofio diff compares two plain
// runs by, with the verdict "too few repeats".
func PlainRun(res *report.Result) *report.Comparison {
	p := Point{Repeats: 1}
	b := newBuilder([]Point{p}, nil)
	var m measurement
	measure(res, &m)
	b.add(p, res, &m)
	return b.finish()
}

// ErrDifferentJobs is wrapped by Diff's refusal to compare runs of
// different jobs.
var ErrDifferentJobs = errors.New("the runs are of different jobs")

// ErrDifferentRunner is wrapped by Diff's refusal to compare runs whose
// runner fingerprints differ (report.RunInfo.Fingerprint).
var ErrDifferentRunner = errors.New("the runs were made on different runners")

// Allow says which differences between two runs a diff accepts.
type Allow struct {
	// Jobs accepts runs of different jobs or comparisons
	// (--allow-different-jobs).
	Jobs bool
	// Runner lists the runner fields that may differ
	// (--allow-runner-change), e.g. the kernel when the kernel is what
	// the diff tests.
	Runner fingerprint.Allowed
}

// Diff compares a saved run (old) with a newer one (cur), sweep point by
// sweep point and side by side: every row of either run becomes a row
// whose new side is cur's repeats and whose old side is old's, matched by
// the sweep values (and, for runs made with --compare, by side, which adds
// a "side" key), and, for runs of several jobs, job by job (each job's own
// per-repeat figures, a "job" key). Rows only one run has keep one side.
// The result is not yet judged: call Judge.
//
// Diff refuses runs whose jobs differ (RunInfo's JobsHash) or that
// compared different things (ErrDifferentJobs) unless allow.Jobs, and runs
// whose runner fingerprints differ (ErrDifferentRunner: kernel, CPU,
// governor, boost, SMT, mitigations, disks or gofio build) in a field
// allow.Runner does not list. The returned warnings say what was allowed,
// and where only the host name differs.
func Diff(old, cur *Saved, allow Allow) (*report.Comparison, []string, error) {
	warnings, jobs, runner := comparable(old, cur)
	var errs []error
	if len(jobs) > 0 && !allow.Jobs {
		errs = append(errs, fmt.Errorf("%w (%s); pass --allow-different-jobs to compare them anyway",
			ErrDifferentJobs, strings.Join(jobs, "; ")))
	}
	var refused []string
	var fields []string
	for _, c := range runner {
		if allow.Runner[c.Field] {
			warnings = append(warnings, "allowed: "+c.String())
			continue
		}
		refused = append(refused, c.String())
		fields = append(fields, c.Field)
	}
	if len(refused) > 0 {
		errs = append(errs, fmt.Errorf("%w (%s): their figures would mix the runner's change with the code's; pass --allow-runner-change %s to compare them anyway, when that change is what the diff tests",
			ErrDifferentRunner, strings.Join(refused, "; "), strings.Join(fields, ",")))
	}
	if len(errs) > 0 {
		return nil, warnings, errors.Join(errs...)
	}
	if allow.Jobs {
		for _, p := range jobs {
			warnings = append(warnings, "allowed: "+p)
		}
	}
	oc, nc := old.Comparison, cur.Comparison
	d := &report.Comparison{
		RW: nc.RW, BS: nc.BS, Engine: nc.Engine, SQPoll: nc.SQPoll, Version: nc.Version, Kernel: nc.Kernel,
		Key: nc.Key, Keys: append([]string(nil), nc.Keys...), Metric: nc.Metric, Repeat: nc.Repeat, Compared: true,
		New: report.SideSpec{Name: "new", Key: report.DiffSideKey, Value: cur.Path},
		Old: report.SideSpec{Name: "old", Key: report.DiffSideKey, Value: old.Path},
	}
	d.New.SQThread, d.Old.SQThread = sidesSQThread(nc), sidesSQThread(oc)
	if oc.Metric != nc.Metric {
		d.Metric = "mixed"
	}
	b := diffRows{d: d, bySide: nc.Compared || oc.Compared, index: map[diffKey]int{}}
	if b.bySide {
		d.Keys = append(d.Keys, "side")
		d.Key = strings.Join(d.Keys, ",")
	}
	// Runs of several jobs are compared job by job: each job's own
	// per-repeat figures, a "job" key after the others.
	b.byJob = hasJobs(nc) && hasJobs(oc)
	if b.byJob {
		d.Keys = append(d.Keys, "job")
		d.Key = strings.Join(d.Keys, ",")
	}
	for _, c := range []struct {
		cmp   *report.Comparison
		isNew bool
	}{{nc, true}, {oc, false}} {
		for i := range c.cmp.Rows {
			r := &c.cmp.Rows[i]
			b.add(r, c.cmp.New.Name, &r.New, c.isNew)
			b.add(r, c.cmp.Old.Name, &r.Old, c.isNew)
		}
	}
	return d, warnings, nil
}

// comparable checks that two saved runs can be diffed: jobs are the
// differences of jobs and comparisons (the jobs differ, they compared or
// swept different things), runner the fields in which the runners'
// fingerprints differ; warnings are only said (another host name).
func comparable(old, cur *Saved) (warnings, jobs []string, runner []fingerprint.Change) {
	oi, ni := old.Info, cur.Info
	oc, nc := old.Comparison, cur.Comparison
	switch {
	case oi == nil || ni == nil:
		warnings = append(warnings, "a run does not describe itself (no "+report.RunJSONKey+"): its jobs and machine are not checked")
	default:
		for _, c := range fingerprint.Diff(oi.Fingerprint(), ni.Fingerprint()) {
			if c.Field == fingerprint.FieldJobs {
				jobs = append(jobs, "the jobs differ: "+jobsDifference(oi.Jobs, ni.Jobs))
				continue
			}
			runner = append(runner, c)
		}
		if oi.Host != ni.Host {
			warnings = append(warnings, fmt.Sprintf("host differs: old %s, new %s", oi.Host, ni.Host))
		}
		if oi.Env == nil || ni.Env == nil {
			warnings = append(warnings, "a run does not record its runner's governor, boost, SMT, mitigations or disks (saved by an older gofio): they are not checked")
		}
	}
	if oc.Compared != nc.Compared || oc.Compared && (oc.New.Key != nc.New.Key || oc.New.Value != nc.New.Value || oc.Old.Value != nc.Old.Value) {
		jobs = append(jobs, fmt.Sprintf("they compared different things: old %s, new %s", compareOf(oc), compareOf(nc)))
	}
	if oc.Key != nc.Key {
		jobs = append(jobs, fmt.Sprintf("they swept different options: old %q, new %q", oc.Key, nc.Key))
	}
	return warnings, jobs, runner
}

// diffKey is a row of a diff: the sweep point, and the side and job when
// the diff splits by them.
type diffKey struct{ value, side, job string }

// diffRows builds a diff's rows: the new run's sides fill each row's new
// side, the old run's its old side.
type diffRows struct {
	d             *report.Comparison
	bySide, byJob bool
	index         map[diffKey]int
}

// add files side s (named sideName) of row r of the new (isNew) or old run.
func (b *diffRows) add(r *report.ComparisonRow, sideName string, s *report.ComparisonSide, isNew bool) {
	if !s.Ran() {
		return
	}
	if !b.bySide {
		sideName = ""
	}
	parts := []jobSide{{"", s}}
	if b.byJob {
		parts = splitJobs(s)
	}
	for _, p := range parts {
		k := diffKey{r.Value, sideName, p.job}
		i, ok := b.index[k]
		if !ok {
			row := report.ComparisonRow{Value: r.Value, Values: append([]string(nil), r.Values...), X: r.X}
			if b.bySide {
				row.Values = append(row.Values, sideName)
			}
			if b.byJob {
				row.Values = append(row.Values, p.job)
			}
			row.Value = strings.Join(row.Values, ",")
			i = len(b.d.Rows)
			b.index[k] = i
			b.d.Rows = append(b.d.Rows, row)
		}
		cp := *p.side
		cp.Repeats = append([]report.RepeatStats(nil), p.side.Repeats...)
		if isNew {
			cp.Name = "new"
			b.d.Rows[i].New = cp
		} else {
			cp.Name = "old"
			b.d.Rows[i].Old = cp
		}
	}
}

// sidesSQThread is what played the SQ thread on every side of c.
func sidesSQThread(c *report.Comparison) string {
	if !c.Compared {
		return c.New.SQThread
	}
	return report.MergeSQThread(c.New.SQThread, c.Old.SQThread)
}

// hasJobs reports whether c's repeats carry per-job figures (a run of
// several jobs).
func hasJobs(c *report.Comparison) bool {
	for _, r := range c.Rows {
		for _, s := range []*report.ComparisonSide{&r.New, &r.Old} {
			for _, rep := range s.Repeats {
				if len(rep.Jobs) > 0 {
					return true
				}
			}
		}
	}
	return false
}

// jobSide is one job's side of a row.
type jobSide struct {
	job  string
	side *report.ComparisonSide
}

// splitJobs splits a side into one side per job, in the order the jobs
// first appear, each repeat holding that job's own figures.
func splitJobs(s *report.ComparisonSide) []jobSide {
	var out []jobSide
	at := map[string]int{}
	for _, rep := range s.Repeats {
		for _, j := range rep.Jobs {
			i, ok := at[j.Name]
			if !ok {
				i = len(out)
				at[j.Name] = i
				out = append(out, jobSide{j.Name, &report.ComparisonSide{Name: s.Name}})
			}
			out[i].side.Repeats = append(out[i].side.Repeats, report.RepeatStats{Repeat: rep.Repeat,
				AvgLatUs: j.AvgLatUs, P99Us: j.P99Us, IOPS: j.IOPS, IOs: j.IOs, KStages: j.KStages})
		}
	}
	for _, js := range out {
		js.side.Summarize()
		// Its stages, from each repeat's (the side's merged ones are
		// every job's).
		js.side.KStages = report.KStagesFromRepeats(js.side.Repeats)
	}
	return out
}

// compareOf words what a comparison compared.
func compareOf(c *report.Comparison) string {
	if !c.Compared {
		return "nothing (no --compare)"
	}
	return c.New.Key + "=" + c.New.Value + "," + c.Old.Value
}

// jobsDifference names the first difference between two job lists.
func jobsDifference(old, cur []report.RunJob) string {
	if len(old) != len(cur) {
		return fmt.Sprintf("old has %d jobs, new %d", len(old), len(cur))
	}
	for i := range old {
		o, n := old[i], cur[i]
		if o.Name != n.Name {
			return fmt.Sprintf("job %d is %q in old, %q in new", i+1, o.Name, n.Name)
		}
		oo := append(append([]string(nil), o.FioOptions...), o.GofioOptions...)
		no := append(append([]string(nil), n.FioOptions...), n.GofioOptions...)
		for k := 0; k < len(oo) || k < len(no); k++ {
			var a, b string
			if k < len(oo) {
				a = oo[k]
			}
			if k < len(no) {
				b = no[k]
			}
			switch {
			case a == b:
			case a == "":
				return fmt.Sprintf("job %s: new has %q, old does not", o.Name, b)
			case b == "":
				return fmt.Sprintf("job %s: old has %q, new does not", o.Name, a)
			default:
				return fmt.Sprintf("job %s: old has %q where new has %q", o.Name, a, b)
			}
		}
	}
	return "the option lists match but their hashes do not (a file saved by another gofio?)"
}
