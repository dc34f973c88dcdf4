package jobfile

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// OptType is the value type of an option, as fio's parser knows it.
type OptType int

// The option value types.
const (
	TypeString    OptType = iota // free text
	TypeChoice                   // one of Choices (fio's STR with posval)
	TypeInt                      // integer, size suffixes allowed (fio's INT/ULL)
	TypeSize                     // size or N% (fio's STR_VAL_ZONE)
	TypeStrVal                   // a number read from a string (fio's STR_VAL)
	TypeBool                     // 0 or 1, value required
	TypeFlag                     // valueless flag, or 0/1 (fio's STR_SET)
	TypeTime                     // time with unit suffix (fio's STR_VAL_TIME)
	TypeRange                    // lo-hi ranges per direction
	TypeFloatList                // ':'-separated floats
)

// typeHelp is what fio's --cmdhelp prints as an option's type.
var typeHelp = map[OptType]string{
	TypeString:    "string (opt=bla)",
	TypeChoice:    "string (opt=bla)",
	TypeStrVal:    "string (opt=bla)",
	TypeInt:       "integer value (opt=100)",
	TypeSize:      "(null)",
	TypeBool:      "boolean value (opt=1)",
	TypeFlag:      "empty or boolean value ([0|1])",
	TypeTime:      "string with time postfix (opt=10s)",
	TypeRange:     "one to three ranges (opt=1k-4k[,4k-8k[,1k-8k]])",
	TypeFloatList: "list of floating point values separated by ':' (opt=5.9:7.8)",
}

// Unbounded as an OptionSpec.Max means no upper limit (fio prints UINT_MAX
// with %d, so --cmdhelp shows max=-1).
const Unbounded = -1

// Choice is one valid value of a TypeChoice option.
type Choice struct {
	Value string
	Help  string
}

// OptionSpec describes one option. The one table of them (OptionTable)
// drives parsing, validation, defaults, --cmdhelp, --enghelp, --showcmd and
// the option list OPTIONS.md.
type OptionSpec struct {
	Name     string
	Aliases  []string
	Type     OptType
	TypeHelp string // overrides typeHelp[Type] where fio prints something else
	Default  string // as --cmdhelp prints it; "" means no default
	Min, Max int64  // integer range; both 0 means none, Max 0 means no upper bound printed
	FMin     float64
	FMax     float64 // float list range
	FMaxLen  int     // values a float list holds at most; 0 is fio's 20
	Choices  []Choice
	Help     string
	Engine   string        // "" for a job option, "io_uring" for an engine option
	Gofio    bool          // gofio's own option, fio lacks it
	ULL      bool          // fio's FIO_OPT_ULL: an Unbounded Max is 2^64-1, not 2^32-1
	Since    string        // the fio release that added it, after 3.33 ("3.38"); "" for fio 3.33's
	Parent   string        // option this one is listed under in --cmdhelp
	Prio     int           // fio's parse priority: higher is parsed first
	Unit     time.Duration // TypeTime: the unit of a bare number
	Dirs     int           // values per direction (read,write,trim) for TypeInt/TypeRange
	Neg      bool          // TypeBool: the stored value is the inverse; a per-direction TypeInt: Max less the value
	Note     string        // gofio's remark for OPTIONS.md (differences, limits)
	// OptionalArg marks fio's callback strings (FIO_OPT_STR without
	// choices): the value may be left out or empty.
	OptionalArg bool
	// NotRun marks an option gofio parses and checks as fio does but does
	// not run: a job that sets it to anything but its default is refused
	// at run time (Job.Unrun).
	NotRun bool

	globalOnly bool // refused outside [global] (RunOptions)

	intp  func(*Job) *int
	u64p  func(*Job) *uint64
	boolp func(*Job) *bool
	durp  func(*Job) *time.Duration
	// durDirs stores a per-direction TypeTime (Dirs > 1).
	durDirs func(*Job) *[NumDirs]time.Duration
	dirsp   func(*Job) *[NumDirs]int
	dirs64  func(*Job) *[NumDirs]uint64
	custom  func(*Job, string) error
}

// TypeName returns the type text fio's --cmdhelp prints.
func (o *OptionSpec) TypeName() string {
	if o.TypeHelp != "" {
		return o.TypeHelp
	}
	return typeHelp[o.Type]
}

// setBool stores a parsed flag or boolean: through the option's custom
// setter as "1" or "0", or into its field, inverted for .neg options.
func (o *OptionSpec) setBool(j *Job, b bool) error {
	if o.custom != nil {
		if b {
			return o.custom(j, "1")
		}
		return o.custom(j, "0")
	}
	*o.boolp(j) = b != o.Neg
	return nil
}

// hasRange reports whether an integer range applies to the option.
func (o *OptionSpec) hasRange() bool { return o.Min != 0 || o.Max != 0 }

// checkRange checks v against the option's range, with fio's wording.
func (o *OptionSpec) checkRange(v int64) error {
	if !o.hasRange() {
		return nil
	}
	if v < o.Min {
		return fmt.Errorf("min value out of range: %d (%d min)", v, o.Min)
	}
	if o.Max > 0 && v > o.Max {
		return fmt.Errorf("max value out of range: %d (%d max)", v, o.Max)
	}
	if o.Max == Unbounded && v > 1<<32-1 && !o.ULL {
		return fmt.Errorf("max value out of range: %d (%d max)", v, int64(1<<32-1))
	}
	return nil
}

// choiceFor returns the choice matching v: fio compares the part before the
// first ':' or ',' exactly.
func (o *OptionSpec) choiceFor(v string) (string, string, bool) { return choiceIn(o.Choices, v) }

