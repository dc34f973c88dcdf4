package jobfile

import (
	"fmt"
	"sort"
	"strings"
)

// CmdlineMatches returns the options a command-line name selects the way
// getopt_long_only does: the exact name or alias if there is one, otherwise
// every option having a name or alias that starts with name.
func CmdlineMatches(name string) []*OptionSpec {
	if o, ok := lookup[name]; ok {
		return []*OptionSpec{o}
	}
	var out []*OptionSpec
	seen := map[*OptionSpec]bool{}
	for _, o := range allOptions() {
		for _, n := range append([]string{o.Name}, o.Aliases...) {
			if name != "" && strings.HasPrefix(n, name) && !seen[lookup[n]] {
				seen[lookup[n]] = true
				out = append(out, lookup[n])
			}
		}
	}
	return out
}

// resolveCmdline resolves a command-line option name, accepting unique
// prefixes (--runt=1 is runtime).
func resolveCmdline(arg, name string) (*OptionSpec, error) {
	m := CmdlineMatches(name)
	switch len(m) {
	case 1:
		return m[0], nil
	case 0:
		e := &Error{Option: arg, Msg: "unrecognized option"}
		if fioOnlyOption(name) {
			e.Msg = fmt.Sprintf("fio option %s is not supported by gofio", name)
		} else if best, ok := closestOption(name); ok {
			e.Msg += fmt.Sprintf("; did you mean %s?", best)
		}
		return nil, e
	}
	names := make([]string, len(m))
	for i, o := range m {
		names[i] = "'--" + o.Name + "'"
	}
	sort.Strings(names)
	return nil, &Error{Option: arg, Msg: "ambiguous; possibilities: " + strings.Join(names, " ")}
}

// cmdlineSections groups command-line job options into sections the way
// fio's parse_cmd_line does: options before the first --name are global,
// each --name=X starts job X (or a global section if X starts with
// "global"). Like fio, each option is parsed where it stands: no priority
// sort on the command line.
func cmdlineSections(args []string) ([]*section, error) {
	cur := &section{name: "global", global: true, cmdline: true}
	out := []*section{cur}
	for _, a := range args {
		text := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		key, value, has := strings.Cut(text, "=")
		spec, err := resolveCmdline(a, key)
		if err != nil {
			return nil, err
		}
		if spec.Name == "ioengine" {
			if err := checkEngine(strings.TrimSpace(value)); has && err != nil {
				return nil, &Error{Option: a, Msg: err.Error()}
			}
		}
		if spec.Name == "name" {
			if !has || value == "" {
				return nil, &Error{Option: a, Msg: "--name needs a job name"}
			}
			cur = &section{name: value, global: strings.HasPrefix(value, "global"), cmdline: true}
			out = append(out, cur)
			continue
		}
		cur.entries = append(cur.entries, entry{rawEntry: rawEntry{key: key, value: value, has: has}, spec: spec})
	}
	return out, nil
}

// ResolveCmdline resolves one command-line argument such as --runt=1 to its
// option, with getopt_long_only's prefix rule, or returns an *Error saying
// why it is unknown or ambiguous.
func ResolveCmdline(arg string) (*OptionSpec, error) {
	text := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	key, _, _ := strings.Cut(text, "=")
	return resolveCmdline(arg, key)
}
