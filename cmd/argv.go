package cmd

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gofio/gofio/jobfile"
)

// argKind says whether a gofio flag takes a value.
type argKind int

const (
	argNone     argKind = iota // --showcmd
	argRequired                // --output=FILE or --output FILE
	argOptional                // --cmdhelp or --cmdhelp=OPT
)

// flagsByName indexes flagTable by name for splitArgv; everything else
// starting with '-' is a fio job option.
func flagsByName() map[string]flagSpec {
	m := make(map[string]flagSpec)
	for _, f := range flagTable() {
		m[f.Names()[0]] = f
	}
	return m
}

// splitArgs is argv split the way fio's getopt_long_only sees it.
type splitArgs struct {
	flags   []string // gofio's flags, normalised to --name=value, for urfave/cli
	jobOpts []string // fio job options in order, canonical --name[=value]
	files   []string // job files in order
	diff    bool     // the command is gofio diff; files are OLD and NEW
}

// jobOnlyAfterName are gofio flags that share their name with a job
// option fio takes on its command line: after a --name= they are that job
// option, as in fio (fio --name=s --ioengine=net --hostname=HOST), and
// before any --name= gofio's flag (--hostname, the host name results
// carry).
var jobOnlyAfterName = map[string]bool{"hostname": true}

// splitArgv separates gofio's flags, fio job options and job files.
// Options may come after job files (GNU getopt permutes argv), take one or
// two dashes, and may be abbreviated to a unique prefix.
func splitArgv(args []string) (*splitArgs, error) {
	out := &splitArgs{}
	inJob := false // a --name= came: jobOnlyAfterName are job options
	gofioFlags := flagsByName()
	first := 1
	profile := profileInArgs(args)
	if len(args) > 1 && args[1] == diffCmd {
		// gofio diff OLD.json NEW.json; a job file named diff is ./diff.
		out.diff, first = true, 2
	}
	for i := first; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out.files = append(out.files, args[i+1:]...)
			break
		}
		if a == "-" || !strings.HasPrefix(a, "-") {
			out.files = append(out.files, a)
			continue
		}
		if a == "-h" {
			out.flags = append(out.flags, "--help")
			continue
		}
		text := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		name, value, has := strings.Cut(text, "=")
		if jobfile.IsProfileOption(profile, name) {
			// The profile's own option (tiobench's --dir=...), taken
			// by its exact name as fio registers it.
			if !has {
				if i+1 >= len(args) {
					return nil, fmt.Errorf("option '%s' requires an argument", a)
				}
				i++
				value = args[i]
			}
			out.jobOpts = append(out.jobOpts, "--"+name+"="+value)
			continue
		}
		flag, spec, err := classify(gofioFlags, a, name)
		if err != nil {
			return nil, err
		}
		if flag != "" && flag == name && inJob && jobOnlyAfterName[flag] {
			if o, ok := jobfile.Lookup(name); ok {
				flag, spec = "", o
			}
		}
		if spec != nil && spec.Name == "name" {
			inJob = true
		}
		next := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("option '%s' requires an argument", a)
			}
			i++
			return args[i], nil
		}
		if flag != "" {
			switch gofioFlags[flag].arg() {
			case argNone:
				if has {
					return nil, fmt.Errorf("option '--%s' doesn't allow an argument", flag)
				}
				out.flags = append(out.flags, "--"+flag)
				continue
			case argRequired:
				if !has {
					if value, err = next(); err != nil {
						return nil, err
					}
				}
			case argOptional:
				if f := gofioFlags[flag]; !has && f.takesNext != nil && i+1 < len(args) && f.takesNext(args[i+1]) {
					i++
					value = args[i]
				} else if !has {
					value = f.bare
				}
			}
			out.flags = append(out.flags, "--"+flag+"="+value)
			continue
		}
		if !has && (spec.Type != jobfile.TypeFlag || spec.Name == "name") {
			if value, err = next(); err != nil {
				return nil, err
			}
			has = true
		}
		if has {
			out.jobOpts = append(out.jobOpts, "--"+spec.Name+"="+value)
		} else {
			out.jobOpts = append(out.jobOpts, "--"+spec.Name)
		}
	}
	return out, nil
}

// profileInArgs returns the NAME of the last --profile=NAME (or --profile
// NAME) in args, "" when there is none.
func profileInArgs(args []string) string {
	name := ""
	for i, a := range args {
		key, value, has := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || key != "profile" {
			continue
		}
		if !has && i+1 < len(args) {
			value = args[i+1]
		}
		name = value
	}
	return name
}

// classify resolves an argument name to a gofio flag or a job option: an
// exact name wins, otherwise the prefix must be unique across both.
func classify(gofioFlags map[string]flagSpec, arg, name string) (string, *jobfile.OptionSpec, error) {
	if _, ok := gofioFlags[name]; ok {
		return name, nil, nil
	}
	if o, ok := jobfile.Lookup(name); ok {
		return "", o, nil
	}
	var flags []string
	for f := range gofioFlags {
		if name != "" && strings.HasPrefix(f, name) {
			flags = append(flags, f)
		}
	}
	specs := jobfile.CmdlineMatches(name)
	switch {
	case len(flags) == 1 && len(specs) == 0:
		return flags[0], nil, nil
	case len(flags) == 0 && len(specs) == 1:
		return "", specs[0], nil
	case len(flags) == 0 && len(specs) == 0:
		_, err := jobfile.ResolveCmdline(arg) // words the error (did you mean ...)
		return "", nil, err
	}
	var names []string
	for _, f := range flags {
		names = append(names, "'--"+f+"'")
	}
	for _, s := range specs {
		names = append(names, "'--"+s.Name+"'")
	}
	sort.Strings(names)
	return "", nil, fmt.Errorf("option '%s' is ambiguous; possibilities: %s", arg, strings.Join(names, " "))
}
