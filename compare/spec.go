package compare

import "fmt"

// Spec is a comparison as the user asked for it, parsed once, whether it
// came from the command line (--compare, --sweep) or from a job file's
// [global] (compare=, sweep=): the A/B of two settings and the sweeps the
// plan expands.
type Spec struct {
	AB     *AB     // the compared option; nil without --compare
	Sweeps []Sweep // the swept options, in order
}

// ParseSpec parses --compare's argument (nil when it was not given; "" is
// DefaultAB) and the --sweep arguments with check (see ParseAB and
// ParseSweeps), and refuses an option both compared and swept. Its errors
// wrap ErrBadCompare or ErrBadSweep, saying which part was wrong.
func ParseSpec(compareArg *string, sweepArgs []string, check KeyFunc) (Spec, error) {
	sweeps, err := ParseSweeps(sweepArgs, check)
	if err != nil {
		return Spec{}, err
	}
	s := Spec{Sweeps: sweeps}
	if compareArg == nil {
		return s, nil
	}
	ab, err := ParseAB(*compareArg, check)
	if err != nil {
		return Spec{}, err
	}
	for _, sw := range sweeps {
		if sw.Key == ab.Key {
			return Spec{}, fmt.Errorf("%w %q: %s is also swept; compare one option and sweep others", ErrBadCompare, ab, ab.Key)
		}
	}
	s.AB = &ab
	return s, nil
}
