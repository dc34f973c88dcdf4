package compare

import (
	"strings"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// ParseFunc parses the job files with sets applied as --set overrides
// after the user's own, and checks the jobs as far as can be done before
// any I/O.
type ParseFunc func(sets []string) ([]*jobfile.Job, error)

// Parsed holds the jobs of every point of a plan, parsed once per distinct
// set of overrides (a --repeat or a --compare pair shares one parse).
type Parsed struct {
	jobs map[string][]*jobfile.Job
}

// ParsePoints parses every point of the plan with parse, in plan order,
// so that a bad swept value is refused, naming its point, before any run.
func ParsePoints(points []Point, parse ParseFunc) (*Parsed, error) {
	p := &Parsed{jobs: make(map[string][]*jobfile.Job, len(points))}
	if err := p.Add(points, parse); err != nil {
		return nil, err
	}
	return p, nil
}

// Jobs returns the parsed jobs of the point with overrides sets (nil for a
// point ParsePoints did not see).
func (p *Parsed) Jobs(sets []string) []*jobfile.Job { return p.jobs[setsKey(sets)] }

func setsKey(sets []string) string { return strings.Join(sets, "\x00") }

// Concat gathers the results of a plan's runs into one Result, the shape
// --output-format=json prints for a whole plan: every run's jobs in plan
// order, the first run's version, start and global options, and the last
// run's disks, end and signal.
type Concat struct {
	all report.Result
}

// Add appends one run's result.
func (c *Concat) Add(res *report.Result) {
	if c.all.Version == "" {
		c.all = report.Result{Version: res.Version, Kernel: res.Kernel, Start: res.Start, GlobalOptions: res.GlobalOptions}
	}
	c.all.Jobs = append(c.all.Jobs, res.Jobs...)
	c.all.Disks = res.Disks
	c.all.End = res.End
	c.all.Signal = res.Signal
}

// Result returns the concatenation so far.
func (c *Concat) Result() *report.Result { return &c.all }
