package jobfile

import (
	"fmt"
	"io"
	"strings"
)

// CmdHelp writes fio's --cmdhelp output: every job option with its help
// when opt is "" or "all", otherwise the details of option opt (name or
// alias), or the closest match. A fio option gofio does not implement is
// named as such.
func CmdHelp(w io.Writer, opt string) error {
	var b strings.Builder
	if opt == "" || opt == "all" {
		for i := range optionTable {
			o := &optionTable[i]
			if o.Engine != "" {
				continue
			}
			if o.Parent != "" {
				fmt.Fprintf(&b, "  %-22s: %s\n", o.Name, o.Help)
			} else {
				fmt.Fprintf(&b, "%-24s: %s\n", o.Name, o.Help)
			}
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	if o, ok := lookup[opt]; ok {
		writeOptionHelp(&b, o)
	} else if fioOnlyOption(opt) {
		// fio would show it; say why gofio does not rather than pretend
		// the option does not exist.
		fmt.Fprintf(&b, "%20s: fio option, not supported by gofio (a job file that sets it is refused)\n", opt)
	} else {
		fmt.Fprintf(&b, "No such command: %s", opt)
		best, _ := closestOption(opt)
		if levenshtein(opt, best) < 3 {
			b.WriteString(" - showing closest match\n")
			writeOptionHelp(&b, lookup[best])
		} else {
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeOptionHelp writes one option's details in fio's layout.
func writeOptionHelp(b *strings.Builder, o *OptionSpec) {
	fmt.Fprintf(b, "%20s: %s\n", o.Name, o.Help)
	if len(o.Aliases) > 0 {
		fmt.Fprintf(b, "%20s: %s\n", "alias", strings.Join(o.Aliases, ", "))
	}
	fmt.Fprintf(b, "%20s: %s\n", "type", o.TypeName())
	def := o.Default
	if def == "" {
		def = "no default"
	}
	fmt.Fprintf(b, "%20s: %s\n", "default", def)
	switch {
	case o.Type == TypeFloatList && (o.FMin != 0 || o.FMax != 0):
		fmt.Fprintf(b, "%20s: min=%f, max=%f\n", "range", o.FMin, o.FMax)
	case o.Type == TypeFloatList:
	case len(o.Choices) == 0 && o.hasRange():
		fmt.Fprintf(b, "%20s: min=%d", "range", o.Min)
		if o.Max != 0 {
			fmt.Fprintf(b, ", max=%d", o.Max)
		}
		b.WriteString("\n")
	}
	for i, c := range o.Choices {
		label := ""
		if i == 0 {
			label = "valid values"
		}
		fmt.Fprintf(b, "%20s: %-10s", label, c.Value)
		if c.Help != "" {
			b.WriteString(" " + c.Help)
		}
		b.WriteString("\n")
	}
	if o.Engine != "" {
		fmt.Fprintf(b, "%20s: %s\n", "engine", o.Engine)
	}
	if o.Gofio {
		fmt.Fprintf(b, "%20s: %s\n", "gofio", "gofio's own option, fio does not have it")
	}
	if o.Since != "" {
		fmt.Fprintf(b, "%20s: fio %s\n", "since", o.Since)
	}
	if o.Note != "" {
		fmt.Fprintf(b, "%20s: %s\n", "note", o.Note)
	}
	if o.NotRun {
		fmt.Fprintf(b, "%20s: %s\n", "gofio", "parsed and checked as fio does; a job that sets it to anything but the default is refused at run time")
	}
	b.WriteString("\n")
}

// EngHelp writes fio's --enghelp output: the engines gofio runs when engine
// is "", the options of engine ("io_uring"), or the details of one option
// ("io_uring,fixedbufs"). An engine gofio refuses is an error saying why.
func EngHelp(w io.Writer, engine string) error {
	var b strings.Builder
	name, opt, hasOpt := strings.Cut(engine, ",")
	if name == "" {
		b.WriteString("Available IO engines:\n")
		for _, e := range SupportedEngines() {
			fmt.Fprintf(&b, "\t%s\n", e)
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	if err := checkEngine(name); err != nil {
		return &Error{File: "--enghelp", Option: name, Msg: err.Error()}
	}
	if hasOpt {
		o, ok := engineOption(name, opt)
		if !ok {
			return &Error{File: "--enghelp", Option: opt, Msg: fmt.Sprintf("engine %s has no option %s", name, opt)}
		}
		writeOptionHelp(&b, o)
	} else {
		opts := EngineOptions(name)
		for _, o := range opts {
			if o.Parent != "" {
				fmt.Fprintf(&b, "  %-22s: %s\n", o.Name, o.Help)
			} else {
				fmt.Fprintf(&b, "%-24s: %s\n", o.Name, o.Help)
			}
		}
		if len(opts) == 0 {
			fmt.Fprintf(&b, "IO engine %s has no options\n", name)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
