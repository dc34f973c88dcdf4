package jobfile

// This file holds the options gofio parses as fio does but does not run:
// noted when set to other than their default, refused before any I/O.

import (
	"sort"
	"strings"
)

// noteUnrun records in j whether option o, which gofio parses but does not
// run, is set to something other than its default.
func (o *OptionSpec) noteUnrun(j *Job, raw string) {
	if j.Unrun == nil {
		j.Unrun = map[string]string{}
	}
	if isDefault(o, raw, j.KBBase) {
		delete(j.Unrun, o.Name)
		return
	}
	j.Unrun[o.Name] = raw
}

// isDefault reports whether raw means the option's default value.
func isDefault(o *OptionSpec, raw string, kbBase int) bool {
	if raw == o.Default {
		return true
	}
	if o.Default == "" {
		// No default: only an explicit zero of a number or boolean is inert.
		o2 := *o
		o2.Default = "0"
		return o.Type != TypeString && o.Type != TypeChoice && isDefault(&o2, raw, kbBase)
	}
	a, errA := parseInt(raw, kbBase)
	b, errB := parseInt(o.Default, kbBase)
	return errA == nil && errB == nil && a == b
}

// UnrunOptions returns the options the job sets that gofio parses but does
// not run, as name=value, sorted; nil when it can run.
func (j *Job) UnrunOptions() []string {
	var out []string
	for k, v := range j.Unrun {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// UnrunError returns nil when the job can run, else an *Error at the
// first option it sets that gofio parses but does not run, or that needs
// hardware gofio does not drive (hardwareError).
func (j *Job) UnrunError() error {
	if err := j.hardwareError(); err != nil {
		return err
	}
	u := j.UnrunOptions()
	if len(u) == 0 {
		return nil
	}
	e := &Error{File: j.File, Line: j.Line, Option: strings.Join(u, ", "),
		Msg: "gofio parses these fio options as fio does but does not run them yet; remove them or set them to fio's default"}
	for _, o := range j.Options {
		if _, ok := j.Unrun[o.Name]; ok {
			e.File, e.Line = o.File, o.Line
			break
		}
	}
	return e
}
