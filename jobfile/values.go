package jobfile

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// errFraction is returned for sizes like 1.5k, which fio silently reads as 1.
var errFraction = errors.New("fractions are not allowed in sizes (fio would read this as a whole number and drop the rest)")

// splitNumber cuts s into its leading unsigned number (decimal, or hex with a
// 0x prefix) and the rest.
func splitNumber(s string) (uint64, string, error) {
	if s == "" {
		return 0, "", errors.New("empty value")
	}
	base, digits := 10, s
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		base, digits = 16, s[2:]
	}
	n := 0
	for n < len(digits) && isDigitIn(digits[n], base) {
		n++
	}
	if n == 0 {
		return 0, "", fmt.Errorf("%q is not a number", s)
	}
	v, err := strconv.ParseUint(digits[:n], base, 64)
	if err != nil {
		return 0, "", fmt.Errorf("%q is out of range", s)
	}
	rest := digits[n:]
	if base == 10 && strings.HasPrefix(rest, ".") {
		return 0, "", errFraction
	}
	return v, rest, nil
}

func isDigitIn(c byte, base int) bool {
	if c >= '0' && c <= '9' {
		return true
	}
	if base == 16 {
		c |= 0x20
		return c >= 'a' && c <= 'f'
	}
	return false
}

// sizeMultiplier returns the multiplier of a size suffix as fio's
// __get_mult_bytes reads it: Xib is the base opposite to kb_base, X, Xb and Xi
// follow kb_base, b or nothing is 1. Unlike fio, an unknown suffix is an error.
func sizeMultiplier(suffix string, kbBase int) (uint64, error) {
	s := strings.ToLower(suffix)
	if s == "" || s == "b" {
		return 1, nil
	}
	const units = "kmgtp"
	i := strings.IndexByte(units, s[0])
	if i < 0 {
		return 0, fmt.Errorf("unknown size suffix %q (want k, m, g, t, p with optional b, i or ib)", suffix)
	}
	base := uint64(kbBase)
	switch s[1:] {
	case "", "b", "i":
	case "ib":
		if kbBase == 1000 {
			base = 1024
		} else {
			base = 1000
		}
	default:
		return 0, fmt.Errorf("unknown size suffix %q (want k, m, g, t, p with optional b, i or ib)", suffix)
	}
	m := uint64(1)
	for k := 0; k <= i; k++ {
		m *= base
	}
	return m, nil
}

// parseSize reads a size such as 4k, 1MiB, 0x1000 or 512. With allowPct, N%
// (1..100) is returned as pct instead. Leading and trailing blanks are
// ignored (fio reads "size = 1m" as 1 byte).
func parseSize(s string, kbBase int, allowPct bool) (v uint64, pct int, err error) {
	s = strings.TrimSpace(s)
	n, rest, err := splitNumber(s)
	if err != nil {
		return 0, 0, err
	}
	if rest == "%" {
		if !allowPct {
			return 0, 0, errors.New("a percentage is not allowed here")
		}
		if n < 1 || n > 100 {
			return 0, 0, fmt.Errorf("percentage %d%% is outside 1..100", n)
		}
		return 0, int(n), nil
	}
	m, err := sizeMultiplier(rest, kbBase)
	if err != nil {
		return 0, 0, err
	}
	if n != 0 && m > math.MaxUint64/n {
		return 0, 0, fmt.Errorf("%q overflows 64 bits", s)
	}
	return n * m, 0, nil
}

