package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/gofio/gofio/fleet"
	"github.com/gofio/gofio/report"
)

// merge is gofio merge: it reads the hosts' JSON results, checks they are
// one fleet run and writes the client-mode result: JSON to output (or to
// stdout with --output-format=json), the normal text to stdout. Nothing is
// written when a file is refused.
func (st *State) merge(files []string, output, format string, force bool) error {
	if !slices.Contains(formatNames(true), format) {
		return fmt.Errorf("merge: invalid --output-format %q (valid: %s)", format, strings.Join(formatNames(true), ", "))
	}
	if len(files) == 0 {
		return errors.New("merge: no result files (gofio merge -o all.json host1.json host2.json ...)")
	}
	var hosts []*fleet.Host
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		h, err := fleet.Read(name, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		hosts = append(hosts, h)
	}
	c, err := fleet.Merge(hosts, fleet.Options{Force: force, Version: versionString()})
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	plus := format == "json+"
	if output != "" {
		if err := writeFile(output, func(w io.Writer) error { return report.WriteClientJSON(w, c, plus) }); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
	}
	if output == "" && format != "normal" {
		return report.WriteClientJSON(st.Stdout, c, plus)
	}
	return report.WriteClientNormal(st.Stdout, c)
}
