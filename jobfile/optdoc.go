package jobfile

import (
	"fmt"
	"strings"
)

// OptionsMarkdown renders the option table as the option list OPTIONS.md.
func OptionsMarkdown() string {
	var b strings.Builder
	b.WriteString("<!-- Generated from jobfile's option table by `go test ./jobfile -run TestOptionsDoc -update`. Do not edit. -->\n\n")
	b.WriteString("| Option | Aliases | Type | Default | Allowed | Engine | Meaning |\n|---|---|---|---|---|---|---|\n")
	for _, o := range allOptions() {
		allowed := ""
		switch {
		case len(o.Choices) > 0:
			vals := make([]string, len(o.Choices))
			for k, c := range o.Choices {
				vals[k] = c.Value
			}
			allowed = strings.Join(vals, ", ")
		case o.Type == TypeFloatList:
			n := o.FMaxLen
			if n == 0 {
				n = 20
			}
			allowed = fmt.Sprintf("up to %d", n)
			if o.FMin != 0 || o.FMax != 0 {
				allowed = fmt.Sprintf("%g..%g, up to %d", o.FMin, o.FMax, n)
			}
		case o.hasRange() && o.Max > 0:
			allowed = fmt.Sprintf("%d..%d", o.Min, o.Max)
		case o.hasRange():
			allowed = fmt.Sprintf(">= %d", o.Min)
		}
		engine := o.Engine
		if engine == "" {
			engine = "all"
		}
		help := o.Help
		if o.Gofio {
			help = "**gofio only.** " + help
		}
		if o.Since != "" {
			help = "**fio " + o.Since + ".** " + help
		}
		if o.Note != "" {
			help += " (" + o.Note + ")"
		}
		esc := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s |\n", o.Name, esc(strings.Join(o.Aliases, ", ")),
			esc(o.TypeName()), esc(o.Default), esc(allowed), engine, esc(help))
	}
	return b.String()
}