// parseInt reads an integer option value: a size-style number (fio allows
// suffixes on integers too), with an optional leading minus sign.
func parseInt(s string, kbBase int) (int64, error) {
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	v, _, err := parseSize(s, kbBase, false)
	if err != nil {
		return 0, err
	}
	if v > math.MaxInt64 {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	if neg {
		return -int64(v), nil
	}
	return int64(v), nil
}

// parseBool reads 0 or 1 (fio's BOOL). true/false/yes/no are rejected, as
// in fio.
func parseBool(s string) (bool, error) {
	v, err := parseInt(s, 1024)
	if err != nil {
		return false, fmt.Errorf("want 0 or 1: %w", err)
	}
	switch v {
	case 0:
		return false, nil
	case 1:
		return true, nil
	}
	return false, fmt.Errorf("max value out of range: %d (1 max)", v)
}

// parseFlag reads the value of a valueless-capable flag (fio's STR_SET): no
// value means set, otherwise any non-negative number, non-zero meaning set.
func parseFlag(s string, has bool) (bool, error) {
	if !has {
		return true, nil
	}
	v, err := parseInt(s, 1024)
	if err != nil || v < 0 {
		return false, errors.New("want nothing, 0 or 1")
	}
	return v != 0, nil
}

// timeUnits maps the time suffixes gofio accepts to their length. fio
// accepts us, ms, s, m, h, d and reads anything else (sec, min) as
// microseconds; gofio accepts the spelled-out forms and rejects the rest.
var timeUnits = map[string]time.Duration{
	"ns": time.Nanosecond, "nsec": time.Nanosecond,
	"us": time.Microsecond, "usec": time.Microsecond, "usecs": time.Microsecond,
	"ms": time.Millisecond, "msec": time.Millisecond, "msecs": time.Millisecond,
	"s": time.Second, "sec": time.Second, "secs": time.Second,
	"m": time.Minute, "min": time.Minute, "mins": time.Minute,
	"h": time.Hour, "hr": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
}

// parseTime reads a time such as 10, 1500ms, 2m or 1.5s. A bare number is
// in unit (seconds for runtime, microseconds for fio's other times).
func parseTime(s string, unit time.Duration) (time.Duration, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("%q is not a time (want a number with us, ms, s, m, h or d)", s)
	}
	f, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a time: %w", s, err)
	}
	if suf := strings.ToLower(s[i:]); suf != "" {
		u, ok := timeUnits[suf]
		if !ok {
			return 0, fmt.Errorf("unknown time suffix %q (want us, ms, s, m, h or d)", s[i:])
		}
		unit = u
	}
	d := f * float64(unit)
	// float64(math.MaxInt64) rounds up to 2^63, which no longer fits.
	if d >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is too long", s)
	}
	return time.Duration(d), nil
}

// splitDirs splits a per-direction value (read,write,trim) the way fio's
// handle_option does: the last piece given also fills the directions after
// it, an empty piece keeps the default. It returns, per direction, the text
// to apply ("" keeps the default).
func splitDirs(s string, dirs int) ([NumDirs]string, error) {
	var out [NumDirs]string
	parts := strings.Split(s, ",")
	if len(parts) > dirs {
		return out, fmt.Errorf("at most %d comma-separated values (read,write,trim)", dirs)
	}
	for i, p := range parts {
		if p == "" {
			continue
		}
		out[i] = p
		if i == len(parts)-1 {
			for k := i + 1; k < dirs; k++ {
				out[k] = p
			}
		}
	}
	return out, nil
}

// parseRange reads lo-hi or lo:hi (or a single value) and orders the ends.
func parseRange(s string, kbBase int) (lo, hi uint64, err error) {
	cut := strings.IndexAny(s, "-:")
	if cut < 0 {
		v, _, err := parseSize(s, kbBase, false)
		return v, v, err
	}
	if lo, _, err = parseSize(s[:cut], kbBase, false); err != nil {
		return 0, 0, err
	}
	if hi, _, err = parseSize(s[cut+1:], kbBase, false); err != nil {
		return 0, 0, err
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	return lo, hi, nil
}

// parseFloatList reads a ':'-separated list of percentiles in [0,100], at
// most 20 entries. It also returns the number of decimals to print: the
// largest number of decimals in any entry.
func parseFloatList(s string) ([]float64, int, error) {
	parts := strings.Split(s, ":")
	if len(parts) > 20 {
		return nil, 0, fmt.Errorf("at most 20 values, got %d", len(parts))
	}
	out := make([]float64, 0, len(parts))
	prec := 0
	for _, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) {
			return nil, 0, fmt.Errorf("%q is not a number", p)
		}
		if f < 0 || f > 100 {
			return nil, 0, fmt.Errorf("value out of range: %f (range 0..100)", f)
		}
		if i := strings.IndexByte(p, '.'); i >= 0 {
			prec = max(prec, len(strings.TrimSpace(p))-i-1)
		}
		out = append(out, f)
	}
	return out, prec, nil
}

