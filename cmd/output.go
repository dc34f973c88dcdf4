package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofio/gofio/report"
)

// openOutput returns where the reports go: --output=FILE or stdout. The
// file is created on the first write, so a run refused before it reports
// anything leaves no file behind.
func openOutput(st *State, cfg *Config) (io.Writer, func(), error) {
	if cfg.Output == "" {
		return st.Stdout, func() {}, nil
	}
	fi, err := os.Stat(filepath.Dir(cfg.Output))
	if err != nil {
		return nil, nil, fmt.Errorf("--output %s: %w", cfg.Output, err)
	}
	if !fi.IsDir() {
		return nil, nil, fmt.Errorf("--output %s: %s is not a directory", cfg.Output, filepath.Dir(cfg.Output))
	}
	lf := &lazyFile{path: cfg.Output}
	return lf, func() {
		if err := lf.Close(); err != nil {
			st.logf("close --output: %v", err)
		}
	}, nil
}

// checkOutputDirs refuses, before anything runs, a --compare-csv, --plot,
// --junit or --json-dir path whose directory does not exist, so that a
// sweep is never run for a report that cannot be written.
func checkOutputDirs(cfg *Config) error {
	for _, o := range []struct{ flag, path string }{
		{"--compare-csv", cfg.CompareCSV}, {"--plot", cfg.Plot}, {"--junit", cfg.JUnit}, {"--json-dir", cfg.JSONDir},
	} {
		if o.path == "" {
			continue
		}
		dir := filepath.Dir(o.path)
		fi, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s %s: %s is not a directory", o.flag, o.path, dir)
		}
	}
	return nil
}

// lazyFile is an io.Writer that creates its file on the first write.
type lazyFile struct {
	path string
	f    *os.File
}

// Write creates the file on the first call, then writes p to it.
func (l *lazyFile) Write(p []byte) (int, error) {
	if l.f == nil {
		f, err := os.Create(l.path)
		if err != nil {
			return 0, fmt.Errorf("open --output: %w", err)
		}
		l.f = f
	}
	return l.f.Write(p)
}

// Close closes the file if it was created.
func (l *lazyFile) Close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}

// writeFile creates path and fills it with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}

// writeJSONFile writes res as fio JSON to path, creating its directory.
func writeJSONFile(path string, res *report.Result) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create --json-dir: %w", err)
	}
	return writeFile(path, func(w io.Writer) error { return report.WriteJSON(w, res, false) })
}

// outputFormat is one value of --output-format with its writers: what a
// plain run writes for it, and what a comparison (--compare, --sweep,
// --baseline, gofio diff) writes. A nil writer writes nothing in that mode.
// Formats of one group write once (json and json+; normal and compare for
// a comparison).
type outputFormat struct {
	name       string
	merge      bool // gofio merge writes it too
	group      string
	plain      func(w io.Writer, cfg *Config, res *report.Result) error
	comparison func(w io.Writer, cfg *Config, set comparisons) error
}

// comparisons is what a comparison command writes: cmps, the run's own
// first (CSV, plot and JSON describe it), then one against --baseline;
// json writes the JSON document (the run's result with its comparison, or
// a diff's comparison alone). headings puts a title above each titled
// comparison (a run and its baseline diff); a diff's one comparison has
// none.
type comparisons struct {
	cmps     []titled
	json     func(w io.Writer, plus bool) error
	headings bool
}

// outputFormats is the one table of output formats: the values
// --output-format accepts, in the order help and errors name them, and
// their writers.
var outputFormats = []outputFormat{
	{name: "normal", merge: true, group: "text", plain: writeNormal, comparison: writeTables},
	{name: "json", merge: true, group: "json", plain: writeJSONAs(false), comparison: writeComparisonJSON(false)},
	{name: "json+", merge: true, group: "json", plain: writeJSONAs(true), comparison: writeComparisonJSON(true)},
	{name: "terse", plain: writeTerse},
	{name: "compare", group: "text", comparison: writeTables},
	{name: "markdown", comparison: writeMarkdownSet},
}

// plainOrder is the order a plain run writes its formats in, fio's: terse,
// json (json+ over json), normal. comparisonOrder is a comparison's: the
// table, Markdown, then JSON.
var (
	plainOrder      = []string{"terse", "json+", "json", "normal"}
	comparisonOrder = []string{"normal", "compare", "markdown", "json+", "json"}
)

// formatNames returns the names of outputFormats, all of them or, with
// mergeOnly, those gofio merge writes.
func formatNames(mergeOnly bool) []string {
	var names []string
	for _, f := range outputFormats {
		if f.merge || !mergeOnly {
			names = append(names, f.name)
		}
	}
	return names
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// eachFormat calls write for every requested format in order, once per
// group.
func eachFormat(cfg *Config, order []string, write func(f outputFormat) error) error {
	var errs []error
	done := map[string]bool{}
	for _, name := range order {
		if !hasFormat(cfg, name) {
			continue
		}
		for _, f := range outputFormats {
			if f.name != name || (f.group != "" && done[f.group]) {
				continue
			}
			if f.group != "" {
				done[f.group] = true
			}
			errs = append(errs, write(f))
		}
	}
	return errors.Join(errs...)
}

// writeFormats writes a plain run's res in every requested format: the
// final report, and each --status-interval one.
func writeFormats(cfg *Config, out io.Writer, res *report.Result) error {
	return eachFormat(cfg, plainOrder, func(f outputFormat) error {
		if f.plain == nil {
			return nil
		}
		return f.plain(out, cfg, res)
	})
}

// writeComparisons writes set in every requested format.
func writeComparisons(cfg *Config, out io.Writer, set comparisons) error {
	return eachFormat(cfg, comparisonOrder, func(f outputFormat) error {
		if f.comparison == nil {
			return nil
		}
		return f.comparison(out, cfg, set)
	})
}

func writeNormal(w io.Writer, _ *Config, res *report.Result) error { return report.WriteNormal(w, res) }

func writeTerse(w io.Writer, cfg *Config, res *report.Result) error {
	return report.WriteTerseVersion(w, res, cfg.terseVersion())
}

// writeJSONAs returns the plain writer of json (plus false) or json+.
func writeJSONAs(plus bool) func(io.Writer, *Config, *report.Result) error {
	return func(w io.Writer, _ *Config, res *report.Result) error { return report.WriteJSON(w, res, plus) }
}

// writeComparisonJSON returns the comparison writer of json or json+.
func writeComparisonJSON(plus bool) func(io.Writer, *Config, comparisons) error {
	return func(w io.Writer, _ *Config, set comparisons) error { return set.json(w, plus) }
}

// writeTables writes each comparison's table, a titled one under its
// heading.
func writeTables(w io.Writer, _ *Config, set comparisons) error {
	for _, c := range set.cmps {
		if !set.headings {
			if err := report.WriteCompareTable(w, c.cmp); err != nil {
				return err
			}
			continue
		}
		if err := writeTitledTable(w, c); err != nil {
			return err
		}
	}
	return nil
}

// writeMarkdownSet writes every comparison as Markdown.
func writeMarkdownSet(w io.Writer, cfg *Config, set comparisons) error {
	if !set.headings {
		for _, c := range set.cmps {
			c.title = ""
			if err := writeMarkdown(w, cfg, []titled{c}); err != nil {
				return err
			}
		}
		return nil
	}
	return writeMarkdown(w, cfg, set.cmps)
}
