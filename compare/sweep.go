package compare

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// MaxPoints caps the number of sweep points (the product of all sweep
// lists), so a typo cannot plan a run that never ends.
const MaxPoints = 4096

// Sweep is one --sweep KEY=LIST, expanded: the option and its values in
// order, each value as it will be handed to the job parser.
type Sweep struct {
	Key    string
	Values []string
}

// String returns the sweep as KEY=V1,V2,...
func (s Sweep) String() string { return s.Key + "=" + strings.Join(s.Values, ",") }

// ErrBadSweep is wrapped by every error of the sweep grammar.
var ErrBadSweep = errors.New("bad --sweep")

// positiveKeys are options whose values must be greater than zero.
var positiveKeys = map[string]bool{"iodepth": true, "bs": true, "blocksize": true, "numjobs": true}

// ParseSweep parses one --sweep argument. The grammar:
//
//	KEY=A%..B%     percentages from A to B in steps of A (10%..100%: 10%,
//	               20%, ..., 100%), for the fractions of the maximum rate
//	               of rate_iops= or rate= (compare/capacity)
//	KEY=A..B       powers of two from A to B, both powers of two, A <= B;
//	               A and B may carry a size suffix k, m, g, t or p (base
//	               1024, an optional trailing b), and the values keep it:
//	               bs=4k..1m gives 4k,8k,...,512k,1m
//	KEY=V1,V2,...  the values in the order given, each digits with an
//	               optional unit suffix (4k, 2s, 50%); no duplicates
//	KEY=N1,N2,...  names of an option's choices, each a letter followed
//	               by letters, digits, '_' or '-' (taskrun_mode=none,coop,
//	               rw=randread,randwrite); the job parser checks them; a
//	               list is all numbers or all names, as its first value is
//
// Zero is refused in a range, and anywhere for iodepth, bs and numjobs.
// Blanks around the key and the values are ignored. The key is only checked
// to be a plain option name here; ParseSweeps checks it against the options
// gofio knows.
func ParseSweep(s string) (Sweep, error) {
	key, list, ok := strings.Cut(s, "=")
	key = strings.ToLower(strings.TrimSpace(key))
	if !ok {
		return Sweep{}, fmt.Errorf("%w %q: want KEY=LIST, e.g. iodepth=1..16384 or iodepth=1,8,64", ErrBadSweep, s)
	}
	if key == "" {
		return Sweep{}, fmt.Errorf("%w %q: empty option name before '='", ErrBadSweep, s)
	}
	if !isOptionName(key) {
		return Sweep{}, fmt.Errorf("%w %q: %q is not an option name", ErrBadSweep, s, key)
	}
	list = strings.TrimSpace(list)
	if list == "" {
		return Sweep{}, fmt.Errorf("%w %q: empty list of values (want KEY=LIST)", ErrBadSweep, s)
	}
	var (
		values []string
		err    error
	)
	if lo, hi, isRange := strings.Cut(list, ".."); isRange && strings.Contains(list, ",") {
		err = errors.New("mixes a range and a list, give one or the other")
	} else if isRange && strings.HasSuffix(strings.TrimSpace(hi), "%") {
		values, err = expandPercent(strings.TrimSpace(lo), strings.TrimSpace(hi))
	} else if isRange {
		values, err = expandRange(strings.TrimSpace(lo), strings.TrimSpace(hi))
	} else {
		values, err = splitList(list, positiveKeys[key])
	}
	if err != nil {
		return Sweep{}, fmt.Errorf("%w %q: %w", ErrBadSweep, s, err)
	}
	return Sweep{Key: key, Values: values}, nil
}

// KeyFunc checks a sweep key against the job options and returns its
// canonical name (resolving aliases such as sqpoll), or an error saying
// what is allowed.
type KeyFunc func(key string) (canonical string, err error)

// ParseSweeps parses every --sweep argument in order, checks each key with
// check (nil skips that check) and refuses a key swept twice, a sweep of
// tw_priority (--compare runs both policies) and more than MaxPoints points.
func ParseSweeps(args []string, check KeyFunc) ([]Sweep, error) {
	sweeps := make([]Sweep, 0, len(args))
	seen := make(map[string]string, len(args))
	points := 1
	for _, a := range args {
		sw, err := ParseSweep(a)
		if err != nil {
			return nil, err
		}
		if check != nil {
			k, err := check(sw.Key)
			if err != nil {
				return nil, fmt.Errorf("%w %q: %w", ErrBadSweep, a, err)
			}
			sw.Key = k
		}
		if sw.Key == "tw_priority" {
			return nil, fmt.Errorf("%w %q: tw_priority is not swept, use --compare to run both policies", ErrBadSweep, a)
		}
		if positiveKeys[sw.Key] && !isName(sw.Values[0]) {
			for _, v := range sw.Values {
				if isZero(v) {
					return nil, fmt.Errorf("%w %q: %s must be greater than 0", ErrBadSweep, a, sw.Key)
				}
			}
		}
		if prev, dup := seen[sw.Key]; dup {
			return nil, fmt.Errorf("%w %q: %s is already swept by %q", ErrBadSweep, a, sw.Key, prev)
		}
		seen[sw.Key] = a
		points *= len(sw.Values)
		if points > MaxPoints {
			return nil, fmt.Errorf("%w: the sweeps give more than %d points", ErrBadSweep, MaxPoints)
		}
		sweeps = append(sweeps, sw)
	}
	return sweeps, nil
}