// parseBSSplit reads one direction of bssplit: bs/pct:bs/pct. Entries without
// a percentage share what is left of 100, as fio's bssplit_ddir does.
func parseBSSplit(s string, kbBase int) ([]BSSplitEntry, error) {
	parts := strings.Split(s, ":")
	if len(parts) > 64 {
		return nil, errors.New("at most 64 bs/percentage entries")
	}
	out := make([]BSSplitEntry, 0, len(parts))
	var sum uint32
	missing := 0
	for _, p := range parts {
		bsText, pctText, _ := strings.Cut(p, "/")
		bs, _, err := parseSize(bsText, kbBase, false)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", p, err)
		}
		if bs == 0 {
			return nil, fmt.Errorf("entry %q: block size must be at least 1", p)
		}
		var pct uint32
		if pctText != "" {
			v, err := strconv.ParseUint(pctText, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("entry %q: percentage is not a number", p)
			}
			pct = uint32(min(v, 100))
		}
		if pct == 0 {
			missing++
		}
		sum += pct
		out = append(out, BSSplitEntry{BS: bs, Pct: pct})
	}
	if missing > 0 {
		if sum > 100 && missing >= 2 {
			return nil, errors.New("bssplit percentages add to more than 100%")
		}
		var share uint32
		if sum < 100 {
			share = (100 - sum) / uint32(missing)
		}
		for i := range out {
			if out[i].Pct == 0 {
				out[i].Pct = share
			}
		}
	}
	return out, nil
}

