package fleet

import (
	"errors"
	"fmt"
	"time"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// ErrMismatch wraps every refusal of Merge that Options.Force overrides.
var ErrMismatch = errors.New("results do not belong to one fleet run")

// Options tune Merge.
type Options struct {
	// Force merges results whose run ids, jobs or host names disagree.
	Force bool
	// Version is written as the merged result's "fio version".
	Version string
	// Now is the merged result's time; zero means time.Now().
	Now time.Time
}

// perHostOptions are the options a fleet run may set differently on each
// host: where its target is.
var perHostOptions = map[string]bool{"filename": true, "directory": true, "filename_format": true}

// Merge checks that hosts are one fleet run (one run id, the same jobs,
// distinct host names) and returns their client-mode sum.
func Merge(hosts []*Host, opt Options) (*report.ClientResult, error) {
	if len(hosts) == 0 {
		return nil, errors.New("merge: no result files")
	}
	if !opt.Force {
		if err := check(hosts); err != nil {
			return nil, err
		}
	}
	now := opt.Now
	if now.IsZero() {
		now = time.Now()
	}
	c := &report.ClientResult{Version: opt.Version, Time: now, RunID: hosts[0].RunID,
		GlobalOptions: sharedOptions(hosts)}
	for _, h := range hosts {
		c.Clients = append(c.Clients, report.Client{Host: h.Name, File: h.File, Result: h.Result})
	}
	c.SumClients()
	return c, nil
}

// check refuses hosts that are not one fleet run, naming the file.
func check(hosts []*Host) error {
	first := hosts[0]
	seen := map[string]string{}
	for _, h := range hosts {
		if h.RunID != first.RunID {
			return fmt.Errorf("%s: run id %q, but %s has %q: not the same fleet run (--force merges anyway): %w",
				h.File, h.RunID, first.File, first.RunID, ErrMismatch)
		}
		if f, ok := seen[h.Name]; ok {
			return fmt.Errorf("%s: host %q again (also in %s): the same result twice, or hosts that need --hostname (--force merges anyway): %w",
				h.File, h.Name, f, ErrMismatch)
		}
		seen[h.Name] = h.File
		if err := sameJobs(first.Jobs, h.Jobs); err != nil {
			return fmt.Errorf("%s: %v, unlike %s: not the same jobs (--force merges anyway): %w", h.File, err, first.File, ErrMismatch)
		}
	}
	return nil
}

// sameJobs compares two files' jobs: names, groups and options, apart
// from where each host's target is.
func sameJobs(a, b []JobDesc) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d jobs, not %d", len(b), len(a))
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Group != b[i].Group {
			return fmt.Errorf("job %d is %s (group %d), not %s (group %d)", i+1, b[i].Name, b[i].Group, a[i].Name, a[i].Group)
		}
		oa, ob := comparable(a[i].Options), comparable(b[i].Options)
		for k, v := range oa {
			if w, ok := ob[k]; !ok || w != v {
				return fmt.Errorf("job %s has %s=%q, not %q", a[i].Name, k, w, v)
			}
		}
		for k, w := range ob {
			if _, ok := oa[k]; !ok {
				return fmt.Errorf("job %s sets %s=%q", a[i].Name, k, w)
			}
		}
	}
	return nil
}

// comparable is the options as a map, later values winning, without the
// per-host ones.
func comparable(opts []jobfile.Option) map[string]string {
	m := map[string]string{}
	for _, o := range opts {
		if !perHostOptions[o.Name] {
			m[o.Name] = o.Value
		}
	}
	return m
}

// sharedOptions are the options every job of every host sets to the same
// value, in the first job's order: the merged result's "global options".
func sharedOptions(hosts []*Host) []jobfile.Option {
	if len(hosts[0].Jobs) == 0 {
		return nil
	}
	var out []jobfile.Option
	for _, o := range hosts[0].Jobs[0].Options {
		if o.Name == "name" {
			continue
		}
		shared := true
		for _, h := range hosts {
			for _, j := range h.Jobs {
				if v, ok := lastValue(j.Options, o.Name); !ok || v != o.Value {
					shared = false
				}
			}
		}
		if shared && !containsOption(out, o.Name) {
			out = append(out, o)
		}
	}
	return out
}

func containsOption(opts []jobfile.Option, name string) bool {
	for _, o := range opts {
		if o.Name == name {
			return true
		}
	}
	return false
}

// lastValue is the value the job's last setting of name gives it.
func lastValue(opts []jobfile.Option, name string) (string, bool) {
	v, ok := "", false
	for _, o := range opts {
		if o.Name == name {
			v, ok = o.Value, true
		}
	}
	return v, ok
}
