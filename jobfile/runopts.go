package jobfile

import (
	"fmt"
	"strconv"
	"strings"
)

// RunOptions are gofio's options for how a job file is run as a whole,
// which a job file may carry in [global] so that "gofio job.fio" runs its
// own sweep and gate: compare=, sweep=, repeat=, fail_if_slower= and slo=.
// They are gofio's own (fio rejects them); the command-line flags
// --compare, --sweep, --repeat, --fail-if-slower and --slo override them.
// The front end reads them from the parsed jobs; nothing in a single run
// uses them.
type RunOptions struct {
	Compare      string   // compare=KEY=A,B; "tw_priority=1,0" for a bare compare=1
	Sweeps       []string // sweep=KEY=LIST [KEY=LIST ...], blank-separated
	Repeat       int      // repeat=N; 0 when not set
	FailIfSlower float64  // fail_if_slower=PCT; meaningful when HasFailIfSlower
	// HasFailIfSlower reports whether fail_if_slower= was given.
	HasFailIfSlower bool
	// SLO is slo=, the latency objective of a sweep's capacity
	// ("p99<=2ms"), parsed with --slo's grammar by the command; "" when
	// not set.
	SLO string
}

// runOptionSpecs are the option table's entries for RunOptions, each
// refused outside [global] (resolve).
var runOptionSpecs = []OptionSpec{
	{Name: "compare", Type: TypeString, Gofio: true, globalOnly: true,
		Help: "gofio: run every job with KEY=A and with KEY=B and compare (compare=KEY=A,B; [global] only; --compare overrides)",
		custom: func(j *Job, v string) error {
			j.Run.Compare = v // parsed with --compare's grammar by the command (compare.ParseSpec)
			return nil
		}},
	{Name: "sweep", Type: TypeString, Gofio: true, globalOnly: true,
		Help: "gofio: expand the jobs over KEY=LIST, several separated by blanks (sweep=iodepth=1..16384; [global] only; --sweep overrides)",
		custom: func(j *Job, v string) error {
			j.Run.Sweeps = strings.Fields(v) // parsed with --sweep's grammar by the command (compare.ParseSpec)
			if len(j.Run.Sweeps) == 0 {
				return fmt.Errorf("want KEY=LIST, e.g. sweep=iodepth=1..16384")
			}
			return nil
		}},
	{Name: "repeat", Type: TypeInt, Gofio: true, globalOnly: true, Min: 1, Max: 1000,
		Help:   "gofio: run each sweep point (and side) N times ([global] only; --repeat overrides)",
		custom: func(j *Job, v string) error { n, err := strconv.Atoi(v); j.Run.Repeat = n; return err }},
	{Name: "fail_if_slower", Type: TypeString, TypeHelp: "float (opt=5)", Gofio: true, globalOnly: true,
		Help: "gofio: exit 101 when the new side is slower than the old by more than PCT beyond noise ([global] only; --fail-if-slower overrides)",
		custom: func(j *Job, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 {
				return fmt.Errorf("want a percentage of 0 or more, e.g. fail_if_slower=5")
			}
			j.Run.FailIfSlower, j.Run.HasFailIfSlower = f, true
			return nil
		}},
	{Name: "slo", Type: TypeString, Gofio: true, globalOnly: true,
		Help: "gofio: the latency objective of a sweep's capacity, the highest IOPS that meets it (slo=p99<=2ms; avg, p50, p90, p99, p99.9, p99.99; [global] only; --slo overrides)",
		custom: func(j *Job, v string) error {
			j.Run.SLO = v // parsed with --slo's grammar by the command (capacity.ParseSLO)
			return nil
		}},
}
