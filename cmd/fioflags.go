package cmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// debugCategories are fio 3.33's --debug names. gofio prints "parse" (each
// option as a job takes it); the others are accepted and print nothing.
var debugCategories = []string{"process", "file", "io", "mem", "blktrace", "verify", "random", "parse",
	"diskutil", "job", "mutex", "profile", "time", "net", "rate", "compress", "steadystate", "helperthread", "zbd"}

// fioFlagsFrom reads fio's own command-line flags into cfg, checking them
// as fio 3.33 does.
func fioFlagsFrom(c *cli.Context, cfg *Config) error {
	if c.Bool("minimal") || c.Bool("append-terse") {
		if !c.IsSet("output-format") && c.Bool("minimal") {
			cfg.OutputFormats = nil
		}
		cfg.OutputFormats = append(cfg.OutputFormats, "terse")
	}
	cfg.TerseVersion = c.Int("terse-version")
	ok := false
	for _, v := range report.TerseVersions {
		ok = ok || v == cfg.TerseVersion
	}
	if !ok {
		return fmt.Errorf("bad terse version format %d (valid: 2, 3, 4, 5)", cfg.TerseVersion)
	}
	cfg.ReadOnly = c.Bool("readonly")
	cfg.MergeBlktraceOnly = c.Bool("merge-blktrace-only")
	cfg.BandwidthLog = c.Bool("bandwidth-log")
	cfg.WarningsFatal = c.Bool("warnings-fatal")
	cfg.AuxPath = c.String("aux-path")
	var err error
	if cfg.FioRelease, err = report.ParseRelease(c.String("fio-release")); err != nil {
		return err
	}
	if n := c.Int("max-jobs"); n < 0 {
		return fmt.Errorf("--max-jobs %d: want a positive number", n)
	}
	if n := c.Int("alloc-size"); n < 0 {
		return fmt.Errorf("--alloc-size %d: want a size in KiB", n)
	}
	if cfg.EtaNewline, err = flagTime(c, "eta-newline", time.Millisecond); err != nil {
		return err
	}
	if cfg.StatusInterval, err = flagTime(c, "status-interval", time.Millisecond); err != nil {
		return err
	}
	if v := c.String("debug"); v != "" {
		for _, d := range strings.Split(v, ",") {
			if d == "?" || d == "help" || d == "all" {
				cfg.Debug = append(cfg.Debug, d)
				continue
			}
			known := false
			for _, k := range debugCategories {
				known = known || k == d
			}
			if !known {
				return fmt.Errorf("--debug: unknown category %q (valid: %s)", d, strings.Join(debugCategories, ","))
			}
			cfg.Debug = append(cfg.Debug, d)
		}
	}
	return nil
}

// flagTime reads a time flag as fio's check_str_time: a bare number is in
// seconds, suffixes us, ms, s, m, h and d; it must be at least min.
func flagTime(c *cli.Context, name string, min time.Duration) (time.Duration, error) {
	v := c.String(name)
	if v == "" {
		return 0, nil
	}
	d, err := jobfile.ParseTime(v, time.Second)
	if err != nil {
		return 0, fmt.Errorf("--%s: %w", name, err)
	}
	if d < min {
		return 0, fmt.Errorf("--%s %s: too short (at least %v)", name, v, min)
	}
	return d, nil
}

// terseVersion is --terse-version, 3 when unset (a Config built by hand).
func (cfg *Config) terseVersion() int {
	if cfg.TerseVersion == 0 {
		return 3
	}
	return cfg.TerseVersion
}

// debugs reports whether --debug asked for category.
func (cfg *Config) debugs(category string) bool {
	for _, d := range cfg.Debug {
		if d == category || d == "all" {
			return true
		}
	}
	return false
}
