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
	if fi, err := os.Stat(filepath.Dir(cfg.Output)); err != nil || !fi.IsDir() {
		return nil, nil, fmt.Errorf("--output %s: no such directory", cfg.Output)
	}
	lf := &lazyFile{path: cfg.Output}
	return lf, func() {
		if err := lf.Close(); err != nil {
			st.logf("close --output: %v", err)
		}
	}, nil
}

// lazyFile is an io.Writer that creates its file on the first write.
type lazyFile struct {
	path string
	f    *os.File
}

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
