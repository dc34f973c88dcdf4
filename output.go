package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

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