// parseCPUList reads a CPU list such as 0,5,8-15.
func parseCPUList(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(p, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil || a < 0 {
			return nil, fmt.Errorf("%q is not a CPU number", p)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil || b < a {
				return nil, fmt.Errorf("%q is not a CPU range", p)
			}
		}
		if b-a > 1<<16 || b > 1<<20 {
			return nil, fmt.Errorf("%q is too large", p)
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}

// ParseTime reads a time as job options do (10, 1500ms, 2m, 1.5s); a bare
// number is in unit. The CLI uses it for fio's time flags.
func ParseTime(s string, unit time.Duration) (time.Duration, error) { return parseTime(s, unit) }

// ParseCPUList reads a CPU (or NUMA node) list such as 0-3,8 as
// cpus_allowed= does.
func ParseCPUList(s string) ([]int, error) { return parseCPUList(s) }

// clockChoices are fio 3.33's clocksource= values on Linux x86-64.
var clockChoices = []Choice{{"gettimeofday", "Use gettimeofday(2) for timing"},
	{"clock_gettime", "Use clock_gettime(2) for timing"}, {"cpu", "Use CPU private clock"}}

// cpumaskCPUs returns the CPUs of cpumask= mask, as fio's str_cpumask_cb
// reads it: bits 0 to 31 (higher bits are ignored), each below ncpus, the
// count of configured CPUs.
func cpumaskCPUs(mask uint64, ncpus int) ([]int, error) {
	var out []int
	for i := 0; i < 32; i++ {
		if mask&(1<<i) == 0 {
			continue
		}
		if i >= ncpus {
			return nil, fmt.Errorf("CPU %d too large (max=%d)", i, ncpus-1)
		}
		out = append(out, i)
	}
	return out, nil
}

// configuredCPUs counts this machine's configured CPUs, as glibc's
// sysconf(_SC_NPROCESSORS_CONF) does from /sys/devices/system/cpu/possible
// (falling back to online CPUs).
func configuredCPUs() int {
	b, err := os.ReadFile("/sys/devices/system/cpu/possible")
	if err == nil {
		if cpus, err := parseCPUList(strings.TrimSpace(string(b))); err == nil && len(cpus) > 0 {
			return len(cpus)
		}
	}
	return onlineCPUs()
}

// addFilenames applies one filename= as fio 3.33's str_filename_cb does:
// the files are added to those the job has (from [global], an earlier
// filename= line or --filename), and nrfiles counts them, starting again
// from zero when the job had none (so an nrfiles= parsed before it is
// overridden, and one parsed after it wins: fixup keeps the first nrfiles
// of the files). --set filename= replaces the list instead (build).
func addFilenames(j *Job, v string) error {
	if len(j.Filenames) == 0 {
		j.NrFiles = 0
	}
	names := splitFilenames(v)
	j.Filenames = append(j.Filenames, names...)
	j.NrFiles += len(names)
	return nil
}

// splitFilenames splits a ':' list where "\:" is a literal colon, skipping
// empty elements as fio's get_next_str does.
func splitFilenames(v string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] == '\\' && i+1 < len(v) && v[i+1] == ':':
			cur.WriteByte(':')
			i++
		case v[i] == ':':
			if cur.Len() > 0 {
				out = append(out, cur.String())
			}
			cur.Reset()
		default:
			cur.WriteByte(v[i])
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// setRW reads rw=PATTERN[:N]. For random patterns N is the number of I/Os
// per random offset; for sequential ones it is a hole added after each I/O.
func setRW(j *Job, v string) error {
	name, rest, _ := choiceIn(rwChoices, v)
	if name == "readwrite" {
		name = "rw"
	}
	j.RW = RW(name)
	j.RWSeqNr, j.RWSeqAdd = 0, 0
	if rest == "" {
		return nil
	}
	if rest[0] != ':' || len(rest) == 1 {
		return fmt.Errorf("want %s[:N]", name)
	}
	if j.RW.IsRandom() {
		n, err := strconv.ParseUint(rest[1:], 10, 32)
		if err != nil {
			return fmt.Errorf("%s:N wants a whole number of I/Os", name)
		}
		j.RWSeqNr = n
		return nil
	}
	n, err := parseInt(rest[1:], j.KBBase) // fio's str_to_decimal: a leading '-' steps backwards
	j.RWSeqAdd = n
	return err
}

func setBSRange(j *Job, v string) error {
	return eachDir(v, func(d Dir, part string) error {
		lo, hi, err := parseRange(part, j.KBBase)
		if err != nil {
			return err
		}
		if lo == 0 {
			return errors.New("min value out of range: 0 (1 min)")
		}
		j.BSRangeMin[d], j.BSRangeMax[d] = lo, hi
		return nil
	})
}

// eachDir splits an R,W,T value and calls set for every direction whose
// part is not empty.
func eachDir(v string, set func(d Dir, part string) error) error {
	parts, err := splitDirs(v, 3)
	if err != nil {
		return err
	}
	for d := DirRead; d < NumDirs; d++ {
		if parts[d] == "" {
			continue
		}
		if err := set(d, parts[d]); err != nil {
			return err
		}
	}
	return nil
}

func setBSSplit(j *Job, v string) error {
	return eachDir(v, func(d Dir, part string) error {
		split, err := parseBSSplit(part, j.KBBase)
		if err != nil {
			return err
		}
		j.BSSplit[d] = split
		return nil
	})
}

// setDistribution reads random_distribution=KIND[:PARAM] with fio's
// defaults (zipf 1.1, pareto 0.2, normal 0).
func setDistribution(j *Job, v string) error {
	kind, rest, _ := choiceIn(distChoices, v)
	d := Distribution{Kind: kind}
	switch kind {
	case "zoned", "zoned_abs":
		if strings.Contains(rest, ",") {
			// fio matches a choice up to the first comma, so any comma
			// makes the value unknown (the per-direction form that fio's
			// documentation shows does not parse in 3.33).
			return fmt.Errorf("%q: a comma is not allowed here (fio 3.33 refuses per-direction zone lists)", v)
		}
		if !strings.HasPrefix(rest, ":") {
			return fmt.Errorf("want %s:ACCESS/SIZE[:ACCESS/SIZE...]", kind)
		}
		zones, err := parseZoneSplit(rest[1:], kind == "zoned_abs", j.KBBase)
		if err != nil {
			return err
		}
		for dir := range d.Zones {
			d.Zones[dir] = zones
		}
		j.RandomDistribution = d
		return nil
	case "zipf":
		d.Param = 1.1
	case "pareto":
		d.Param = 0.2
	}
	if rest != "" {
		if rest[0] != ':' || kind == "random" {
			return fmt.Errorf("want %s", map[bool]string{true: "random", false: kind + "[:value]"}[kind == "random"])
		}
		f, err := strconv.ParseFloat(rest[1:], 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", rest[1:])
		}
		d.Param = f
	}
	switch {
	case kind == "zipf" && (d.Param == 1.0 || d.Param <= 0):
		return errors.New("zipf theta must be positive and different from 1.0")
	case kind == "pareto" && (d.Param <= 0 || d.Param >= 1):
		return errors.New("pareto h must be between 0 and 1")
	case kind == "normal" && (d.Param < 0 || d.Param > 100):
		return errors.New("normal sigma must be 0..100 (percent)")
	}
	j.RandomDistribution = d
	return nil
}

func setVerify(j *Job, v string) error {
	name, _, _ := choiceIn(verifyChoices, v)
	ok := false
	for _, s := range supportedVerify {
		ok = ok || s == name
	}
	if !ok {
		return fmt.Errorf("verify=%s is not supported by gofio (supported: %s)", name, strings.Join(supportedVerify, ", "))
	}
	j.Verify = name
	return nil
}

// setIOWQ reads iowq_max_workers: BOUND,UNBOUND, or one count N for both
// (so that --sweep iowq_max_workers=1,4,16 sweeps the pool's size).
func setIOWQ(j *Job, v string) error {
	b, u, found := strings.Cut(v, ",")
	if !found {
		u = b
	}
	var out [2]uint32
	for i, s := range []string{b, u} {
		n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32)
		if err != nil {
			return fmt.Errorf("want BOUND,UNBOUND worker counts, or N for both: %q is not a number", s)
		}
		out[i] = uint32(n)
	}
	j.IOWQMaxWorkers = out
	return nil
}

// setNonNegative returns a setter of the int field of a job that field
// picks: v read as a decimal integer (0 when it is not one), refused below
// 0 as fio's minval=0 refuses it.
func setNonNegative(field func(*Job) *int) func(*Job, string) error {
	return func(j *Job, v string) error {
		n, _ := strconv.Atoi(v)
		if n < 0 {
			return fmt.Errorf("min value out of range: %d (0 min)", n)
		}
		*field(j) = n
		return nil
	}
}

// setOffsetValue sets offset= or offset_increment= from v: a count of
// zones (fio's z suffix) into zones, with bytes and pct zero, or a size or
// percentage into bytes and pct, where a percentage clears zones.
func setOffsetValue(j *Job, v string, bytes *uint64, pct *int, zones *uint64) error {
	if nz, ok, err := parseZoneCount(v); ok || err != nil {
		*bytes, *pct, *zones = 0, 0, nz
		return err
	}
	n, p, err := parseSize(v, j.KBBase, true)
	*bytes, *pct = n, p
	if p > 0 {
		*zones = 0
	}
	return err
}

// parseZoneCount reads a value with fio's z suffix, a count of zones
// (parse.c's FIO_OPT_STR_VAL_ZONE): ok reports whether s ends in z. As in
// fio the count is decimal digits right before the z, kept to 32 bits; any
// other text before the z is an error.
func parseZoneCount(s string) (n uint64, ok bool, err error) {
	s = strings.TrimSpace(s)
	if !strings.HasSuffix(s, "z") {
		return 0, false, nil
	}
	digits := strings.TrimPrefix(s, "+")
	i := 0
	for i < len(digits) && digits[i] >= '0' && digits[i] <= '9' {
		i++
	}
	if i == 0 || digits[i] != 'z' {
		return 0, true, fmt.Errorf("unexpected zone value %q (want a number of zones such as 10z)", s)
	}
	v, perr := strconv.ParseUint(digits[:i], 10, 64)
	if perr != nil {
		return 0, true, fmt.Errorf("unexpected zone value %q (out of range)", s)
	}
	return uint64(uint32(v)), true, nil
}

// sfrChoices are sync_file_range's flags, as fio's help names them, in
// the order of their bits (1, 2, 4).
var sfrChoices = []Choice{
	{"wait_before", "SYNC_FILE_RANGE_WAIT_BEFORE"},
	{"write", "SYNC_FILE_RANGE_WRITE"},
	{"wait_after", "SYNC_FILE_RANGE_WAIT_AFTER"},
}

// setSyncFileRange parses sync_file_range=FLAG[,FLAG...][:N] as fio's
// str_sfr_cb: the flags ORed (SYNC_FILE_RANGE_WAIT_BEFORE 1, _WRITE 2,
// _WAIT_AFTER 4), one call every N writes (1 without :N, none with :0).
func setSyncFileRange(j *Job, v string) error {
	flags, every := v, "1"
	if i := strings.IndexByte(v, ':'); i >= 0 {
		flags, every = v[:i], strings.TrimSpace(v[i+1:])
	}
	n, err := strconv.Atoi(every)
	if err != nil || n < 0 {
		return fmt.Errorf("%q after ':' is not a number of writes (sync_file_range=write,wait_after:8)", every)
	}
	var mask uint32
	// fio drops one trailing comma.
	for _, f := range strings.Split(strings.TrimSuffix(flags, ","), ",") {
		i := slices.IndexFunc(sfrChoices, func(c Choice) bool { return c.Value == strings.TrimSpace(f) })
		if i < 0 {
			return fmt.Errorf("unknown flag %q: valid values: wait_before, write, wait_after", f)
		}
		mask |= 1 << i
	}
	j.SyncFileRange, j.SyncFileRangeEvery = mask, n
	return nil
}
