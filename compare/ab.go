package compare

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gofio/gofio/report"
)

// AB is a --compare KEY=A,B: every job runs with KEY=A (the "new" side)
// and with KEY=B (the "old" side).
type AB struct {
	Key      string
	New, Old string
}

// DefaultAB is plain --compare: the priority task-work policy against the
// FIFO baseline.
var DefaultAB = AB{Key: "tw_priority", New: "1", Old: "0"}

// String returns the comparison as KEY=A,B.
func (ab AB) String() string { return ab.Key + "=" + ab.New + "," + ab.Old }

// ErrBadCompare is wrapped by every error of the --compare grammar.
var ErrBadCompare = errors.New("bad --compare")

// ParseAB parses --compare's argument: "" is DefaultAB, else KEY=A,B with
// exactly two values (they may be equal, for an A/A test of the noise).
// check (nil skips it) resolves the key through the option table.
func ParseAB(s string, check KeyFunc) (AB, error) {
	if strings.TrimSpace(s) == "" {
		return DefaultAB, nil
	}
	key, list, ok := strings.Cut(s, "=")
	key = strings.ToLower(strings.TrimSpace(key))
	if !ok || key == "" {
		return AB{}, fmt.Errorf("%w %q: want KEY=A,B, e.g. ioengine=io_uring,libaio or sqthread_poll=1,0", ErrBadCompare, s)
	}
	if !isOptionName(key) {
		return AB{}, fmt.Errorf("%w %q: %q is not an option name", ErrBadCompare, s, key)
	}
	vals := strings.Split(list, ",")
	if len(vals) != 2 {
		return AB{}, fmt.Errorf("%w %q: want exactly two values, the new one then the old one (KEY=A,B); got %d", ErrBadCompare, s, len(vals))
	}
	a, b := strings.TrimSpace(vals[0]), strings.TrimSpace(vals[1])
	if a == "" || b == "" {
		return AB{}, fmt.Errorf("%w %q: empty value", ErrBadCompare, s)
	}
	if check != nil {
		k, err := check(key)
		if err != nil {
			return AB{}, fmt.Errorf("%w %q: %w", ErrBadCompare, s, err)
		}
		key = k
	}
	return AB{Key: key, New: a, Old: b}, nil
}

// LooksLikeAB reports whether a command-line argument after a bare
// --compare is its KEY=A,B value rather than a job file: an option name,
// '=', and two values separated by one ','.
func LooksLikeAB(arg string) bool {
	key, list, ok := strings.Cut(arg, "=")
	return ok && key != "" && isOptionName(strings.ToLower(key)) && strings.Count(list, ",") == 1
}

// Sides returns the SideSpecs of the two sides. A side's name is its value,
// or for tw_priority the policy it selects ("priority", "fifo"); when both
// names would be equal they are prefixed "new-" and "old-", so the two
// sides never share a name (nor a --json-dir subdirectory).
func (ab AB) Sides() (newSide, oldSide report.SideSpec) {
	name := func(v string) string {
		if ab.Key == "tw_priority" {
			switch strings.ToLower(v) {
			case "1", "true", "on", "yes":
				return report.PolicyPriority
			case "0", "false", "off", "no":
				return report.PolicyFIFO
			}
		}
		return safeName(v)
	}
	nn, on := name(ab.New), name(ab.Old)
	if nn == on {
		nn, on = "new-"+nn, "old-"+on
	}
	return report.SideSpec{Name: nn, Key: ab.Key, Value: ab.New},
		report.SideSpec{Name: on, Key: ab.Key, Value: ab.Old}
}

// safeName keeps a value usable as a directory name and a CSV/JSON label:
// '/' and blanks become '_'.
func safeName(v string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '/', ' ', '\t', '\\':
			return '_'
		}
		return r
	}, v)
}