// isOptionName reports whether k looks like a fio option name: letters,
// digits and '_', starting with a letter.
func isOptionName(k string) bool {
	for i, c := range k {
		switch {
		case c >= 'a' && c <= 'z':
		case (c >= '0' && c <= '9' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}

// splitList splits V1,V2,... and checks each value.
func splitList(list string, positive bool) ([]string, error) {
	parts := strings.Split(list, ",")
	values := make([]string, 0, len(parts))
	seen := make(map[string]bool, len(parts))
	names := isName(strings.TrimSpace(parts[0]))
	for i, p := range parts {
		v := strings.TrimSpace(p)
		switch {
		case v == "":
			return nil, fmt.Errorf("value %d is empty", i+1)
		case names && !isName(v):
			return nil, fmt.Errorf("value %q is not a name like the first value %q (letters, digits, '_' and '-', starting with a letter)", v, strings.TrimSpace(parts[0]))
		case !names && !isValue(v):
			return nil, fmt.Errorf("value %q is not a number with an optional unit (4k, 2s, 50%%)", v)
		case !names && positive && isZero(v):
			return nil, fmt.Errorf("value %q: must be greater than 0", v)
		case seen[strings.ToLower(v)]:
			return nil, fmt.Errorf("value %q is listed twice", v)
		}
		seen[strings.ToLower(v)] = true
		values = append(values, v)
	}
	return values, nil
}

// isName reports whether v names a choice: a letter, then letters,
// digits, '_' or '-'.
func isName(v string) bool {
	for i, c := range v {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case (c >= '0' && c <= '9' || c == '_' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return v != ""
}

// isValue reports whether v is digits followed by an optional unit of
// letters or a single '%'.
func isValue(v string) bool {
	i := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	if i == 0 {
		return false
	}
	unit := v[i:]
	if unit == "%" {
		return true
	}
	for _, c := range unit {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// isZero reports whether the number in v is 0 (whatever its unit).
func isZero(v string) bool {
	n := strings.TrimLeft(v, "0")
	return n == "" || n[0] < '0' || n[0] > '9'
}

// expandRange expands lo..hi into the powers of two between them.
func expandRange(lo, hi string) ([]string, error) {
	if lo == "" || hi == "" {
		return nil, errors.New("a range needs both bounds, as in 1..16384")
	}
	a, ua, err := parseSize(lo)
	if err != nil {
		return nil, fmt.Errorf("range start: %w", err)
	}
	b, ub, err := parseSize(hi)
	if err != nil {
		return nil, fmt.Errorf("range end: %w", err)
	}
	switch {
	case a == 0 || b == 0:
		return nil, errors.New("a range of powers of two cannot include 0")
	case bits.OnesCount64(a) != 1:
		return nil, fmt.Errorf("range start %s is not a power of two", lo)
	case bits.OnesCount64(b) != 1:
		return nil, fmt.Errorf("range end %s is not a power of two", hi)
	case a > b:
		return nil, fmt.Errorf("range %s..%s is reversed, the start must not exceed the end", lo, hi)
	}
	withUnit := ua || ub
	var values []string
	for v := a; ; v <<= 1 {
		if withUnit {
			values = append(values, FormatSize(v))
		} else {
			values = append(values, strconv.FormatUint(v, 10))
		}
		if v == b {
			break
		}
	}
	return values, nil
}

// sizeUnits are the suffixes a range bound may carry, base 1024 as fio's
// default kb_base reads them.
var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"p", 50}, {"t", 40}, {"g", 30}, {"m", 20}, {"k", 10}}

// parseSize reads digits with an optional k, m, g, t or p suffix (and an
// optional b after it), base 1024. unit reports whether a suffix was given.
func parseSize(s string) (v uint64, unit bool, err error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false, fmt.Errorf("%q is not a number", s)
	}
	n, err := strconv.ParseUint(s[:i], 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("%q is too large", s)
	}
	suf := strings.ToLower(s[i:])
	if suf == "" || suf == "b" {
		return n, false, nil
	}
	for _, u := range sizeUnits {
		if suf == u.suffix || suf == u.suffix+"b" {
			if n > (^uint64(0))>>u.shift {
				return 0, false, fmt.Errorf("%q is too large", s)
			}
			return n << u.shift, true, nil
		}
	}
	return 0, false, fmt.Errorf("%q: unknown unit %q in a range, use k, m, g, t or p", s, s[i:])
}

// FormatSize writes a byte count with the largest of k, m, g, t, p that
// divides it exactly (4096 is "4k"), as a job file would.
func FormatSize(v uint64) string {
	for _, u := range sizeUnits {
		if v != 0 && v&(1<<u.shift-1) == 0 {
			return strconv.FormatUint(v>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatUint(v, 10)
}

// numericValue returns the number a sweep value stands for, sizes in bytes,
// for the chart's x axis; ok is false for values with other units.
func numericValue(v string) (float64, bool) {
	n, _, err := parseSize(v)
	if err != nil {
		return 0, false
	}
	return float64(n), true
}