// choiceIn matches v against choices by the part before the first ':' or ','.
func choiceIn(choices []Choice, v string) (string, string, bool) {
	head, rest := v, ""
	if i := strings.IndexAny(v, ":,"); i >= 0 {
		head, rest = v[:i], v[i:]
	}
	for _, c := range choices {
		if c.Value == head {
			return c.Value, rest, true
		}
	}
	return "", "", false
}

// allowed describes the valid values of a choice option.
func (o *OptionSpec) allowed() string {
	vals := make([]string, len(o.Choices))
	for i, c := range o.Choices {
		vals[i] = c.Value
	}
	return "valid values: " + strings.Join(vals, ", ")
}

// set parses raw (has is false for a key without '=') and stores it in j.
func (o *OptionSpec) set(j *Job, raw string, has bool) error {
	if !has && o.Type != TypeFlag && !o.OptionalArg {
		return errors.New("option requires an argument")
	}
	raw = strings.TrimSpace(raw)
	if has && raw == "" && !o.OptionalArg {
		return errors.New("empty value") // fio fails every option but its callback strings on an empty value
	}
	if o.NotRun {
		if err := o.storeless().set(j, raw, has); err != nil {
			return err
		}
		o.noteUnrun(j, raw)
		return nil
	}
	switch o.Type {
	case TypeFlag:
		b, err := parseFlag(raw, has)
		if err != nil {
			return err
		}
		return o.setBool(j, b)
	case TypeBool:
		b, err := parseBool(raw)
		if err != nil {
			return err
		}
		return o.setBool(j, b)
	case TypeInt:
		if o.Dirs > 1 {
			return o.setDirs(j, raw)
		}
		if strings.ContainsAny(raw, ",") {
			return errors.New("takes one value")
		}
		v, err := parseInt(raw, j.KBBase)
		if err != nil {
			return err
		}
		if err := o.checkRange(v); err != nil {
			return err
		}
		if o.custom != nil {
			return o.custom(j, fmt.Sprint(v))
		}
		if o.intp != nil {
			*o.intp(j) = int(v)
			return nil
		}
		if v < 0 {
			return fmt.Errorf("min value out of range: %d (0 min)", v)
		}
		*o.u64p(j) = uint64(v)
		return nil
	case TypeTime:
		if o.Dirs > 1 {
			parts, err := splitDirs(raw, o.Dirs)
			if err != nil {
				return err
			}
			for dir, p := range parts {
				if p == "" {
					continue
				}
				if o.durDirs(j)[dir], err = parseTime(p, o.Unit); err != nil {
					return err
				}
			}
			return nil
		}
		d, err := parseTime(raw, o.Unit)
		if err != nil {
			return err
		}
		if o.durp != nil {
			*o.durp(j) = d
			return nil
		}
		if o.custom == nil {
			return nil
		}
	case TypeChoice:
		if _, _, ok := o.choiceFor(raw); !ok && o.Name != "ioengine" {
			return errors.New(o.allowed())
		}
	}
	if o.custom != nil {
		return o.custom(j, raw)
	}
	return fmt.Errorf("internal error: option %s has no setter", o.Name)
}

// setDirs parses a per-direction integer value such as bs=4k,8k.
func (o *OptionSpec) setDirs(j *Job, raw string) error {
	if strings.ContainsAny(raw, ":") || (!strings.HasPrefix(raw, "-") && strings.Contains(raw, "-")) {
		return fmt.Errorf("separate the read,write,trim values with commas; for a range use %s", rangeHint(o.Name))
	}
	parts, err := splitDirs(raw, o.Dirs)
	if err != nil {
		return err
	}
	for d := DirRead; d < NumDirs; d++ {
		if parts[d] == "" {
			continue
		}
		v, err := parseInt(parts[d], j.KBBase)
		if err != nil {
			return err
		}
		if err := o.checkRange(v); err != nil {
			return err
		}
		if o.Neg {
			v = o.Max - v
		}
		if o.dirsp != nil {
			o.dirsp(j)[d] = int(v)
		} else {
			if v < 0 {
				return fmt.Errorf("min value out of range: %d (0 min)", v)
			}
			o.dirs64(j)[d] = uint64(v)
		}
	}
	return nil
}

func rangeHint(name string) string {
	if name == "bs" {
		return "bsrange=lo-hi"
	}
	return "separate options"
}

// storeless returns a copy of o that checks a value as o does and stores
// it nowhere (for NotRun options), keeping o's own setter when it has one.
func (o *OptionSpec) storeless() *OptionSpec {
	c := *o
	c.NotRun = false
	if c.custom != nil || c.intp != nil || c.u64p != nil || c.boolp != nil || c.durp != nil || c.dirsp != nil || c.dirs64 != nil {
		return &c
	}
	switch c.Type {
	case TypeBool, TypeFlag:
		var b bool
		c.boolp = func(*Job) *bool { return &b }
	case TypeInt:
		var d [NumDirs]uint64
		var n int
		c.dirs64 = func(*Job) *[NumDirs]uint64 { return &d }
		c.intp = func(*Job) *int { return &n }
	case TypeTime:
	case TypeFloatList:
		c.custom = func(_ *Job, v string) error { _, _, err := parseFloatList(v); return err }
	default:
		c.custom = func(j *Job, v string) error {
			if c.Type == TypeString || c.Type == TypeChoice {
				return nil
			}
			_, _, err := parseSize(v, j.KBBase, c.Type == TypeSize)
			return err
		}
	}
	return &c
}
