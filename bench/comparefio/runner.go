package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Tool is one side of the comparison: a binary that takes fio's
// command-line job syntax and prints fio-schema JSON.
type Tool struct {
	Label string // "gofio" or "fio"
	Path  string
}

// Runner runs cases with a tool, keeping every raw output.
type Runner struct {
	Dir     string        // working directory of the runs (scratch)
	LogDir  string        // where raw JSON and stderr of each run go
	Runtime time.Duration // per run, to size the timeout
	Floor   string        // built bench/liburing/uring_floor, for floor cases
	Peak    string        // built fio t/io_uring, for peak cases
	Verbose func(format string, args ...any)
}

// Run runs one case once with tool t and parses its JSON. The raw stdout
// and stderr are kept as LogDir/<case>.<tool>.<pair>.{json,stderr}.
func (r Runner) Run(ctx context.Context, t Tool, c Case, pair int) (Sample, error) {
	args := append(append([]string(nil), c.Args...), "--output-format=json")
	r.Verbose("run %s %s", t.Label, strings.Join(args, " "))
	start := time.Now()
	stdout, stderr, runErr := r.command(ctx, t.Path, args)
	base := filepath.Join(r.LogDir, fmt.Sprintf("%s.%s.%d", c.Name, t.Label, pair))
	if err := os.WriteFile(base+".json", stdout.Bytes(), 0o644); err != nil {
		return Sample{}, fmt.Errorf("keep output: %w", err)
	}
	if err := os.WriteFile(base+".stderr", stderr.Bytes(), 0o644); err != nil {
		return Sample{}, fmt.Errorf("keep stderr: %w", err)
	}
	r.Verbose("  %s took %s", t.Label, time.Since(start).Round(time.Millisecond))
	if runErr != nil {
		return Sample{}, fmt.Errorf("%s: %w: %s", t.Label, runErr, firstLine(stderr.String()))
	}
	s, err := ParseSample(stdout.Bytes())
	if err != nil {
		return Sample{}, fmt.Errorf("%s: %w (raw output in %s.json)", t.Label, err, base)
	}
	if len(s.Errors) > 0 {
		return s, fmt.Errorf("%s: job error %v: %s", t.Label, s.Errors, firstLine(stderr.String()))
	}
	if s.TotalIOs == 0 {
		return s, fmt.Errorf("%s: no I/O done", t.Label)
	}
	return s, nil
}

// command runs path with args in r.Dir, allowing the run two minutes past
// r.Runtime and interrupting it like a user's Ctrl-C when ctx ends, and
// returns what it wrote to stdout and stderr.
func (r Runner) command(ctx context.Context, path string, args []string) (stdout, stderr *bytes.Buffer, err error) {
	ctx, cancel := context.WithTimeout(ctx, r.Runtime+2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	interruptOnCancel(cmd)
	cmd.Dir = r.Dir
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	return stdout, stderr, cmd.Run()
}

// firstLine returns the first non-empty line of s, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return "(no stderr)"
}

// RunCases runs every case pairs times, alternating gofio and fio within
// each pair (gofio and the C floor for floor cases, gofio and fio's
// t/io_uring for peak cases, gofio and gofio with
// other options for GofioOther cases), and returns one row per case and
// metric.
func (r Runner) RunCases(ctx context.Context, gofio, fio Tool, cases []Case, pairs int, progress func(string)) []Row {
	var rows []Row
	for _, c := range cases {
		crow := make([]Row, len(c.Metrics))
		for i, m := range c.Metrics {
			crow[i] = Row{Case: c.Name, Metric: m}
		}
		for p := 0; p < pairs && ctx.Err() == nil; p++ {
			gs, gerr := r.Run(ctx, gofio, c, p)
			var fs Sample
			var ferr error
			switch {
			case c.FloorDepth > 0:
				fs, ferr = r.RunFloorCase(ctx, c, p)
			case c.Peak != nil:
				fs, ferr = r.RunPeakCase(ctx, c, p)
			case c.GofioOther != nil:
				other := c
				other.Args = c.GofioOther
				fs, ferr = r.Run(ctx, Tool{Label: gofio.Label + "-other", Path: gofio.Path}, other, p)
			default:
				fs, ferr = r.Run(ctx, fio, c, p)
			}
			for i, m := range c.Metrics {
				switch {
				case gerr != nil:
					crow[i].Failures = append(crow[i].Failures, gerr.Error())
				case ferr != nil:
					crow[i].Failures = append(crow[i].Failures, ferr.Error())
				default:
					crow[i].Gofio = append(crow[i].Gofio, m.Value(gs))
					crow[i].Fio = append(crow[i].Fio, m.Value(fs))
					if m.Name == metricLat.Name {
						crow[i].GofioInFlight = append(crow[i].GofioInFlight, gs.IOPS*gs.LatMeanNs/1e9)
						crow[i].FioInFlight = append(crow[i].FioInFlight, fs.IOPS*fs.LatMeanNs/1e9)
						crow[i].ReapAll = crow[i].ReapAll || gs.ReapAll
					}
				}
			}
			msg := fmt.Sprintf("%s pair %d/%d", c.Name, p+1, pairs)
			if gerr != nil {
				msg += ": " + gerr.Error()
			}
			if ferr != nil {
				msg += ": " + ferr.Error()
			}
			progress(msg)
		}
		rows = append(rows, crow...)
	}
	return rows
}

// interruptOnCancel runs cmd in its own process group and makes a
// cancelled cmd's group get SIGINT first, as a user's Ctrl-C would, so fio
// and gofio (and /usr/bin/time's child) stop their jobs and print their
// partial report; SIGKILL follows after a grace period.
func interruptOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
	cmd.WaitDelay = 15 * time.Second
}
